"""The runner registry is the only list of runners: found from the runner modules, read by every command.

Before: the names were typed again in five commands, the Slurm executor (``builtin``, ``ior``, ``replay:``)
and the Python API, and adding a runner meant editing the registry's dict and its factory's branches.
"""

from __future__ import annotations

import ast
import sys
import textwrap
from pathlib import Path

import pytest
import typer

import iotune.runners
from iotune.errors import IotuneError
from iotune.runners import registry
from iotune.runners.base import RunnerKind
from iotune.spec import load_spec

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "iotune"
SPEC = ROOT / "data" / "ground_truth" / "testbed_ground_truth.yaml"
TABLE = ROOT / "data" / "ground_truth" / "testbed_ground_truth.csv"


def _commands(command, path: str = ""):
    if hasattr(command, "commands"):  # a group (typer's own copy of click's)
        for name, sub in command.commands.items():
            yield from _commands(sub, f"{path} {name}".strip())
    else:
        yield path, command


def test_every_runner_module_is_registered_with_its_runners_name():
    modules = sorted(p.stem for p in (SRC / "runners").glob("*.py") if p.stem not in ("__init__", "base", "registry"))
    assert sorted(registry.KINDS) == modules  # one module per runner, each found
    from iotune.apply.command import RUNNER as COMMAND_MEASUREMENTS
    from iotune.bench.ior import IorRunner
    from iotune.bench.runner import BuiltinRunner
    from iotune.runners import CommandRunner, FunctionRunner, ReplayRunner

    made = {"builtin": BuiltinRunner, "ior": IorRunner, "replay": ReplayRunner, "command": CommandRunner,
            "function": FunctionRunner}
    assert set(made) == set(registry.KINDS)
    for name, cls in made.items():
        assert cls.name == name  # what a stored measurement's `runner` says is the registered name
    assert COMMAND_MEASUREMENTS == "command"
    assert list(registry.KINDS)[0] == registry.DEFAULT == "builtin"
    assert set(registry.RUNNERS) == {"builtin", "ior", "replay:TABLE.csv"}


def test_every_command_with_a_runner_option_lists_every_registered_runner():
    from iotune.cli.app import app

    found = {}
    for path, command in _commands(typer.main.get_command(app)):
        for param in command.params:
            if "--runner" in getattr(param, "opts", ()):
                found[path] = param
    assert {"bench", "tune", "screen", "worker", "testbed bench"} <= set(found)
    for path, param in found.items():
        assert param.default == registry.DEFAULT, path
        for usage in registry.RUNNERS:
            assert usage in param.help, (path, usage)


def _string_constants(path: Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.value


def test_no_runner_name_is_typed_outside_the_registry():
    """The commands, the Slurm executor, the worker and the API take runner names from the registry only."""
    allowed = {("cli/store_cmd.py", "ior")}  # `iotune store import-ior`'s default study name, not a runner
    names = [kind.name for kind in registry.KINDS.values() if kind.by_name]
    typed = []
    for path in [*sorted((SRC / "cli").glob("*.py")), *sorted((SRC / "study").glob("*.py")), SRC / "api.py"]:
        where = str(path.relative_to(SRC))
        for text in _string_constants(path):
            for name in names:
                if (text == name or text.startswith(f"{name}:")) and (where, text) not in allowed:
                    typed.append((where, text))
    assert typed == []


def test_a_runner_module_dropped_in_the_package_is_found(tmp_path, monkeypatch):
    """Adding a runner is its module: nothing else names it (here a module on the package's path)."""
    (tmp_path / "hdf5.py").write_text(textwrap.dedent('''
        from iotune.runners.base import RunnerKind

        class Hdf5Runner:
            name = "hdf5"

            def __init__(self, options):
                self.options = options

            def close(self):
                pass

        KIND = RunnerKind("hdf5", "an HDF5 benchmark", make=Hdf5Runner)
    '''))
    monkeypatch.setattr(iotune.runners, "__path__", [*iotune.runners.__path__, str(tmp_path)])
    try:
        kinds = registry._discover()
        assert list(kinds)[0] == "builtin" and "hdf5" in kinds
        monkeypatch.setattr(registry, "KINDS", kinds)
        monkeypatch.setattr(registry, "RUNNERS", {k.usage: k.help for k in kinds.values() if k.by_name})
        runner = registry.make_runner("hdf5", 5.0, "/usr/bin/mpiexec")
        assert runner.options.timeout == 5.0 and runner.options.mpiexec == "/usr/bin/mpiexec"
    finally:
        sys.modules.pop("iotune.runners.hdf5", None)


@pytest.mark.parametrize("text", ["nope", "replay", "replay:", "builtin:x", "command", "function"])
def test_an_unknown_runner_is_refused_with_the_registered_names(text):
    with pytest.raises(IotuneError) as error:
        registry.kind_of(text)
    assert str(error.value) == f"--runner must be one of builtin, ior, replay:TABLE.csv, got {text!r}"


def test_a_slurm_worker_gets_the_replay_table_as_an_absolute_path_checked_once(tmp_path, monkeypatch):
    spec = load_spec(SPEC)
    monkeypatch.chdir(TABLE.parent)
    assert registry.for_worker(spec, f"replay:{TABLE.name}") == f"replay:{TABLE}"
    assert registry.for_worker(spec, "ior") == "ior"
    (tmp_path / "other.csv").write_text("trial_uid,repeat\n")
    with pytest.raises(IotuneError, match="lacks the column"):
        registry.for_worker(spec, f"replay:{tmp_path / 'other.csv'}")


def test_a_kind_with_neither_factory_is_listed_but_not_picked_by_name():
    listed = RunnerKind("x", "made from what the user gives")
    assert not listed.by_name and listed.usage == "x"
    assert RunnerKind("y", "h", argument="A", open=lambda *a: None).usage == "y:A"
