"""Hundreds of malformed inputs through the real CLI: one clear line each, nothing lost (issue 13, "Done when").

Every case of :mod:`tests.badinput.cases` runs in one child process
(:mod:`tests.badinput.driver`) under an address-space limit, through
``iotune.cli.app.main`` as the ``iotune`` command runs it.  Each must end with
its exit status, exactly one stderr line starting ``error: ``, no traceback and
no ``internal error``, within its timeout, and leave every file it was given
as it was.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.badinput.cases import CASES, EXPORT_MUTATIONS, IOR_MUTATIONS, export_text

REPO = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).with_name("driver.py")
CASE_TIMEOUT = 20
MEMORY = 4 << 30
PEAK = 512 << 20
IOR_FIXTURE = REPO / "tests/bench/fixtures/ior/a_posix_fpp_1m.json"


def _damage(data: bytes, how: str, *args) -> bytes:
    if how == "truncate":
        return data[:args[0]]
    if how == "zero":
        start, length = args
        return data[:start] + bytes(min(length, max(0, len(data) - start))) + data[start + length:]
    if how == "flip":
        return data[:args[0]] + bytes([data[args[0]] ^ 0xFF]) + data[args[0] + 1:]
    if how == "flip64":  # 64 bytes inverted from a fraction of the file on (1.0: its last 64)
        start = min(int(len(data) * args[0]), len(data) - 64)
        return data[:start] + bytes(b ^ 0xFF for b in data[start:start + 64]) + data[start + 64:]
    if how == "swap-head":
        return data[64:] + data[:64]
    if how == "random-pages":  # every page of an SQLite file but the first (its page size at offset 16)
        page = int.from_bytes(data[16:18], "big")
        return data[:page] + random.Random(32).randbytes(len(data) - page)
    raise ValueError(how)


def _quiet_main(argv: list[str]) -> int:
    from iotune.cli.app import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        code = main(argv)
    assert code == 0, err.getvalue()
    return code


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> dict:
    """The valid files the cases damage: a trained store, a foreign SQLite file, an export (JSON, CSV), IOR JSON."""
    from iotune.store import Store
    from iotune.store.exchange import export
    from tests.learn import synthetic

    root = tmp_path_factory.mktemp("sources")
    with Store(root / "trained.db") as store:
        synthetic.build_study(store, repeats=1)
        export(store, root / "export.json", study="synth")
        export(store, root / "export.csv", fmt="csv", study="synth")
        _measured_study(store)
    _quiet_main(["train", "-s", "tuned", "--predictor", "cart", "--db", str(root / "trained.db")])
    with sqlite3.connect(root / "foreign.db") as conn:
        conn.execute("CREATE TABLE people (name TEXT)")
        conn.execute("INSERT INTO people VALUES ('ada')")
    shutil.copy(root / "trained.db", root / "not-utf8.db")
    with contextlib.closing(sqlite3.connect(root / "not-utf8.db")) as conn:  # closed: its write-ahead log folded in
        conn.execute("UPDATE studies SET description = CAST(X'FFFE41' AS TEXT)")
        conn.commit()
    shutil.copy(root / "trained.db", root / "huge-json.db")
    with contextlib.closing(sqlite3.connect(root / "huge-json.db")) as conn:  # parsed, twenty times its 9 MiB
        conn.execute("UPDATE trials SET extra_json = ? WHERE id = (SELECT min(id) FROM trials)",
                     ("[{}" + ",{}" * (3 << 20) + "]",))
        conn.commit()
    _bomb_store(root / "trained.db", root / "bomb.db")
    document = json.loads((root / "export.json").read_text())
    document["studies"][0]["trials"] = document["studies"][0]["trials"][:3]
    rows = list(csv.DictReader(io.StringIO((root / "export.csv").read_text())))
    return {"root": root, "export": document, "csv": rows, "ior": json.loads(IOR_FIXTURE.read_text()),
            "setup": {name: (root / name).read_bytes() for name in ("trained.db", "foreign.db", "not-utf8.db",
                                                                    "bomb.db", "huge-json.db")}}


def _bomb_store(trained: Path, path: Path) -> None:
    """``trained`` with a model "bomb" of study "tuned" whose model.json inflates to 480 MiB (0.5 MiB stored)."""
    from dataclasses import asdict

    from iotune.learn.persist import FORMAT
    from iotune.store import Store
    from tests.learn.test_model_blob_bounds import _json_bomb

    shutil.copy(trained, path)
    with Store(path) as store:
        info, _, _ = store.model_blob("tuned")
        store.save_model(info.study_id, {**asdict(info), "name": "bomb"}, _json_bomb(480 << 20), FORMAT)


TUNED = """\
name: tuned
parameters:
  - {name: transfer_size, type: size, levels: [64KiB, 4MiB], role: workload, layer: application}
  - {name: romio_cb_write, type: categorical, levels: [automatic, enable, disable], role: system, layer: mpiio}
  - {name: cb_nodes, type: integer, levels: [1, 2, 4, 8], role: system, layer: mpiio}
"""


def _measured_study(store) -> None:
    """Study ``tuned``: every configuration once, its time a made-up function of the configuration."""
    from iotune.space import Space
    from tests.learn import synthetic

    space = Space.from_text(TUNED)
    study = store.create_study("tuned", space.to_yaml(), space.hash, {})
    for configuration in space.enumerate():
        config = configuration.to_dict()
        seconds = 1.0 + config["cb_nodes"] / 8 + (config["romio_cb_write"] == "disable") + config["transfer_size"] / 2**22
        trial = store.start_trial(study.id, config, configuration.key, configuration.workload_key, 0)
        store.finish_trial(trial, synthetic.measurement(seconds))


def _content(recipe, sources: dict) -> bytes:
    if isinstance(recipe, str):
        return recipe.encode("utf-8")
    if isinstance(recipe, bytes):
        return recipe
    kind, *args = recipe
    if kind == "fixture":
        return _damage((REPO / args[0]).read_bytes(), *args[1:])
    if kind == "setup":
        data = sources["setup"][args[0]]
        return _damage(data, *args[1:]) if len(args) > 1 else data
    if kind in ("export", "ior"):
        document = json.loads(json.dumps(sources[kind]))
        if args[0] is not None:
            (EXPORT_MUTATIONS if kind == "export" else IOR_MUTATIONS)[args[0]](document)
        return export_text(document).encode()
    if kind == "export-csv":
        rows = [dict(row) for row in sources["csv"]]
        rows[0]["seconds"] = "-5"
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        return out.getvalue().encode()
    if kind == "large-export":
        return _large_export(sources, *args)
    raise ValueError(kind)


LARGE = {"json": 17 << 20, "csv": 4 << 20}
"""Bytes of a large export: a JSON one above ``exchange.STREAM_ABOVE``, so it is read a trial at a time, as a 480 MiB
one is (flat rows always are)."""


def _large_export(sources: dict, fmt: str, damage: str) -> bytes:
    """The study's export grown to LARGE bytes (its trials repeated under new uids and repeats), then damaged."""
    if fmt == "json":
        document = json.loads(json.dumps(sources["export"]))
        study = document["studies"][0]
        model = study["trials"]
        count = LARGE[fmt] // len(json.dumps(model[0])) + 1
        study["trials"] = [dict(model[n % len(model)], uid=f"{n:032x}", repeat=n) for n in range(count)]
        if damage == "bad-last":
            study["trials"][-1] = json.loads(json.dumps(study["trials"][-1]))
            study["trials"][-1]["measurements"][0]["seconds"] = -1
        if damage == "trials-first":
            document["studies"][0] = {"trials": study.pop("trials"), **study}
        data = export_text(document).encode()
        return data[:len(data) * 3 // 4] if damage == "cut" else data + b" []" if damage == "trailing" else data
    rows = sources["csv"]
    count = LARGE[fmt] // len("\n".join(",".join(map(str, row.values())) for row in rows)) + 1
    grown = [{**row, "trial_uid": f"{n:08x}{row['trial_uid'][8:]}", "repeat": n,
              **({k: "" for k in row if k.startswith("study_")} if n else {})} for n in range(count) for row in rows]
    if damage == "bad-last":
        grown[-1] = {**grown[-1], "seconds": "-5"}
    if damage == "apart":  # the first trial's first row again, at the end
        grown.append(dict(grown[0]))
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(grown)
    return out.getvalue().encode()


def _digests(directory: Path) -> dict[str, str]:
    return {str(p.relative_to(directory)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(directory.rglob("*")) if p.is_file()}


FAST = [case for case in CASES if not case.slow]
SLOW = [case for case in CASES if case.slow]


def _run(cases, root: Path, sources: dict) -> dict:
    """Each case's result from one driver run, with the files of its directory that changed."""
    listing, before = [], {}
    for number, case in enumerate(cases):
        directory = root / f"{number:03d}-{case.id}"
        directory.mkdir()
        for name, recipe in case.files.items():
            (directory / name).parent.mkdir(parents=True, exist_ok=True)
            if recipe == ("fifo",):
                os.mkfifo(directory / name)
                continue
            (directory / name).write_bytes(_content(recipe, sources))
        before[case.id] = (directory, _digests(directory))
        listing.append({"id": case.id, "dir": str(directory), "argv": case.argv,
                        "timeout": case.timeout or CASE_TIMEOUT})
    (root / "cases.json").write_text(json.dumps(listing))
    env = {key: value for key, value in os.environ.items() if not key.startswith("IOTUNE_")}
    env.update(IOTUNE_PLAIN="1", IOTUNE_BADINPUT_MEMORY=str(MEMORY), PYTHONPATH=str(REPO / "src"))
    subprocess.run([sys.executable, str(DRIVER), str(root / "cases.json"), str(root / "results.json")],
                   cwd=root, env=env, timeout=CASE_TIMEOUT * 4 + 4 * len(cases) + sum(c.timeout for c in cases),
                   check=False)
    results = {r["id"]: r for r in json.loads((root / "results.json").read_text())}
    for case_id, (directory, digests) in before.items():
        if case_id in results:
            after = _digests(directory)
            results[case_id]["changed"] = [name for name, digest in digests.items() if after.get(name) != digest]
    return results


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory, sources) -> dict:
    return _run(FAST, tmp_path_factory.mktemp("cases"), sources)


@pytest.fixture(scope="module")
def slow_outcomes(tmp_path_factory, sources) -> dict:
    return _run(SLOW, tmp_path_factory.mktemp("slow-cases"), sources)


def test_there_are_enough_cases():
    kinds = {}
    for case in CASES:
        kinds[case.kind] = kinds.get(case.kind, 0) + 1
    assert len(CASES) >= 150 and len({c.id for c in CASES}) == len(CASES)
    assert set(kinds) == {"spec", "export", "db", "darshan", "ior", "workload", "option"}


@pytest.mark.slow
def test_memory_stayed_bounded(outcomes):
    """Every case in one process: its peak resident memory (issue 32: below 512 MiB, a 480 MiB model bomb
    among the cases), well under the address-space limit."""
    assert outcomes["__peak__"]["maxrss_kib"] * 1024 < PEAK, f"{outcomes['__peak__']['maxrss_kib'] >> 10} MiB"


def check(case, result) -> None:
    assert result is not None, "the driver died before this case (see the case before it)"
    assert not result["hung"], f"still running after {case.timeout or CASE_TIMEOUT} s"
    stderr = result["stderr"]
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    assert result["code"] == case.code, stderr
    assert result["changed"] == [], f"input files changed: {result['changed']}"
    # warnings about the input (an MPI-IO hint no library documents) and a long import's progress lines (plain
    # mode prints one every tenth) may come before the one error line
    lines = [line for line in stderr.splitlines()
             if line.strip() and not line.startswith(("warning: ", "importing "))]
    if case.code == 0:  # damage the format cannot notice: the normal output, and no error line
        assert result["stdout"].strip() and not any(line.startswith("error:") for line in lines), stderr
        assert case.fragment in stderr, stderr  # what the damage is said in, when the case names it
        return
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    assert case.fragment in lines[0]


@pytest.mark.slow
@pytest.mark.parametrize("case", FAST, ids=[c.id for c in FAST])
def test_bad_input_gives_one_clear_line(case, outcomes):
    check(case, outcomes.get(case.id))


@pytest.mark.slow
@pytest.mark.parametrize("case", SLOW, ids=[c.id for c in SLOW])
def test_damaged_darshan_log_gives_one_clear_line(case, slow_outcomes):
    check(case, slow_outcomes.get(case.id))
