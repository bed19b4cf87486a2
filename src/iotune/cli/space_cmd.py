"""``iotune space validate|show``: check and inspect a space spec without running anything."""

from __future__ import annotations

from pathlib import Path

import typer

from iotune.cli.options import FORMAT
from iotune.cli.terminal import Terminal, check_format
from iotune.units import format_size

app = typer.Typer(help="Check and inspect a configuration space spec.", no_args_is_help=True)


def _levels(parameter) -> str:
    if parameter.type == "size":
        return ", ".join(format_size(v) for v in parameter.levels)
    return ", ".join(str(v) for v in parameter.levels)


@app.command()
def validate(spec: Path = typer.Argument(..., help="Space or campaign spec (YAML).")) -> None:
    """Check a spec: types, levels, rules, and that the benchmark can apply every parameter."""
    from iotune.spec.mapping import benchmark_spec, check_runnable
    from iotune.campaign import load_campaign, plan

    space, settings = load_campaign(spec)
    check_runnable(space)
    configurations = plan(space, settings)
    for configuration in configurations:
        benchmark_spec(space, configuration, settings.benchmark)
    terminal = Terminal()
    trials = len(configurations) * settings.repeats
    terminal.success(f"{spec}: valid; {len(space.parameters)} parameters, {len(configurations)} configurations "
                     f"planned ({settings.design} design) x {settings.repeats} repeats = {trials} trials")


@app.command()
def show(spec: Path = typer.Argument(..., help="Space or campaign spec (YAML)."),
         configurations: bool = typer.Option(False, "--configurations", "-c",
                                             help="List the valid configurations instead of the parameters."),
         limit: int = typer.Option(50, help="At most this many configurations."),
         fmt: str = FORMAT) -> None:
    """Show the parameters of a spec, or its valid configurations."""
    from iotune.campaign import load_campaign

    check_format(fmt)
    space, _ = load_campaign(spec)
    terminal = Terminal()
    if configurations:
        names = [p.name for p in space.parameters]
        rows = []
        for index, configuration in enumerate(space.enumerate()):
            if index >= limit:
                break
            rows.append([configuration.key] + [configuration[n] for n in names])
        terminal.emit(["key"] + names, rows, fmt, title=f"{space.name}: first {len(rows)} valid configurations")
        return
    columns = ["name", "type", "role", "layer", "levels", "default", "when"]
    rows = [[p.name, p.type, p.role, p.layer, _levels(p),
             format_size(p.default) if p.type == "size" else p.default, p.when or ""] for p in space.parameters]
    terminal.emit(columns, rows, fmt, title=f"{space.name}: {space.size} combinations before rules")
    if fmt == "table" and space.constraints:
        terminal.info("rules: " + "; ".join(space.constraints))
