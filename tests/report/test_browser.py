"""Reports opened in a real browser (headless Chromium): every figure renders, nothing errs, nothing is fetched."""

import pytest

from iotune.report import study_report, write_report
from iotune.stored import StoredStudy
from tests.cli.conftest import run_iotune
from tests.report.browser import chromium, inspect, problems
from tests.report.studies import ROOT

pytestmark = pytest.mark.requires_browser

PROFILE = ROOT / "tests" / "profile" / "fixtures" / "ior-hdf5-4procs.darshan"


@pytest.fixture(scope="module")
def browser():
    with chromium() as context:
        yield context


@pytest.mark.slow
def test_the_demo_study_renders_with_a_profile(browser, demo_store, tmp_path):
    store, study = demo_store
    report = study_report(StoredStudy.open(store, study), profile=PROFILE)
    written = write_report(report, tmp_path / "demo.html")
    expected = [f.name for f in report.figures]
    assert {"screening-effects", "model-quality", "recommendation-gain", "profile-volume"} <= set(expected)
    found = inspect(browser, written.path)
    assert problems(found, expected) == []
    assert found["title"] == f"iotune report: study {study}"


@pytest.mark.slow
def test_a_testbed_study_renders(browser, ground_truth_store, tmp_path):
    store, study = ground_truth_store
    report = study_report(StoredStudy.open(store, study))
    written = write_report(report, tmp_path / "gt.html")
    expected = [f.name for f in report.figures]
    assert {"per-configuration-write", "per-configuration-read", "variability-map"} <= set(expected)
    found = inspect(browser, written.path)
    assert problems(found, expected) == []
    assert found["images"]["count"] > 0  # large scatter plots embed their points as an image: it decoded


@pytest.mark.slow
def test_a_search_study_made_by_the_command_renders(browser, search_store, tmp_path):
    store, study = search_store
    output = tmp_path / "search.html"
    done = run_iotune("report", "--study", study, "--db", store.url, "-o", output, "--plots", tmp_path / "plots",
                      cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    found = inspect(browser, output)
    names = [f["name"] for f in found["figures"]]
    assert "search-progress" in names
    assert problems(found, names) == []
    assert sorted(p.name for p in (tmp_path / "plots").iterdir()) == sorted(
        f"{name}.{suffix}" for name in names for suffix in ("csv", "png", "svg"))


@pytest.mark.slow
def test_a_tuned_study_on_ext4_reads_right(browser, tuned_store, tmp_path):
    """Issue 32: in a tuned study's report the model-quality and spread figures had no axis numbers, the gain
    legend called measured workloads predicted, `lfs setstripe` was advised for ext4, the default's label was cut
    to "(def…" and a workload column showed "-" (the last three are checked on every page by ``problems``)."""
    store, study = tuned_store
    report = study_report(StoredStudy.open(store, study))
    written = write_report(report, tmp_path / "tuned.html")
    expected = [f.name for f in report.figures]
    assert {"model-quality", "variability-spread", "recommendation-gain"} <= set(expected)
    found = inspect(browser, written.path)
    assert problems(found, expected) == []
    numbered = {(axis["figure"], axis["axis"]): axis["labels"] for axis in found["axes"]}
    assert all(len(numbered[key]) >= 2 for key in numbered if key[0] in ("model-quality", "variability-spread"))
    assert "lfs setstripe" not in found["text"] and "ran on ext4, not Lustre" in found["text"]
    gain = next(f for f in report.figures if f.name == "recommendation-gain")
    assert "predicted" not in " ".join(map(str, gain.data.column("gain from")))
    legend = [t for t in found["svg_texts"]["recommendation-gain"] if "interval" in t]
    assert legend and not any("predicted" in t for t in legend), legend


@pytest.mark.slow
@pytest.mark.parametrize("width", [1280, 700])
def test_no_label_is_clipped_at_two_widths(browser, search_store, tmp_path, width):
    """The configuration labels of the per-configuration figures (Figure 2) ran off the left edge, the default
    configuration's among them, in every report."""
    store, study = search_store
    written = write_report(study_report(StoredStudy.open(store, study)), tmp_path / "search.html")
    found = inspect(browser, written.path, width=width)
    assert found["clipped"] == []
    assert problems(found, [f["name"] for f in found["figures"]]) == []


@pytest.mark.slow
def test_the_check_catches_a_page_that_needs_the_network(browser, search_store, tmp_path):
    """The browser check itself: an external image and a script error must be reported."""
    store, study = search_store
    report = study_report(StoredStudy.open(store, study))
    written = write_report(report, tmp_path / "bad.html")
    text = written.path.read_text()
    broken = text.replace("</main>", '<img src="http://192.0.2.1/logo.png"><svg><image href="data:image/png;'
                                      'base64,AAAA"/></svg></main>')
    written.path.write_text(broken)
    found = inspect(browser, written.path)
    issues = problems(found, [f.name for f in report.figures])
    assert any("console error" in issue for issue in issues)
    assert any("image did not load" in issue for issue in issues)
    clipped = text.replace("</main>", '<figure class="plot" data-figure="x"><svg width="50" height="20"><text x="-40" '
                                      'y="10">cut off</text></svg></figure></main>')
    written.path.write_text(clipped)
    assert "text outside its figure (clipped): x: cut off" in problems(inspect(browser, written.path), [])


@pytest.mark.slow
@pytest.mark.requires_mpi
def test_the_real_demo_renders(browser, tmp_path):
    """``iotune demo`` measured for real with MPI (one repeat), then reported and opened."""
    (tmp_path / "scratch").mkdir()
    done = run_iotune("demo", "--study", "d", "--repeats", "1", "--db", "s.db", "--scratch", "scratch",
                      cwd=tmp_path, timeout=900)
    assert done.returncode == 0, done.stderr
    done = run_iotune("report", "--study", "d", "--db", "s.db", "-o", "d.html", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    found = inspect(browser, tmp_path / "d.html")
    names = [f["name"] for f in found["figures"]]
    assert {"campaign-timeline", "per-configuration-write", "screening-effects", "recommendation-gain"} <= set(names)
    assert problems(found, names) == []
    text = (tmp_path / "d.html").read_text()
    assert "MPICH" in text and "Where it ran" in text  # the real platform record
