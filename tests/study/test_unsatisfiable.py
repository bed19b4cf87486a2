"""A space whose constraints no configuration meets is refused before anything is measured (issue 22, item 10).

Before: random sampling of a 10^30 space drew for 204 s (a million draws), then reported 0 trials and exit 0.
"""

import time

import pytest

from iotune.spec import CampaignSpec
from iotune.store import Store
from iotune.study.measure import prepare
from iotune.study.study import StudyError
from tests.badinput.cases import huge_space


@pytest.mark.parametrize(("levels", "parameters"), [(10, 30), (3, 2)], ids=["10^30", "small"])
def test_no_configuration_meets_the_constraints(tmp_path, levels, parameters):
    text = huge_space(levels, parameters, "p0 > 100") + "campaign: {sampler: random, budget: 5}\n"
    spec = CampaignSpec.from_text(text)
    started = time.monotonic()
    with Store(tmp_path / "s.db") as store:
        with pytest.raises(StudyError, match="no configuration meet"):
            prepare(store, spec, "s", None, tmp_path)
        assert store.list_studies() == []
    assert time.monotonic() - started < 60
