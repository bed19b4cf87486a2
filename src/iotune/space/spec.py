"""Reading a space spec: YAML text -> plain data plus the YAML line of every element.

Lines are kept by path, e.g. ``("parameters", 3, "levels", 1)`` -> 22, so that
errors found later (bad level, bad expression) can name the exact line.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

import yaml

from iotune.errors import SpaceError
from iotune.space.parameter import FieldError, Parameter

TOP_KEYS = ("name", "description", "parameters", "constraints")

Path = tuple
Lines = Mapping[Path, int]


class _Loader(yaml.SafeLoader):
    """SafeLoader that leaves yes/no/on/off/true/false as text.

    Parameters decide what such words mean: a boolean reads them as truth
    values, a categorical keeps ``on``/``off`` as the category names written.
    """


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def where(source: str, lines: Lines, path: Path) -> str:
    """``file:line`` of the deepest element of ``path`` whose line is known, else ``file``."""
    for end in range(len(path), -1, -1):
        line = lines.get(tuple(path[:end]))
        if line is not None:
            return f"{source}:{line}"
    return source


def read_yaml(text: str, source: str) -> tuple[Any, dict[Path, int]]:
    """Parse ``text`` and return its data and line map; malformed YAML is one SpaceError line."""
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            raise SpaceError(f"{source}:1: the spec is empty; it must be a mapping with keys {', '.join(TOP_KEYS)}")
        lines: dict[Path, int] = {}
        _collect_lines(node, (), lines, source)
        data = loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = f":{mark.line + 1}" if mark is not None else ""
        problem = " ".join(str(exc.problem or exc.context or "").split())
        if exc.problem and exc.context and exc.context_mark is not None and exc.context_mark is not mark:
            problem += f" ({exc.context} started on line {exc.context_mark.line + 1})"
        raise SpaceError(f"{source}{line}: malformed YAML: {problem}") from None
    except yaml.YAMLError as exc:
        raise SpaceError(f"{source}: malformed YAML: {' '.join(str(exc).split())}") from None
    finally:
        loader.dispose()
    return data, lines


def _collect_lines(node: yaml.Node, path: Path, lines: dict[Path, int], source: str) -> None:
    lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        seen: set[Any] = set()
        for key_node, value_node in node.value:
            key = key_node.value
            line = key_node.start_mark.line + 1
            if key in seen:
                raise SpaceError(f"{source}:{line}: key {key!r} appears twice in the same mapping")
            seen.add(key)
            lines[path + (key,)] = line
            _collect_lines(value_node, path + (key,), lines, source)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _collect_lines(item, path + (index,), lines, source)


def space_arguments(data: Any, source: str, lines: Lines) -> dict[str, Any]:
    """Check the top level of a spec and build its parameters; returns keyword arguments for ``Space``."""
    if not isinstance(data, Mapping):
        raise SpaceError(
            f"{where(source, lines, ())}: the spec must be a mapping with keys {', '.join(TOP_KEYS)}, "
            f"got {type(data).__name__}"
        )
    for key in data:
        close = difflib.get_close_matches(str(key), TOP_KEYS, n=1, cutoff=0.75)
        if key not in TOP_KEYS and close:
            raise SpaceError(
                f"{where(source, lines, (key,))}: unknown key {key!r}, did you mean {close[0]!r}? "
                f"(space keys: {', '.join(TOP_KEYS)})"
            )
    if "parameters" not in data:
        raise SpaceError(f"{where(source, lines, ())}: missing 'parameters' (a list of parameter mappings)")
    entries = data["parameters"]
    if not isinstance(entries, list) or not entries:
        raise SpaceError(
            f"{where(source, lines, ('parameters',))}: 'parameters' must be a non-empty list, got {entries!r}"
        )
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise SpaceError(f"{where(source, lines, ('name',))}: the spec needs a 'name' (a string), got {name!r}")
    description = data.get("description") or ""
    if not isinstance(description, str):
        raise SpaceError(f"{where(source, lines, ('description',))}: 'description' must be a string")
    constraints = data.get("constraints") or []
    if not isinstance(constraints, list):
        raise SpaceError(
            f"{where(source, lines, ('constraints',))}: 'constraints' must be a list of expressions, "
            f"got {constraints!r}"
        )
    parameters = []
    for index, entry in enumerate(entries):
        path = ("parameters", index)
        try:
            parameters.append(Parameter.from_dict(entry, line=lines.get(path)))
        except FieldError as exc:
            detail = path + tuple(part for part in (exc.key, exc.index) if part is not None)
            raise SpaceError(f"{where(source, lines, detail)}: {exc}") from None
    return {
        "name": name,
        "description": description,
        "parameters": parameters,
        "constraints": constraints,
        "source": source,
        "lines": lines,
    }
