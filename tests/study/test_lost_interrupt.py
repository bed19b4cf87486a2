"""A signal whose KeyboardInterrupt Python lost on the way still ends the campaign before its next trial.

A signal handler runs wherever the main thread is; raised inside ``__del__`` or a garbage-collector callback
the KeyboardInterrupt is dropped ("Exception ignored in ..."), raised inside ``__set_name__`` (a class made
during an import) it becomes a RuntimeError that a library's ``except Exception`` may eat.  Seen: ``iotune
bench`` Ctrl-C'd 0.5 s in ran all 180 of its trials and exited 0."""

import signal

import pytest

from iotune import shield
from iotune.cli import signals
from iotune.records import Measurement, PhaseResult
from iotune.spec import CampaignSpec
from iotune.store import Store
from iotune.study.measure import prepare

SPEC = CampaignSpec.from_text("""
name: lost
parameters:
  - {name: transfer_size, type: size, levels: [64KiB, 128KiB, 256KiB], role: workload, layer: application}
benchmark: {block_size: 256KiB}
campaign: {repeats: 3}
""")


class SwallowingRunner:
    """Each run succeeds; during the second a SIGINT arrives where its KeyboardInterrupt is lost."""

    name = "swallowing"

    def __init__(self):
        self.calls = 0

    def run(self, spec, scratch):
        self.calls += 1
        if self.calls == 2:
            try:
                signals.raise_interrupt(signal.SIGINT, None)  # the handler, as the signal would run it
            except KeyboardInterrupt:
                pass  # dropped, as inside __del__
        return Measurement("COMPLETE", [PhaseResult("write", spec.aggregate_bytes, 1.0, 0, 1.0, 0, 1)],
                           wall_seconds=1.0)

    def close(self):
        pass


def test_a_lost_interrupt_ends_the_campaign_before_its_next_trial(tmp_path):
    runner = SwallowingRunner()
    with Store(tmp_path / "db.sqlite") as store, signals.interrupts():
        campaign = prepare(store, SPEC, "lost", runner, tmp_path, platform={"hostname": "test"})
        try:
            report = campaign.run()
        finally:
            campaign.worker.close()
        assert report.interrupted and runner.calls == 2 and signals.caught()
        assert report.completed == 2  # the run the signal came in is kept; none after it


def test_check_raises_only_for_a_signal_after_the_mark_and_outside_a_shielded_section():
    mark = shield.taken()
    shield.check(mark)
    with pytest.raises(KeyboardInterrupt):
        shield.interrupt()
    with shield.shielded():
        shield.check(mark)  # inside a section the interrupt waits for the section's end
    with pytest.raises(KeyboardInterrupt):
        shield.check(mark)
    shield.check(shield.taken())


def test_an_interrupt_wrapped_by_the_interpreter_is_an_interrupt():
    with signals.interrupts():
        try:
            signals.raise_interrupt(signal.SIGINT, None)
        except KeyboardInterrupt as interrupt:
            wrapped = RuntimeError("Error calling __set_name__ on 'cached_property' instance")
            wrapped.__cause__ = interrupt
        assert signals.wraps_interrupt(wrapped) and not signals.wraps_interrupt(RuntimeError("a bug"))


def test_a_lost_interrupt_ends_the_wait_for_workers_elsewhere(tmp_path):
    """A controller with no worker here (Slurm workers run the trials) waits in a poll loop: a lost interrupt
    ends that wait at its next poll, not after every queued trial is done."""
    calls = []

    def on_wait():
        calls.append(1)
        if len(calls) == 1:
            try:
                signals.raise_interrupt(signal.SIGINT, None)
            except KeyboardInterrupt:
                pass  # dropped, as inside __del__
        if len(calls) > 3:
            raise RuntimeError("still waiting after the interrupt")

    with Store(tmp_path / "db.sqlite") as store, signals.interrupts():
        campaign = prepare(store, SPEC, "waiting", None, tmp_path, platform={"hostname": "test"}, on_wait=on_wait,
                           poll_s=0.01)
        report = campaign.run()
    assert report.interrupted and len(calls) == 1
