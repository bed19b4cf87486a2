"""The kernel's pure parts: IOR layout, verify pattern, cache-mode choice, IOR-style aggregation."""

import numpy as np
import pytest

from iotune.bench.kernel import fill_pattern, rank_file, resolve_cache_mode, summarise, transfer_offsets
from iotune.records import BenchmarkSpec


def test_shared_file_offsets_follow_ior_layout():
    spec = BenchmarkSpec(processes=2, block_size=4, transfer_size=2, segment_count=2)
    assert transfer_offsets(spec, 0) == [0, 2, 8, 10]
    assert transfer_offsets(spec, 1) == [4, 6, 12, 14]
    covered = sorted(o for r in range(2) for o in transfer_offsets(spec, r))
    assert covered == list(range(0, spec.aggregate_bytes, spec.transfer_size))


def test_file_per_process_offsets_and_names(tmp_path):
    spec = BenchmarkSpec(processes=3, block_size=8, transfer_size=4, segment_count=2, file_per_process=True)
    assert transfer_offsets(spec, 2) == [0, 4, 8, 12]
    assert rank_file(tmp_path, spec, 2).name == "testFile.00000002"
    assert rank_file(tmp_path, BenchmarkSpec(), 1).name == "testFile"


def test_pattern_depends_on_offset_and_rank_and_handles_odd_sizes():
    a, b, c = (np.empty(20, dtype=np.uint8) for _ in range(3))
    fill_pattern(a, 4096, 0)
    fill_pattern(b, 4096, 0)
    fill_pattern(c, 4104, 0)
    assert np.array_equal(a, b)
    assert np.array_equal(a[8:], c[:12])
    fill_pattern(c, 4096, 1)
    assert not np.array_equal(a, c)


@pytest.mark.parametrize(
    ("requested", "spec", "expected"),
    [
        ("o_direct", BenchmarkSpec(api="POSIX", transfer_size=4096, block_size=8192), "o_direct"),
        ("o_direct", BenchmarkSpec(api="POSIX", transfer_size=1000, block_size=2000), "fadvise_dontneed"),
        ("o_direct", BenchmarkSpec(api="MPIIO"), "fadvise_dontneed"),
        ("page_cache", BenchmarkSpec(), "page_cache"),
    ],
)
def test_cache_mode_falls_back_when_o_direct_cannot_work(requested, spec, expected):
    assert resolve_cache_mode(requested, spec, has_read=True) == expected


def test_cache_mode_is_none_without_read_and_rejects_unknown():
    assert resolve_cache_mode("auto", BenchmarkSpec(), has_read=False) == "none"
    with pytest.raises(ValueError, match="cache mode"):
        resolve_cache_mode("bogus", BenchmarkSpec(), has_read=True)


def test_summarise_takes_spans_over_ranks_as_ior():
    spec = BenchmarkSpec(processes=2, block_size=1024, transfer_size=512)

    def record(rank, times, hints=None):
        keys = ("open_start", "open_end", "transfer_end", "close_end")
        phase = dict(zip(keys, times), phase="write", bytes=1024, ops=2, verify_errors=None)
        return {"rank": rank, "phases": [phase], "hints": hints, "cache_mode": "none"}

    out = summarise(spec, [record(0, (0.0, 0.1, 0.5, 0.6), {"a": "1"}), record(1, (0.05, 0.2, 0.4, 0.9))])
    phase = out["phases"][0]
    assert phase["bytes"] == 2048 and phase["ops"] == 4
    assert phase["seconds"] == pytest.approx(0.9)
    assert phase["open_seconds"] == pytest.approx(0.2)
    assert phase["transfer_seconds"] == pytest.approx(0.4)
    assert phase["close_seconds"] == pytest.approx(0.5)
    assert out["hints_in_effect"] == {"a": "1"}


class _OneRank:
    """Just enough of an MPI communicator for one POSIX rank in this process."""

    def Get_rank(self):
        return 0

    def Barrier(self):
        pass


@pytest.mark.parametrize("direct", [False, True])
def test_verify_counts_each_corrupted_transfer_once(tmp_path, direct):
    from iotune.bench.kernel import _Phase

    spec = BenchmarkSpec(api="POSIX", processes=1, block_size=4 * 4096, transfer_size=4096, verify=True)
    phase = _Phase(_OneRank(), spec, tmp_path, direct=direct)
    try:
        written = phase.run("write", None)
        assert written["bytes"] == spec.aggregate_bytes and written["ops"] == 4
        assert phase.run("read", None)["verify_errors"] == 0
        with open(rank_file(tmp_path, spec, 0), "r+b") as handle:
            for offset in (4096 + 7, 3 * 4096 + 100, 3 * 4096 + 101):
                handle.seek(offset)
                handle.write(b"\xff")
        assert phase.run("read", None)["verify_errors"] == 2
    finally:
        phase.close_buffers()


def test_stamped_pages_are_all_different():
    import numpy as np

    from iotune.bench.kernel import PAGE, aligned_buffer, fill_pattern, stamp_pages

    region, buffer = aligned_buffer(64 * 1024)
    fill_pattern(buffer, 0, 0)
    words = buffer.view(np.uint64)
    pages = set()
    for offset in (0, 64 * 1024, 128 * 1024):
        stamp_pages(words, offset)
        pages.update(bytes(buffer[i : i + PAGE]) for i in range(0, len(buffer), PAGE))
    assert len(pages) == 3 * 16  # no two pages of the file carry the same bytes
    del words, buffer
    region.close()

