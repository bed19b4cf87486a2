"""The page and the command: self-contained HTML, data links, figure files, one-line errors, lazy matplotlib."""

import base64
import re
import subprocess
import sys

import pytest

from iotune.profile.darshan_log import read_darshan
from iotune.report import profile_report, study_report, write_report
from iotune.report.darshan import files_table, request_table, volume_table
from iotune.store import Store
from iotune.stored import StoredStudy
from iotune.units import MIB
from iotune.workload import WorkloadError
from tests.cli.conftest import run_iotune
from tests.report.studies import ROOT

FIXTURES = ROOT / "tests" / "profile" / "fixtures"


def test_the_page_needs_nothing_from_elsewhere(search_store, tmp_path):
    store, study = search_store
    report = study_report(StoredStudy.open(store, study))
    written = write_report(report, tmp_path / "r.html")
    text = written.path.read_text()
    assert not re.search(r'(src|href)="(?!data:|#)', text)  # only data: URIs and in-page anchors
    assert "<script" not in text and "@import" not in text and "url(http" not in text
    assert "Content-Security-Policy" in text and "default-src 'none'" in text
    assert text.count("<svg") == len(report.figures) == written.figures
    for figure in report.figures:  # each figure's data link holds its table as CSV
        link = re.search(rf'download="{figure.name}.csv" href="data:text/csv;base64,([^"]+)"', text)
        assert base64.b64decode(link.group(1)).decode() == figure.data.to_csv()


@pytest.mark.slow
def test_ids_are_unique_across_inlined_figures(demo_store, tmp_path):
    store, study = demo_store
    text = write_report(study_report(StoredStudy.open(store, study)), tmp_path / "r.html").path.read_text()
    ids = re.findall(r'\bid="([^"]+)"', text)
    assert len(ids) == len(set(ids)) and len(ids) > 100
    for target in re.findall(r'url\(#([^)]+)\)|href="#([^"]+)"', text):
        assert (target[0] or target[1]) in ids


@pytest.mark.slow
def test_computing_a_report_does_not_load_matplotlib(search_store):
    store, study = search_store
    code = ("import sys; from iotune.store import Store; from iotune.stored import StoredStudy; from iotune.report import study_report\n"
            f"with Store({store.url!r}) as s: study_report(StoredStudy.open(s, {study!r}))\n"
            "print('matplotlib' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_a_darshan_profile_summarised_from_its_counters():
    data = read_darshan(FIXTURES / "ior-hdf5-4procs.darshan")
    volume = {row["layer"]: row for row in volume_table(data).records()}
    assert list(volume) == ["HDF5 datasets", "MPI-IO", "POSIX", "STDIO"]
    h5d = data["records"]["H5D"]
    assert volume["HDF5 datasets"]["written (MiB)"] == pytest.approx(sum(r.get("H5D_BYTES_WRITTEN", 0)
                                                                         for r in h5d) / MIB)
    assert volume["MPI-IO"]["write calls"] == sum(r.get("MPIIO_INDEP_WRITES", 0) + r.get("MPIIO_COLL_WRITES", 0)
                                                  for r in data["records"]["MPI-IO"])
    requests = request_table(data)
    posix = [r for r in requests.records() if r["layer"] == "POSIX"]
    assert sum(r["write calls"] for r in posix) == sum(r.get("POSIX_WRITES", 0) for r in data["records"]["POSIX"])
    files = files_table(data).records()
    assert files[0]["file"].endswith("testFile") and files[0]["rank"] == "every rank (shared)"


@pytest.mark.slow
def test_profile_report_from_the_command(tmp_path):
    done = run_iotune("report", "--profile", FIXTURES / "imbalanced-io.darshan", "-o", tmp_path / "p.html",
                      "--plots", tmp_path / "plots", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "p.html").read_text()
    assert "Volume by layer" in text and "Request sizes" in text and "/lus/theta-fs0/" in text
    assert sorted(p.suffix for p in (tmp_path / "plots").iterdir()) == [".csv", ".csv", ".png", ".png", ".svg",
                                                                         ".svg"]


def test_a_log_without_io_is_refused():
    with pytest.raises(WorkloadError, match="no instrumentation data"):
        profile_report(FIXTURES / "empty.darshan")


@pytest.mark.parametrize("args, message", [
    ((), "give --study S"),
    (("--study", "nope"), "no study named 'nope'"),
    (("--profile", "missing.darshan"), "no such file"),
    (("--profile", FIXTURES / "empty.darshan", "--workload", "transfer_size=1MiB"), "--workload needs --study"),
])
def test_bad_input_is_one_line(tmp_path, args, message):
    Store(tmp_path / "s.db").close()
    done = run_iotune("report", *args, "--db", tmp_path / "s.db", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and message in done.stderr and "Traceback" not in done.stderr


@pytest.mark.slow
def test_figures_are_deterministic_svg_and_png(search_store):
    from iotune.report.figures import render

    store, study = search_store
    for figure in study_report(StoredStudy.open(store, study)).figures:
        first, second = render(figure, png=True), render(figure, png=True)
        assert first == second
        assert first[0].startswith("<svg") and first[1].startswith(b"\x89PNG")


def test_a_store_password_never_reaches_the_page(search_store):
    from iotune.report.context import ReadCache

    class Elsewhere(ReadCache):
        url = "postgresql+psycopg://tuner:s3cret@db.example/iotune"

    store, study = search_store
    report = study_report(StoredStudy.open(Elsewhere(store), study))
    assert "s3cret" not in report.subtitle and "tuner:***@db.example" in report.subtitle
