"""Replay tables are read within a bound and checked where they enter; a replayed trial honours --timeout.

Before: /dev/zero grew to 15.6 GiB, a FIFO nobody writes blocked for ever, 0-second phases broke
`iotune results` (ZeroDivisionError), a 40-digit `bytes` broke the store (OverflowError, trials left
RUNNING), arbitrary phase names, rows repeated and a table cut mid-row were accepted, and a recorded
time of 10^6 s hung the trial.
"""

import os
import time

import pytest

from iotune.runners.replay import ReplayError, ReplayRunner, ReplayTable
from iotune.spec import CampaignSpec
from iotune.spec.mapping import benchmark_spec

SPEC = """\
name: bad
parameters:
  - {name: transfer_size, type: size, levels: [64KiB, 1MiB], role: workload, layer: application}
  - {name: romio_cb_write, type: categorical, levels: [enable, disable], role: system, layer: mpiio}
benchmark: {api: MPIIO, processes: 2, block_size: 1MiB}
"""
HEADER = "trial_uid,repeat,phase,bytes,seconds,open_seconds,transfer_seconds,close_seconds,ops," \
         "cfg.transfer_size,cfg.romio_cb_write\n"


@pytest.fixture
def spec():
    return CampaignSpec.from_text(SPEC)


def _row(uid="t1", phase="write", bytes_="2097152", seconds="0.5", size="65536", cb="enable"):
    return f"{uid},0,{phase},{bytes_},{seconds},0.01,0.4,0.01,32,{size},{cb}\n"


def _table(tmp_path, body, header=HEADER):
    path = tmp_path / "t.csv"
    path.write_text(header + body)
    return path


def test_a_sound_table_replays(tmp_path, spec):
    table = ReplayTable(spec, _table(tmp_path, _row() + _row(phase="read")))
    assert len(table) == 1


@pytest.mark.parametrize(("body", "fragment"), [
    (_row(seconds="0"), "seconds must be a finite number of seconds > 0"),
    (_row(bytes_="1" * 40), "bytes"),
    (_row(bytes_="9223372036854775808"), "bytes must be between 0 and"),
    (_row(phase="<script>"), "phase must be one of"),
    (_row() * 3, "phase write appears 3 times"),
    (_row() + _row(phase="read")[:-20], "fewer fields than the header"),
    (_row() + _row(phase="read")[:-3], "cut short"),
    (_row(seconds="nan"), "seconds"),
], ids=["zero-seconds", "40-digit-bytes", "int64-overflow", "phase-name", "repeated-rows", "cut-mid-row",
        "cut-in-last-field", "nan"])
def test_a_table_that_would_poison_later_commands_is_refused(tmp_path, spec, body, fragment):
    with pytest.raises(ReplayError, match=fragment):
        ReplayTable(spec, _table(tmp_path, body))


def test_devices_and_directories_are_refused(tmp_path, spec):
    with pytest.raises(ReplayError, match="is a device"):
        ReplayTable(spec, "/dev/zero")
    with pytest.raises(ReplayError, match="is a directory"):
        ReplayTable(spec, tmp_path)


def test_a_fifo_nobody_writes_is_refused_within_seconds(tmp_path, spec):
    fifo = tmp_path / "f.csv"
    os.mkfifo(fifo)
    started = time.monotonic()
    with pytest.raises(ReplayError, match="nothing writes"):
        ReplayTable(spec, fifo)
    assert time.monotonic() - started < 15


def test_a_pipe_is_read_within_the_bound(tmp_path, spec, monkeypatch):
    from iotune.runners import replay

    monkeypatch.setattr(replay, "MAX_TABLE_BYTES", 1000)
    read, write = os.pipe()
    if os.fork() == 0:  # a writer that would never stop: /dev/zero behind a pipe
        os.close(read)
        try:
            while True:
                os.write(write, b"x" * 4096)
        finally:
            os._exit(0)
    os.close(write)
    try:
        with pytest.raises(ReplayError, match="more than 1000 bytes"):
            ReplayTable(spec, f"/proc/self/fd/{read}")
    finally:
        os.close(read)
        os.wait()


def test_a_replayed_trial_honours_the_timeout(tmp_path, spec):
    table = ReplayTable(spec, _table(tmp_path, _row(seconds="1000000")))
    configuration = spec.space.configuration({"transfer_size": 65536, "romio_cb_write": "enable"})
    benchmark = benchmark_spec(spec.space, configuration, spec.benchmark)
    started = time.monotonic()
    measurement = ReplayRunner(table, scale=1.0, timeout=0.2).run(benchmark, tmp_path)
    assert time.monotonic() - started < 10
    assert measurement.status == "FAILED" and "--timeout of 0.2 s" in measurement.error
