"""``iotune run --output-dir``: the chosen configuration's layout goes on the application's output directory."""

from __future__ import annotations

import pytest

from iotune.apply.run import run_command
from iotune.fslayout import LayoutError
from iotune.records import Measurement, PhaseResult
from iotune.space import Space
from iotune.store import Store
from iotune.stored import StoredStudy

SPACE = """
name: layouts
parameters:
  - {name: stripe_count, type: integer, levels: [1, 4], role: system, layer: filesystem}
  - {name: stripe_unit, type: size, levels: [1MiB, 4MiB], role: system, layer: filesystem}
"""


@pytest.fixture
def study(tmp_path):
    """Study 'layouts' in which 4 stripes of 1 MiB measured fastest."""
    space = Space.from_text(SPACE)
    url = str(tmp_path / "iotune.db")
    with Store(url) as store:
        record = store.create_study("layouts", space.to_yaml(), space.hash, {})
        for values, seconds in (({"stripe_count": 4, "stripe_unit": 1 << 20}, 1.0), ({"stripe_count": 1}, 3.0)):
            config = space.configuration(values)
            trial = store.start_trial(record.id, config.to_dict(), config.key, config.workload_key, 0)
            store.finish_trial(trial, Measurement("COMPLETE", [PhaseResult("write", 1 << 20, seconds, 0, seconds, 0, 1)]))
    return url


def test_the_layout_is_set_on_the_output_directory_and_recorded(study, fake_lustre):
    data, log = fake_lustre
    out = data / "out"
    out.mkdir()
    with Store(study) as store:
        result = run_command(StoredStudy.open(store, "layouts"), ["true"], output_dir=out)
        run = store.trials(study="layouts-runs")[0]
    assert result.returncode == 0 and result.warnings == []
    assert log.read_text().splitlines()[0] == f"setstripe -c 4 -S 1048576 {out}"
    assert run.extra["layout_requested"] == {"stripe_count": "4", "stripe_unit": "1048576"}
    assert run.extra["layout_in_effect"] == {"stripe_count": "4", "stripe_unit": "1048576"}


def test_without_an_output_directory_the_run_says_the_layout_was_not_applied(study):
    with Store(study) as store:
        result = run_command(StoredStudy.open(store, "layouts"), ["true"])
    assert result.warnings and "was not applied: give --output-dir" in result.warnings[0]


def test_a_directory_without_layouts_is_refused_before_anything_runs(study, tmp_path):
    with Store(study) as store:
        with pytest.raises(LayoutError, match="has no file layouts"):
            run_command(StoredStudy.open(store, "layouts"), ["true"], output_dir=tmp_path)
        assert store.get_study("layouts-runs") is None  # nothing recorded
