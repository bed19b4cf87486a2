"""Exact strings of the four ways to apply hints, and the CLI's logic on a TrainedModel."""

import json

from iotune.apply.forms import ior_env, lfs_setstripe, mpich_mpiio_hints, romio_hints_file
from iotune.cli.recommend_cmd import run_recommend
from iotune.profile import workload_values_from
from iotune.spec.mapping import hints_of
from iotune.store import Store
from tests.cli.conftest import run_iotune
from tests.recommend.conftest import make_model, synthetic_time

HINTS = {"romio_cb_write": "enable", "cb_buffer_size": "4194304", "striping_factor": "8",
         "striping_unit": "1048576"}


def test_exact_strings():
    assert romio_hints_file(HINTS) == ("romio_cb_write enable\ncb_buffer_size 4194304\nstriping_factor 8\n"
                                       "striping_unit 1048576\n")
    assert mpich_mpiio_hints(HINTS) == "*:romio_cb_write=enable:cb_buffer_size=4194304:striping_factor=8:" \
                                       "striping_unit=1048576"
    assert ior_env({"romio_cb_write": "enable"}) == ["IOR_HINT__MPI__romio_cb_write=enable"]
    assert lfs_setstripe(HINTS, "/scratch/out") == "lfs setstripe -c 8 -S 1M /scratch/out"
    assert lfs_setstripe({"striping_unit": "65536"}) == "lfs setstripe -S 64K DIR"
    assert lfs_setstripe({"romio_cb_write": "enable"}) is None
    assert mpich_mpiio_hints({}) == ""


def test_hints_follow_mapping(hints_space):
    config = {"transfer_size": 1 << 20, "collective": True, "romio_cb_write": "disable", "cb_buffer_size": None,
              "striping_factor": 4}
    assert hints_of(hints_space, config) == {"romio_cb_write": "disable", "striping_factor": "4"}


def test_run_recommend_json_and_hints_dir(hints_space, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("IOTUNE_PLAIN", "1")
    model = make_model(hints_space, synthetic_time)
    workload, _ = workload_values_from("transfer_size=1MiB, collective=true")
    run_recommend(model, workload, top=2, hints_dir=tmp_path / "h", fmt="json")
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert [c["rank"] for c in data["candidates"]] == [1, 2]
    assert data["candidates"][0]["apply"]["mpich_mpiio_hints"] == \
        "*:romio_cb_write=enable:cb_buffer_size=16777216:striping_factor=8"
    assert (tmp_path / "h" / "rank1.hints").read_text() == \
        "romio_cb_write enable\ncb_buffer_size 16777216\nstriping_factor 8\n"
    assert f"ROMIO_HINTS={tmp_path / 'h' / 'rank1.hints'} mpiexec" in err


def test_cli_bad_input_is_one_line(tmp_path):
    for name in ("x.db", "iotune.db"):
        Store(tmp_path / name).close()
    result = run_iotune("recommend", "--study", "nope", "--workload", "transfer_size=1MiB", "--db", tmp_path / "x.db",
                        cwd=tmp_path)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert [line for line in result.stderr.splitlines() if line.startswith("error:")] == \
        [f"error: no study named 'nope' in sqlite:///{tmp_path / 'x.db'}"] or "nope" in result.stderr
    result = run_iotune("recommend", "--study", "s", "--workload", "junk", cwd=tmp_path)
    assert "error: --workload: 'junk' is not a workload: use name=value,name=value" in result.stderr
    assert "Traceback" not in result.stderr
    result = run_iotune("recommend", "--study", "s", "--workload", "a=1", cwd=tmp_path)
    assert "error: --workload: unknown workload field 'a'" in result.stderr
