"""Issue 12, item 8: `bench --resume` of a testbed study refuses, pointing at `testbed bench --resume`."""

from dataclasses import replace

from iotune.cli.app import main
from iotune.spec import load_spec
from iotune.store import Store
from iotune.study import Study


def test_bench_resume_of_a_testbed_study_refuses(workdir, capsys, monkeypatch):
    monkeypatch.setenv("IOTUNE_PLAIN", "1")
    db = str(workdir / "s.db")
    spec = load_spec(workdir / "tiny.yaml")
    with Store(db) as store:
        Study.create(store, "tiny", replace(spec, storage={"fs": "ext4", "write_mbps": 33.0, "size_mib": 512}))
    code = main(["bench", str(workdir / "tiny.yaml"), "--resume", "--db", db, "--scratch", str(workdir / "scratch")])
    err = capsys.readouterr().err
    assert code == 2
    (line,) = [line for line in err.splitlines() if line.strip()]
    assert line.startswith("error: ") and "iotune testbed bench SPEC --study tiny --resume" in line
    assert "--write-mbps 33.0" in line and "--fs ext4" in line
    with Store(db) as store:
        assert store.trials(study="tiny") == []
