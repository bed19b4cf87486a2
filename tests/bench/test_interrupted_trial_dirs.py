"""A signal at the worst moment of a trial's directory handling leaves no trial directory in the scratch.

A SIGTERM raised between ``mkdtemp`` and the assignment of its result, or inside ``rmtree``, left
``iotune-trial-...`` behind (tests/cli/test_signals.py, 2 runs in 5 under load).
"""

import os
import tempfile
from pathlib import Path

import pytest
from tests.signal_at import signal_at

from iotune.bench.ownership import current_owner
from iotune.bench.runner import TRIAL_PREFIX, BuiltinRunner
from iotune.bench.world import WORLD_PREFIX
from iotune.cli import signals
from iotune.records import BenchmarkSpec

pytestmark = pytest.mark.requires_mpi

SPEC = BenchmarkSpec(api="POSIX", processes=1, block_size=64 * 1024, transfer_size=64 * 1024)


def _trial_dir_in(scratch):
    def where(frame):
        path = str(frame.f_locals.get("path", ""))
        return os.path.dirname(path) == str(scratch) and os.path.basename(path).startswith(TRIAL_PREFIX)
    return where


@pytest.mark.parametrize(("name", "event", "where"), [("make_trial_dir", "return", False), ("rmtree", "call", True)])
def test_a_signal_around_the_trial_directory_leaves_none(scratch, name, event, where):
    with BuiltinRunner(timeout=60) as runner:
        with signals.interrupts(), signal_at(name, event, where=_trial_dir_in(scratch) if where else None) as fired:
            with pytest.raises(KeyboardInterrupt):
                runner.run(SPEC, scratch)
        assert fired["sent"]
    assert os.listdir(scratch) == []


def test_a_signal_as_the_world_directory_is_made_leaves_none(scratch):
    mine = WORLD_PREFIX + current_owner().tag
    before = set(Path(tempfile.gettempdir()).glob(mine + "*"))
    with BuiltinRunner(timeout=60) as runner:
        with signals.interrupts(), signal_at("mkdtemp", "return",
                                             where=lambda f: str(f.f_locals.get("prefix")) == mine) as fired:
            with pytest.raises(KeyboardInterrupt):
                runner.run(SPEC, scratch)
        assert fired["sent"]
    assert set(Path(tempfile.gettempdir()).glob(mine + "*")) == before
    assert os.listdir(scratch) == []
