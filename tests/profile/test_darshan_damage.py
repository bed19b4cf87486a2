"""Damaged Darshan logs are never profiled without a word (issue 22, item 11).

Before: with 64 bytes flipped mid-file, 2 of the 7 vendored real logs were profiled silently, and with the flip
near the end of the file (a region's checksum) most were: darshan-util inflates a region only as far as the
records it returns.  Each log here has 64 bytes flipped at fixed offsets; the profile must be a one-line error or
carry a warning that says the log is damaged.
"""

from pathlib import Path

import pytest

from iotune.profile import WorkloadError, from_darshan
from iotune.profile.darshan_header import parse_header
from iotune.profile.darshan_regions import damaged_regions

LOGS = Path(__file__).parent / "fixtures"
REAL = ("dlio-python3", "empty", "imbalanced-io", "ior-hdf5-4procs", "ior-pnetcdf-4procs", "ior-posix-16procs",
        "mpi-io-test-4procs-darshan-3.4.0")
# Where the 64 bytes are flipped, as a fraction of the file (1.0: its last 64 bytes).
WHERE = (1 / 6, 1 / 3, 1 / 2, 2 / 3, 5 / 6, 1.0)
DAMAGE_SAID = ("damaged log", "pydarshan:", "partial data")


def flipped(data: bytes, fraction: float, width: int = 64) -> bytes:
    start = min(int(len(data) * fraction), len(data) - width)
    return data[:start] + bytes(b ^ 0xFF for b in data[start:start + width]) + data[start + width:]


@pytest.mark.parametrize("fraction", [pytest.param(f, marks=[] if f in (0.5, 1.0) else pytest.mark.slow)
                                      for f in WHERE], ids=[f"at-{f:.2f}" for f in WHERE])
@pytest.mark.parametrize("name", REAL)
def test_a_damaged_log_is_an_error_or_a_stated_warning(tmp_path, name, fraction):
    log = tmp_path / f"{name}.darshan"
    log.write_bytes(flipped((LOGS / f"{name}.darshan").read_bytes(), fraction))
    try:
        workload = from_darshan(log)
    except WorkloadError as error:
        assert "\n" not in str(error) and str(log) in str(error)
        return
    said = [w for w in workload.warnings if w.startswith(DAMAGE_SAID)]
    assert said, f"profiled without a word: {workload.warnings}"


@pytest.mark.parametrize("name", REAL)
def test_intact_logs_pass_the_region_check(name):
    data = (LOGS / f"{name}.darshan").read_bytes()
    header = parse_header(data)
    assert damaged_regions(data, header.compression, list(header.regions)) == []
    assert header.undefined_slots == ()


def test_a_region_read_silently_is_an_error_naming_it(tmp_path):
    """64 bytes flipped at byte 1350: the MPI-IO records' checksum (their region ends at 1366) and STDIO's start.
    pydarshan complains of STDIO only and returns the MPI-IO counters; iotune refuses them."""
    data = (LOGS / "mpi-io-test-4procs-darshan-3.4.0.darshan").read_bytes()
    assert ("MPI-IO", 1236, 130) in parse_header(data).regions
    log = tmp_path / "x.darshan"
    log.write_bytes(data[:1350] + bytes(b ^ 0xFF for b in data[1350:1414]) + data[1414:])
    with pytest.raises(WorkloadError) as error:
        from_darshan(log)
    assert "corrupt Darshan log" in str(error.value) and "MPI-IO data fails" in str(error.value)
