"""The generated Darshan logs are current, deterministic, and pydarshan reads them back."""

import pytest

from . import make_logs
from .conftest import LOGS


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory):
    directory = tmp_path_factory.mktemp("logs")
    return {path.name: path for path in make_logs.main(directory)}


def test_committed_logs_are_what_make_logs_writes(regenerated):
    assert regenerated, "make_logs wrote nothing"
    for name, path in regenerated.items():
        assert (LOGS / name).read_bytes() == path.read_bytes(), f"{name} is stale: run tests/profile/make_logs.py"


@pytest.mark.parametrize("name, make", sorted({**make_logs.LOGS_341, **make_logs.LOGS_321}.items()))
def test_pydarshan_reads_back_every_record(name, make):
    import darshan

    log = make()
    # closed by the with, not by the garbage collector: pydarshan's __del__ calls into cffi, which can deadlock
    with darshan.DarshanReport(str(LOGS / f"{name}.darshan"), read_all=False) as report:
        assert report.metadata["job"]["nprocs"] == log.nprocs and report.metadata["exe"] == log.exe
        for module in sorted({r.module for r in log.records}):
            report.mod_read_all_records(module, dtype="dict", warnings=False)
            wanted = [(r.rank, r.name, {k: v for k, v in r.counters.items() if v}) for r in log.records
                      if r.module == module]
            got = [(rec["rank"], report.name_records[rec["id"]], {k: int(v) for k, v in rec["counters"].items() if v})
                   for rec in report.records[module]]
            assert sorted(got, key=lambda x: x[:2]) == sorted(wanted, key=lambda x: x[:2]), module
