"""``iotune screen``: rank a spec's parameters with a foldover Plackett-Burman design (paper 000, Sec. 4.1)."""

from __future__ import annotations

from pathlib import Path

import typer

from iotune.cli.bench_cmd import measure_spec
from iotune.cli.common import results_command
from iotune.cli.options import DB, FORMAT, MPIEXEC, RUNNER
from iotune.cli.terminal import Terminal, check_format

BAR_WIDTH = 30
_EIGHTHS = " ▏▎▍▌▋▊▉"


def bar(fraction: float, width: int = BAR_WIDTH) -> str:
    """A horizontal bar of unicode blocks, ``fraction`` (0..1) of ``width`` characters long."""
    eighths = round(max(0.0, min(1.0, fraction)) * width * 8)
    full, rest = divmod(eighths, 8)
    return "█" * full + (_EIGHTHS[rest] if rest else "")


PAPER_EFFECT = ("paper 000's effect (Zhai et al. 2015, ACIC, Sec. 4.1; --format json: effect_s) is the same contrast "
                "summed over the design's {runs} runs, i.e. {half} x high - low")


def show_screen(result, fmt: str, title: str, study=None) -> None:
    """The ranking as a table (a bar per |effect on time|) or JSON/CSV rows.

    With the screening's ``study`` (a StoredStudy or ScreeningStudy), each effect is also said per run (mean at
    high minus mean at low, seconds, with its 95 % interval), as a share of the mean run time and per phase, and
    the notes say where write and read (or time and bandwidth) effects disagree and which neighbours in the ranking
    are closer than their uncertainty.  Without it, only the per-run effect derived from the paper's sum.
    """
    terminal = Terminal()
    half = result.runs / 2
    rows = [{**r, "diff_s": r["effect_s"] / half} for r in result.rows()]
    method = None
    if study is not None:
        rows, method = _detailed(rows, study)
    if fmt != "table":
        columns = list(rows[0])
        terminal.emit(columns, [[r[c] for c in columns] for r in rows], fmt, records=rows)
        return
    largest = max(abs(r["diff_s"]) for r in rows) or 1.0
    table = []
    for r in rows:
        interval = "" if r.get("diff_half_width_s") is None else f" ± {r['diff_half_width_s']:.3g}"
        line = [r["rank"], r["name"], r["low"], r["high"], f"{r['diff_s']:+.4g}{interval}"]
        if method is not None:
            line += [_signed(r["share_pct"], "%"), _signed(r["write_diff_s"]), _signed(r["read_diff_s"]),
                     {True: "yes", False: "no", None: "?"}[r["matters"]]]
        table.append(line + [bar(abs(r["diff_s"]) / largest)])
    columns = ["rank", "parameter", "low", "high", "high - low (s)"]
    if method is not None:
        columns += ["% of run", "write (s)", "read (s)", "matters"]
    terminal.emit(columns + ["|effect on time|"], table, "table", title=title)
    terminal.info("high - low: mean I/O time of the runs at the high value minus at the low value, seconds per run "
                  "(positive: the high value is slower); " + PAPER_EFFECT.format(runs=result.runs, half=f"{half:g}"))
    if method is not None:
        _notes(rows, method, terminal)


def _signed(value, unit: str = "") -> str:
    return "" if value is None else f"{value:+.3g}{unit}"


def _detailed(rows: list[dict], study) -> tuple[list[dict], str]:
    """Rows with the per-run effect, its interval and verdict (iotune.report.effects), share and per phase."""
    from iotune.report.effects import effects_table
    from iotune.screening import ScreeningStudy
    from iotune.screening.normalised import load_normalised

    screened = ScreeningStudy.of(study)
    table, facts = effects_table(screened)
    by_name = {row[1]: row for row in table.rows}
    normalised = load_normalised(screened)
    out = []
    for r in rows:
        _, _, _, _, diff, half_width, diff_bw, _, matters, _ = by_name[r["name"]]
        n = normalised[r["name"]]
        out.append({**r, "diff_s": diff, "diff_half_width_s": half_width, "share_pct": 100.0 * n.share,
                    "write_diff_s": n.write_diff_s, "read_diff_s": n.read_diff_s,
                    "diff_bandwidth_mib_s": diff_bw, "phases_disagree": n.phases_disagree,
                    "time_bandwidth_disagree": bool(diff * diff_bw > 0),
                    "matters": None if matters == "unknown" else matters == "yes"})
    return out, facts["method"]


def _notes(rows: list[dict], method: str, terminal: Terminal) -> None:
    from iotune.screening.normalised import close_pairs

    if method == "none":
        terminal.warn("the effects have no uncertainty (one run per design row and fewer than 4 parameters): two "
                      "screenings of one spec may rank close effects differently; screen with --repeats 3")
    else:
        terminal.info(f"±: 95% interval, from {method}; matters: the interval excludes zero")
        pairs = close_pairs([r["name"] for r in rows], [r["diff_s"] for r in rows],
                            [r["diff_half_width_s"] for r in rows])
        if pairs:
            terminal.info("closer than their uncertainty, so another screening of this spec may rank them the "
                          "other way: " + "; ".join(f"{a} and {b}" for a, b in pairs))
    phases = [r["name"] for r in rows if r["phases_disagree"]]
    if phases:
        terminal.info(f"write and read effects disagree in sign for {', '.join(phases)}: the high value speeds one "
                      "phase and slows the other, and the time effect is their net")
    both = [r["name"] for r in rows if r["time_bandwidth_disagree"]]
    if both:
        terminal.info(f"time and bandwidth effects point the same way for {', '.join(both)} (slower and faster at "
                      "once): the high value moves more bytes, or a few slow runs weigh on the mean time")


def screen(spec: Path = typer.Argument(..., help="Campaign spec; an optional 'screening: levels:' section sets "
                                                 "[low, high] per parameter (default: first and last level)."),
           study: str = typer.Option(None, "--study", "-s", help="Screening study name (default: <spec name>-screen)."),
           repeats: int = typer.Option(None, "--repeats", "-r", help="Repeats per design row (overrides the spec)."),
           resume: bool = typer.Option(False, "--resume", help="Continue an existing screening study."),
           retry_failed: bool = typer.Option(False, "--retry-failed", help="With --resume, re-run FAILED trials."),
           system_only: bool = typer.Option(False, "--system-only", help="Screen only system parameters."),
           collect: int = typer.Option(None, "--collect", help="Then measure N PB-guided configurations (top-ranked "
                                                               "parameters first) into study <study>-collect."),
           scratch: Path = typer.Option(None, "--scratch", help="Directory the benchmark writes into."),
           runner: str = RUNNER,
           timeout: float = typer.Option(600.0, "--timeout", help="Seconds before a trial is killed and failed."),
           mpiexec: str = MPIEXEC, db: str = DB, fmt: str = FORMAT) -> None:
    """Screen a spec's parameters (foldover Plackett-Burman design of Zhai et al. 2015, paper 000; resumable) and
    print them ranked by effect."""
    from dataclasses import replace
    from functools import partial

    from iotune.screening import load_screen
    from iotune.spec import load_spec
    from iotune.store import Store
    from iotune.stored import StoredStudy

    check_format(fmt)
    loaded = load_spec(spec)
    if system_only:
        loaded = replace(loaded, screening=replace(loaded.screening, system_only=True))
    study = study or f"{loaded.name}-screen"
    measure = partial(measure_spec, db=db, resume=resume, scratch=scratch, runner=runner, timeout=timeout,
                      mpiexec=mpiexec, retry_failed=retry_failed)
    repeats = repeats or loaded.campaign.repeats
    screening = replace(loaded, campaign=replace(loaded.campaign, sampler="screening", budget=None, options={},
                                                 repeats=repeats))
    measure(screening, study)
    with Store(db) as store:
        result = load_screen(StoredStudy.open(store, study))
    if collect is not None:
        guided = replace(loaded, campaign=replace(loaded.campaign, sampler="pb-collect", budget=collect,
                                                  repeats=repeats, options={"ranking": result.ranking}))
        measure(guided, f"{study}-collect")
    with Store(db) as store:
        show_screen(result, fmt, f"screening {study}: {len(result.effects)} parameters, {result.runs} runs",
                    StoredStudy.open(store, study))
    if collect is not None:
        Terminal().info(f"PB-guided collection: {results_command(f'{study}-collect', db)}")
