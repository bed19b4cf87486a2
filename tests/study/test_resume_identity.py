"""Resuming a stored study: the same measurements resume (an integer's ``scale`` only changes how models
encode it), other levels refuse in one line naming what differs."""

from importlib.resources import files

import pytest

from iotune.spec import CampaignSpec
from iotune.store import Store
from iotune.stored import StoredStudy, StudyError

DEMO = files("iotune.data").joinpath("demo.yaml").read_text()
MARKER = "  - name: romio_cb_write"


def spec(entry: str) -> CampaignSpec:
    return CampaignSpec.from_text(DEMO.replace(MARKER, entry + MARKER), source="spec")


NODES = "  - {name: cb_nodes, type: integer, levels: [1, 2, 4], role: system, layer: mpiio%s}\n"


@pytest.fixture
def store(tmp_path):
    with Store(f"sqlite:///{tmp_path}/store.db") as opened:
        yield opened


def test_a_spec_that_adds_a_log2_scale_resumes_the_study_and_models_see_its_scale(store):
    StoredStudy.create(store, "s", spec(NODES % ""))
    resumed = StoredStudy.open_or_create(store, "s", spec(NODES % ", scale: log2"), resume=True)
    assert resumed.space.parameter("cb_nodes").scale == "log2"


def test_a_spec_with_other_levels_does_not_resume(store):
    StoredStudy.create(store, "s", spec(NODES % ""))
    with pytest.raises(StudyError, match=r"another spec \(space differ\)"):
        StoredStudy.open_or_create(store, "s", spec(NODES.replace("4]", "8]") % ""), resume=True)
