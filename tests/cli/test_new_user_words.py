"""The small wrong or unclear words a new user met (issue 19, "Also seen by the same new user")."""

import io
import sqlite3
from pathlib import Path

from rich.console import Console

from iotune.cli.app import main
from iotune.cli.terminal import Terminal

ROOT = Path(__file__).resolve().parents[2]
GROUND_TRUTH = ROOT / "data" / "ground_truth"
SPEC = GROUND_TRUTH / "testbed_ground_truth.yaml"
REPLAY = f"replay:{GROUND_TRUTH / 'testbed_ground_truth.csv'}"
WORKLOAD = "api=MPIIO,collective=true,file_per_process=false,transfer_size=256KiB"


def _studies(db: Path) -> list[str]:
    return [row[0] for row in sqlite3.connect(db).execute("select name from studies order by name")]


def _tune(tmp_path, db, workload=WORKLOAD, budget="3"):
    return main(["tune", str(SPEC), "--budget", budget, "--workload", workload, "--runner", REPLAY,
                 "--replay-scale", "0", "--db", str(db), "--scratch", str(tmp_path / "scratch")])


def test_a_second_tune_on_a_spent_budget_says_so_and_shows_the_result(tmp_path, capsys):
    db = tmp_path / "t.db"
    assert _tune(tmp_path, db) == 0
    first = capsys.readouterr().err
    assert "already spent" not in first
    assert _tune(tmp_path, db) == 0
    second = capsys.readouterr().err
    assert "the budget of 3 runs is already spent" in second and "nothing was run" in second
    assert "best: " in second and "run 1/3" not in second
    # a best measured once says so, instead of a spread of one run
    assert main(["results", "--db", str(db), "--study", "testbed-ground-truth"]) == 0
    table = capsys.readouterr().out
    assert "(one run)" in table and "± 0.000 (n=1)" not in table


def test_a_workload_value_that_is_not_a_level_names_its_study_by_the_value(tmp_path, capsys):
    db = tmp_path / "t.db"
    _tune(tmp_path, db, "api=MPIIO,collective=true,file_per_process=false,transfer_size=512KiB", budget="1")
    err = capsys.readouterr().err
    assert "testbed-ground-truth-transfer_size=512KiB" in _studies(db), err
    assert not [name for name in _studies(db) if name.startswith("testbed-ground-truth-") and "=" not in name]


def test_a_failed_attempt_leaves_no_empty_study(tmp_path, capsys):
    db = tmp_path / "t.db"
    assert _tune(tmp_path, db, "api=MPIIO") == 2  # the other workload parameters are missing
    assert "give the workload's" in capsys.readouterr().err
    assert not db.exists()


def test_tuning_a_command_in_a_study_of_no_store_leaves_no_store(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("IOTUNE_DB", raising=False)
    assert main(["tune", "--study", "nosuch", "--budget", "2", "--", "true"]) == 2
    assert "no store" in capsys.readouterr().err
    assert not (tmp_path / "iotune.db").exists()


def test_results_of_an_unknown_study_lists_the_studies(tmp_path, capsys):
    db = tmp_path / "t.db"
    assert _tune(tmp_path, db, budget="1") == 0
    capsys.readouterr()
    for extra in ([], ["--trials"]):
        assert main(["results", "--db", str(db), "--study", "nosuch", *extra]) == 2
        assert "studies: testbed-ground-truth" in capsys.readouterr().err


def test_decimal_sizes_are_said_and_size_hints_that_are_not_powers_of_two_are_warned_about(tmp_path, capsys):
    spec = tmp_path / "dec.yaml"
    spec.write_text("""
name: dec
parameters:
  - {name: transfer_size, type: size, levels: [1MiB, 2MiB], role: workload, layer: application}
  - {name: cb_buffer_size, type: size, levels: [4MB, 16MiB], role: system, layer: mpiio}
benchmark: {api: MPIIO, block_size: 4MiB, processes: 1}
""")
    assert main(["space", "show", str(spec)]) == 0
    shown = capsys.readouterr()
    assert "4MB = 4x10^6 bytes" in shown.out and "KB, MB, GB are powers of 1000" in shown.err
    assert main(["space", "validate", str(spec)]) == 0
    warned = capsys.readouterr().err
    assert "cb_buffer_size level 4000000B (4MB = 4x10^6 bytes) is not a power of two" in warned
    assert "16MiB" not in warned


def test_a_large_slowdown_is_a_ratio_not_thousands_of_percent():
    from iotune.cli.demo_cmd import _vs_fastest
    from iotune.demo import _slower

    assert _slower(24.74) == "24.7x slower" and _slower(1.12) == "12% slower"
    assert _vs_fastest(24.74) == "24.7x" and _vs_fastest(1.12) == "+12.0%"


def test_a_boolean_is_screened_from_false_to_true_whatever_the_spec_order():
    from iotune.screening.factors import screening_factors
    from iotune.space import Space

    space = Space.from_text("""
name: b
parameters:
  - {name: romio_no_indep_rw, type: boolean, levels: [true, false], role: system, layer: mpiio}
  - {name: cb_nodes, type: integer, levels: [4, 1], role: system, layer: mpiio}
""")
    factors = {f.name: (f.low, f.high) for f in screening_factors(space)}
    assert factors == {"romio_no_indep_rw": (False, True), "cb_nodes": (4, 1)}


def test_a_long_cell_is_wrapped_in_a_narrow_table_never_cut():
    hints = "*:romio_cb_write=enable:cb_buffer_size=16777216:romio_ds_write=disable:cb_nodes=2"
    terminal = Terminal()
    buffer = io.StringIO()
    terminal.out = Console(file=buffer, width=50, no_color=True)
    terminal.emit(["rank", "MPICH_MPIIO_HINTS"], [[1, hints]], "table")
    text = buffer.getvalue()
    assert "…" not in text and "..." not in text
    cells = "".join(line.split("│")[2].strip() for line in text.splitlines() if line.count("│") == 3)
    assert cells == hints
