"""``iotune space validate|show``: check and inspect a space spec without running anything."""

from __future__ import annotations

from pathlib import Path

import typer

from iotune.cli.options import FORMAT
from iotune.cli.terminal import Terminal, check_format
from iotune.errors import SpaceError
from iotune.units import format_size

app = typer.Typer(help="Check and inspect a configuration space spec.", no_args_is_help=True)


def _levels(parameter) -> str:
    if parameter.type == "size":
        from iotune.spec.hint_names import decimal_size

        return ", ".join(format_size(v) + (f" ({decimal_size(v)})" if decimal_size(v) else "")
                         for v in parameter.levels)
    return ", ".join(str(v) for v in parameter.levels)


@app.command()
def validate(spec: Path = typer.Argument(..., help="Campaign spec (YAML): space, benchmark:, campaign:, screening:, "
                                                   "storage:."),
             allow_env: list[str] = typer.Option(None, "--allow-env", metavar="NAME",
                                                 help="Accept this environment variable although it is not on "
                                                      "iotune's safe list; also IOTUNE_ALLOW_ENV.")) -> None:
    """Check a whole spec: every key, types, levels, rules, the sampler, and that the benchmark can run it."""
    from iotune.samplers import DesignSampler, make_sampler
    from iotune.spec import load_spec
    from iotune.spec.environment import user_allowed
    from iotune.spec.mapping import benchmark_spec

    loaded = load_spec(spec)
    loaded.check_runnable(user_allowed(extra=allow_env or ()))
    settings = loaded.campaign
    sampler = make_sampler(settings.sampler, loaded.space, seed=settings.seed, budget=settings.budget,
                           options=settings.options, spec=loaded)
    from iotune.cli.common import check_runnable_configurations, warn_unknown_hints

    terminal = Terminal()
    warn_unknown_hints(loaded, terminal)
    check_runnable_configurations(loaded)
    if isinstance(sampler, DesignSampler):
        if not sampler.configurations:
            raise SpaceError(f"{spec}: sampler {settings.sampler} plans no configuration")
        for configuration in sampler.configurations:
            benchmark_spec(loaded.space, configuration, loaded.benchmark)
        count = len(sampler.configurations) if settings.budget is None else min(settings.budget,
                                                                                len(sampler.configurations))
        planned = f"{count} configurations planned"
    else:
        planned = f"up to {settings.budget} configurations" if settings.budget else "configurations"
        planned += " chosen one at a time"
    trials = f" = {count * settings.repeats} trials" if isinstance(sampler, DesignSampler) else ""
    terminal.success(f"{spec}: valid; {len(loaded.space.parameters)} parameters, {planned} (sampler "
                     f"{settings.sampler}) x {settings.repeats} repeats{trials}"
                     + ("; storage built on testbeds (root)" if loaded.uses_testbed else ""))


@app.command()
def show(spec: Path = typer.Argument(..., help="Space or campaign spec (YAML)."),
         configurations: bool = typer.Option(False, "--configurations", "-c",
                                             help="List the valid configurations instead of the parameters."),
         limit: int = typer.Option(50, help="At most this many configurations."),
         fmt: str = FORMAT) -> None:
    """Show the parameters of a spec, or its valid configurations."""
    from iotune.space.space import how_many
    from iotune.spec import load_spec

    check_format(fmt)
    space = load_spec(spec).space
    terminal = Terminal()
    if configurations:
        names = [p.name for p in space.parameters]
        rows: list[list] = []
        stopped = ""
        try:
            for configuration in space.enumerate():
                if len(rows) >= limit:
                    break
                rows.append([configuration.key] + [configuration[n] for n in names])
        except SpaceError as exc:  # a huge space whose valid configurations are rare
            if not rows:
                raise
            stopped = str(exc)
        terminal.emit(["key"] + names, rows, fmt, title=f"{space.name}: first {len(rows)} valid configurations "
                                                        f"of {how_many(space.size)} assignments")
        if stopped:
            terminal.warn(stopped)
        return
    columns = ["name", "type", "role", "layer", "levels", "default", "when"]
    rows = [[p.name, p.type, p.role, p.layer, _levels(p),
             format_size(p.default) if p.type == "size" else (str(p.default) if fmt == "table" else p.default),
             p.when or ""] for p in space.parameters]
    terminal.emit(columns, rows, fmt, title=f"{space.name}: {how_many(space.size)} combinations before rules")
    if fmt == "table" and space.constraints:
        terminal.info("rules: " + "; ".join(space.constraints))
    if fmt == "table" and any(p.type == "size" for p in space.parameters):
        terminal.info("sizes: KiB, MiB, GiB (and IOR's k, m, g) are powers of 1024; KB, MB, GB are powers of 1000 "
                      "(1MB = 1000000 bytes, 1MiB = 1m = 1048576 bytes)")
    if fmt == "table":
        terminal.info("default column: a parameter's `default:` key, or its first listed level when it has none; "
                      "results, recommend, tune and the report compare with the configuration of these defaults")
