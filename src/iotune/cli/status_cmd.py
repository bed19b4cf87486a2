"""``iotune status``: a study's queue, controller, workers and Slurm job, from the store; ``--follow`` to watch.

Everything comes from the store (and ``squeue`` for the job, where Slurm's
clients are), so any machine that reaches the store can watch a campaign,
whether or not its controller still runs.
"""

from __future__ import annotations

import time
from datetime import datetime, timezone

import typer

from iotune.cli.common import StoreProgress
from iotune.cli.options import DB, FORMAT
from iotune.cli.terminal import Terminal, check_format

STATES = ("PENDING", "RUNNING", "COMPLETE", "FAILED", "INVALID")


def _age(stamp: str | None) -> float | None:
    """Seconds since an ISO 8601 UTC time, or None."""
    if not stamp:
        return None
    try:
        return (datetime.now(timezone.utc) - datetime.fromisoformat(stamp)).total_seconds()
    except ValueError:
        return None


def snapshot(store, study: str, grace_s: float) -> dict:
    """The study's state as plain data: trial counts, controller, owners of running trials, Slurm job."""
    from iotune.owner import owner_is_dead, parse

    record = store.get_study(study)
    if record is None:
        from iotune.study import StudyError

        raise StudyError(f"no study named {study!r} in {store!r}")
    counts = store.queue_counts(record.id)
    controller = None
    if record.controller:
        age = _age(record.controller_at)
        alive = not owner_is_dead(record.controller) and age is not None and age < grace_s
        controller = {"owner": record.controller, "renewed_seconds_ago": age, "alive": alive}
    workers = []
    for owner, beat in sorted(store.running_owners(record.id).items()):
        age = _age(beat)
        workers.append({"owner": owner, "host": getattr(parse(owner), "host", None), "heartbeat_seconds_ago": age,
                        "live": not owner_is_dead(owner) and age is not None and age < grace_s})
    return {"study": record.name, "store": repr(store), "counts": {state: counts.get(state, 0) for state in STATES},
            "controller": controller, "workers": workers, "slurm": _slurm(record.settings.get("executor"))}


def _slurm(executor: dict | None) -> dict | None:
    if not executor or executor.get("kind") != "slurm":
        return None
    from iotune.study.slurm import SlurmError, active, task_states

    out = dict(executor)
    try:
        states = task_states(str(executor["job"]))
    except SlurmError as error:
        out["tasks"], out["error"] = None, str(error)
        return out
    out["tasks"] = {task: {"state": state, "nodes": nodes} for task, (state, nodes) in sorted(states.items())}
    out["active"] = len(active(states))
    return out


def describe(data: dict) -> list[str]:
    """The snapshot as lines for a terminal."""
    counts = data["counts"]
    total = sum(counts.values())
    lines = [f"study {data['study']} in {data['store']}: {total} trials: "
             + ", ".join(f"{state} {counts[state]}" for state in STATES)]
    controller = data["controller"]
    if controller is None:
        lines.append("controller: none (nobody is proposing configurations)")
    else:
        age = controller["renewed_seconds_ago"]
        when = "never renewed" if age is None else f"lease renewed {age:.1f} s ago"
        lines.append(f"controller: {controller['owner']}, {when}" + ("" if controller["alive"] else " (gone)"))
    slurm = data["slurm"]
    if slurm is not None:
        head = f"Slurm job {slurm['job']} ({slurm.get('workers')} workers, submitted {slurm.get('submitted_at')})"
        if slurm.get("tasks") is None:
            lines.append(f"{head}: {slurm.get('error')}")
        elif not slurm["tasks"]:
            lines.append(f"{head}: no longer known to Slurm (ended)")
        else:
            by_state: dict[str, list[str]] = {}
            for task in slurm["tasks"].values():
                by_state.setdefault(task["state"], []).append(task["nodes"])
            parts = [f"{state} {len(nodes)}" + (f" on {', '.join(sorted(set(n for n in nodes if n)))}"
                                                 if any(nodes) and state == "RUNNING" else "")
                     for state, nodes in sorted(by_state.items())]
            lines.append(f"{head}: " + "; ".join(parts))
    return lines


def status(study: str = typer.Option(..., "--study", "-s", help="The study to show."), db: str = DB,
           follow: bool = typer.Option(False, "--follow", help="Show a progress bar until the campaign ends "
                                       "(Ctrl-C stops watching; the campaign goes on)."),
           fmt: str = FORMAT,
           grace: float = typer.Option(None, "--grace", min=1, help="Seconds without a heartbeat after which a "
                                       "worker or the controller counts as gone (default 120)."),
           every: float = typer.Option(2.0, "--every", min=0.1, help="With --follow: seconds between looks.")) -> None:
    """A study's queue counts, controller, live workers and their heartbeats, and its Slurm job."""
    from iotune.store import open_reader
    from iotune.study.worker import GRACE_S

    check_format(fmt)
    grace = grace or GRACE_S
    terminal = Terminal()
    with open_reader(db) as store:
        data = snapshot(store, study, grace)
        if fmt == "json":
            import json
            import sys

            sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")
        else:
            for line in describe(data):
                terminal.info(line)
            rows = [[w["owner"], w["host"], None if w["heartbeat_seconds_ago"] is None
                     else round(w["heartbeat_seconds_ago"], 1), w["live"]] for w in data["workers"]]
            if rows or fmt == "csv":
                terminal.emit(["owner", "host", "heartbeat_s_ago", "live"], rows, fmt=fmt,
                              title="workers holding trials")
            else:
                terminal.info("workers holding trials: none")
        if follow:
            _follow(store, study, grace, every, terminal)


def _still_going(data: dict, counts: dict) -> bool | str:
    """True while something will still change the study; else "" (it is done) or why it is stuck."""
    if data["controller"] is not None and data["controller"]["alive"]:
        return True
    if counts.get("RUNNING", 0):
        return True  # workers are on it (or their trials will be taken over)
    pending = counts.get("PENDING", 0)
    if not pending:
        return ""
    slurm = data["slurm"]
    if slurm is not None and slurm.get("active"):
        return True
    job = f" and Slurm job {slurm['job']} has ended" if slurm is not None else ""
    return (f"{pending} trials are queued but nothing runs them: no controller, no running worker{job}; continue "
            "with the campaign's command and --resume, or start workers with `iotune worker`")


def _follow(store, study: str, grace: float, every: float, terminal: Terminal) -> None:
    record = store.get_study(study)
    try:
        with terminal.progress(study, None) as bar:
            progress = StoreProgress(store, record.id, bar, whole_study=True, states=("COMPLETE", "FAILED", "INVALID"))
            while (why := _still_going(snapshot(store, study, grace), progress.update())) is True:
                time.sleep(every)
            if why:
                terminal.warn(why)
    except KeyboardInterrupt:
        terminal.info("stopped watching; the campaign goes on")
        return
    for line in describe(snapshot(store, study, grace)):
        terminal.info(line)
