"""The stored study every reader takes: one refusal of a missing study, the space parsed once, the spec when used."""

import pytest

import iotune
from iotune.errors import StudyError
from iotune.spec import CampaignSpec
from iotune.store import Store
from iotune.stored import StoredStudy

SPEC = """\
name: tiny
parameters:
  - {name: transfer_size, type: size, levels: [64KiB, 1MiB], role: workload, layer: application}
  - {name: romio_cb_write, type: categorical, levels: [disable, enable], role: system, layer: mpiio}
benchmark: {api: MPIIO, processes: 2, block_size: 1MiB}
campaign: {repeats: 2}
"""


@pytest.fixture
def store(tmp_path):
    with Store(tmp_path / "s.db") as opened:
        yield opened


def test_a_missing_study_is_refused_once_naming_the_known_ones(store):
    StoredStudy.create(store, "tiny", CampaignSpec.from_text(SPEC, source="tiny.yaml"))
    with pytest.raises(StudyError, match=r"no study named 'tny' in .* \(studies: tiny\)"):
        StoredStudy.open(store, "tny")


def test_the_stored_space_is_parsed_once_and_the_spec_only_when_read(store):
    spec = CampaignSpec.from_text(SPEC, source="tiny.yaml")
    StoredStudy.create(store, "tiny", spec)
    opened = StoredStudy.open(store, "tiny")
    assert opened.space is opened.space is opened.record.space and opened.space == spec.space
    assert opened._spec is None  # learn, screening and variability need no spec
    assert opened.spec == spec and opened.spec is opened.spec
    assert opened.space is opened.record.space  # reading the spec does not swap the space for an equal copy


def test_trials_are_read_at_each_call_and_by_state(store):
    spec = CampaignSpec.from_text(SPEC, source="tiny.yaml")
    study = StoredStudy.create(store, "tiny", spec)
    assert study.trials() == []
    configuration = spec.space.configuration({"transfer_size": 65536, "romio_cb_write": "enable"})
    store.start_trial(study.id, configuration.to_dict(), configuration.key, configuration.workload_key, 0)
    assert [t.state for t in study.trials()] == ["RUNNING"] and study.trials("COMPLETE") == []


def test_the_library_face_wraps_a_stored_study(tmp_path):
    with iotune.create_study(CampaignSpec.from_text(SPEC, source="tiny.yaml"), storage=tmp_path / "s.db") as study:
        assert isinstance(study, iotune.Study) and isinstance(study.stored, StoredStudy)
        assert study.stored.name == study.name == "tiny"
