"""What a report shows is readable and says what is true (issue 32, item 7): log axes carry numbers however narrow
their range, the default's label keeps its mark, the gain figure's legend names what was measured, striping is
advised for the file system the study ran on, and no workload is shown as "-"."""

from types import SimpleNamespace

import pytest

from iotune.report import study_report
from iotune.report.figures import draw_gain, draw_predicted, draw_strip
from iotune.report.recommendation import apply_blocks
from iotune.report.tables import Figure, Table
from iotune.space import Space
from iotune.stored import StoredStudy

pytest.importorskip("matplotlib")


def _tick_texts(ax, axis: str) -> list[str]:
    """The tick labels drawn on ``axis`` inside its view, major and minor."""
    ax.figure.canvas.draw()
    scale = ax.xaxis if axis == "x" else ax.yaxis
    low, high = sorted(scale.get_view_interval())
    labels = scale.get_majorticklabels() + scale.get_minorticklabels()
    return [t.get_text() for t in labels if t.get_text() and t.get_visible()
            and low <= (t.get_position()[0] if axis == "x" else t.get_position()[1]) <= high]


@pytest.mark.parametrize("low, high", [(1.1, 1.9), (0.9, 4.0), (0.02, 0.05), (0.3, 300.0)])
def test_a_log_axis_shows_at_least_two_numbers(low, high):
    """Times between 0.9 s and 4 s on a log axis showed the single number 1 (between 1.1 and 1.9: none)."""
    data = Table(("measured", "predicted", "model"), [(low, low, "m"), (high, high, "m"), ((low * high) ** 0.5,
                                                                                          low, "m")])
    fig = draw_predicted(Figure("model-quality", "predicted", "t", data, "",
                                {"x": "measured", "y": "predicted", "panel": "model"}))
    for ax in fig.axes:
        for axis in "xy":
            texts = _tick_texts(ax, axis)
            assert len(texts) >= 2, (low, high, axis, texts)
            assert all(float(t.replace("−", "-")) > 0 for t in texts)


def test_the_default_label_keeps_its_mark_when_shortened():
    long = " ".join(f"parameter_{i}=value_{i}" for i in range(6))
    data = Table(("workload", "configuration", "default configuration", "I/O time (s)"),
                 [("w", long, True, 1.0), ("w", "short=1", False, 2.0)])
    fig = draw_strip(Figure("per-configuration-write", "strip", "t", data, "",
                            {"group": "workload", "label": "configuration", "default": "default configuration",
                             "values": ["I/O time (s)"]}))
    fig.canvas.draw()
    (label,) = [t.get_text() for t in fig.axes[0].get_yticklabels() if "parameter_0" in t.get_text()]
    assert label.endswith(" (default)") and "…" in label, label


def _gain_legend(bases: list[str]) -> list[str]:
    rows = [(f"w{i}", 1.5, 1.2 if basis == "measured" else None, 1.8 if basis == "measured" else None, basis)
            for i, basis in enumerate(bases)]
    data = Table(("workload", "gain", "low", "high", "from"), rows)
    fig = draw_gain(Figure("recommendation-gain", "gain", "t", data, "",
                           {"label": "workload", "value": "gain", "low": "low", "high": "high", "basis": "from"}))
    return [t.get_text() for legend in fig.legends for t in legend.get_texts()]


def test_the_gain_legend_names_what_was_measured():
    measured_once = "measured, too few runs for an interval"
    assert not any("predicted" in text for text in _gain_legend(["measured", measured_once]))
    assert any(measured_once in text for text in _gain_legend([measured_once]))
    assert any("predicted" in text for text in _gain_legend(["measured", "predicted, no interval"]))


STRIPED = Space.from_text("""\
name: striped
parameters:
  - {name: striping_factor, type: integer, levels: [1, 4], role: system, layer: mpiio}
  - {name: striping_unit, type: size, levels: [1MiB, 4MiB], role: system, layer: mpiio}
""")


@pytest.mark.parametrize("file_systems, lfs", [(["lustre"], True), (["ext4"], False), ([], True),
                                               (["ext4", "lustre"], True)])
def test_lfs_setstripe_is_advised_for_lustre_only(file_systems, lfs):
    config = {"striping_factor": 4, "striping_unit": 4 << 20}
    candidate = SimpleNamespace(hints={"striping_factor": "4", "striping_unit": str(4 << 20)},
                                configuration=config, env={})
    blocks = apply_blocks(STRIPED, candidate, file_systems)
    text = "\n".join(f"{title}\n{body}" for title, body in blocks)
    assert ("lfs setstripe" in text) == lfs, text
    if file_systems == ["ext4"]:
        assert "ext4" in text


@pytest.mark.parametrize("which", [pytest.param("tuned_store", marks=pytest.mark.slow), "search_store"])
def test_no_workload_column_shows_a_dash(which, request):
    """A study of one workload (the search study) showed "-" as its workload."""
    store, study = request.getfixturevalue(which)
    report = study_report(StoredStudy.open(store, study))
    tables = [table for section in report.sections for table in section.tables if "workload" in table.columns]
    assert tables
    for table in tables:
        assert "-" not in table.column("workload"), table.title
