"""The one YAML reader for every file iotune reads: safe, bounded, with the line of every element.

A file from someone else (a spec, a workload, a pricing file) is untrusted
input, so the reader:

- builds plain data only (``yaml.SafeLoader``): no tag can run code;
- bounds what a small file may expand to: aliases are counted by the nodes
  they stand for, so a "billion laughs" document of a few hundred bytes is
  refused before anything is built, and recursive aliases are refused;
- bounds nesting depth and file size, and refuses text that is not UTF-8;
- gives YAML booleans one meaning everywhere: only ``true``/``false`` are
  booleans (YAML 1.2); ``yes``/``no``/``on``/``off`` stay text, and a field
  whose type is boolean reads them as truth values by its type, while a
  categorical level ``on`` stays the word written.

Every problem is one :class:`~iotune.errors.SpaceError` line naming the file
and, where known, the line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from iotune.bounded import InputError, read_bounded
from iotune.errors import SpaceError

MAX_BYTES = 4 * 2**20
"""Largest YAML file read (4 MiB): specs, workloads and pricing files are a few KiB."""
MAX_NODES = 200_000
"""Most nodes a document may stand for once its aliases are expanded."""
MAX_DEPTH = 64
"""Deepest nesting of mappings and lists."""

Lines = dict[tuple, int]


class _Loader(yaml.SafeLoader):
    """SafeLoader whose only booleans are ``true`` and ``false`` (any case), as in YAML 1.2, and that stops
    composing a document of more than :data:`MAX_NODES` nodes or :data:`MAX_DEPTH` levels (a flat list of a
    million numbers, or a few thousand nested brackets, would otherwise take minutes before they are checked)."""

    composed = 0
    depth = 0

    def compose_node(self, parent, index):
        self.composed += 1
        if self.composed > MAX_NODES:
            raise _Refused(self.get_mark(), f"the YAML has more than {MAX_NODES} elements; refused")
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH + 1:  # the document's root is depth 1
                raise _Refused(self.get_mark(), f"YAML nested more than {MAX_DEPTH} levels deep; refused")
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


class _Refused(Exception):
    """Composition stopped early: ``message`` says why, ``mark`` where."""

    def __init__(self, mark, message: str) -> None:
        super().__init__(message)
        self.mark, self.message = mark, message


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
for _first in "tTfF":
    _Loader.yaml_implicit_resolvers.setdefault(_first, []).insert(
        0, ("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"))
    )


def where(source: str, lines: Mapping[tuple, int], path: tuple) -> str:
    """``file:line`` of the deepest element of ``path`` whose line is known, else ``file``."""
    for end in range(len(path), -1, -1):
        line = lines.get(tuple(path[:end]))
        if line is not None:
            return f"{source}:{line}"
    return source


def load_yaml(text: str | bytes, source: str) -> tuple[Any, Lines]:
    """Parse one YAML document: its data (None when empty) and the line of each element by path.

    Paths are tuples of keys and list indices, e.g. ``("parameters", 3, "levels", 1)``.
    """
    if isinstance(text, bytes):
        text = _decode(text, source)
    if len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        raise SpaceError(f"{source}: the file is larger than {MAX_BYTES // 2**20} MiB; not a YAML file iotune reads")
    loader = None
    try:
        loader = _Loader(text)  # its reader already refuses control characters (NUL, ...)
        node = loader.get_single_node()
        if node is None:
            return None, {}
        _check_size(node, source)
        lines: Lines = {}
        _collect_lines(node, (), lines, source, set())
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
    except RecursionError:
        raise SpaceError(f"{source}: YAML nested too deeply (more than {MAX_DEPTH} levels)") from None
    except _Refused as exc:
        raise SpaceError(f"{source}:{exc.mark.line + 1}: {exc.message}") from None
    finally:
        if loader is not None:
            loader.dispose()
    return data, lines


def read_yaml_file(path: str | Path, what: str = "YAML file") -> tuple[Any, Lines]:
    """Read and parse a YAML file; ``what`` names it in errors ("spec", "workload file", ...)."""
    try:  # by reading, not stat: /dev/zero, a FIFO and <(cmd) have no size
        raw = read_bounded(path, MAX_BYTES, what)
    except InputError as exc:
        raise SpaceError(str(exc)) from None
    return load_yaml(raw, str(path))


def _decode(raw: bytes, source: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SpaceError(f"{source}: not UTF-8 text (byte {exc.start}); YAML files must be UTF-8") from None


def _check_size(root: yaml.Node, source: str) -> None:
    """Refuse documents whose aliases stand for too many nodes, that refer to themselves, or nest too deeply."""
    sizes: dict[int, int] = {}
    depth_of: dict[int, int] = {}
    # iterative post-order walk; a node seen again is an alias (its size is counted again, not rebuilt)
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    open_nodes: set[int] = set()
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            open_nodes.discard(key)
            children = _children(node)
            sizes[key] = 1 + sum(sizes[id(c)] for c in children)
            depth_of[key] = 1 + max((depth_of[id(c)] for c in children), default=0)
            if sizes[key] > MAX_NODES:
                raise SpaceError(f"{source}:{node.start_mark.line + 1}: the YAML expands to more than {MAX_NODES} "
                                 "elements (aliases of aliases?); refused")
            if depth_of[key] > MAX_DEPTH:
                raise SpaceError(f"{source}:{node.start_mark.line + 1}: YAML nested more than {MAX_DEPTH} levels "
                                 "deep; refused")
            continue
        if key in sizes:
            continue
        if key in open_nodes:
            raise SpaceError(f"{source}:{node.start_mark.line + 1}: a YAML alias refers to the element that contains "
                             "it (a recursive structure); refused")
        open_nodes.add(key)
        stack.append((node, True))
        for child in _children(node):
            if id(child) in open_nodes:
                raise SpaceError(f"{source}:{child.start_mark.line + 1}: a YAML alias refers to the element that "
                                 "contains it (a recursive structure); refused")
            if id(child) not in sizes:
                stack.append((child, False))


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _collect_lines(node: yaml.Node, path: tuple, lines: Lines, source: str, seen: set[int]) -> None:
    lines.setdefault(path, node.start_mark.line + 1)
    if id(node) in seen:  # an alias: its elements' lines are those of the anchor, already collected there
        return
    seen.add(id(node))
    if isinstance(node, yaml.MappingNode):
        keys: set[Any] = set()
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else f"<{key_node.tag}>"
            line = key_node.start_mark.line + 1
            if key in keys:
                raise SpaceError(f"{source}:{line}: key {key!r} appears twice in the same mapping")
            keys.add(key)
            lines[path + (key,)] = line
            _collect_lines(value_node, path + (key,), lines, source, seen)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _collect_lines(item, path + (index,), lines, source, seen)
