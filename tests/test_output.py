"""Output paths (issue 32, item 1): a regular file atomically, anything else written through and never replaced."""

from __future__ import annotations

import os
import stat
import subprocess
import threading

import pytest

from iotune.cli.app import main
from iotune.output import OutputError, output_stream, write_output


def _leftovers(directory) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


def test_a_regular_file_is_replaced_whole_and_keeps_its_mode(tmp_path):
    path = tmp_path / "out.json"
    path.write_text("old")
    path.chmod(0o640)
    write_output(path, "new", "export")
    assert path.read_text() == "new" and stat.S_IMODE(path.stat().st_mode) == 0o640
    assert _leftovers(tmp_path) == []


def test_an_error_while_writing_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "out.json"
    path.write_text("old")
    with pytest.raises(RuntimeError), output_stream(path, "export") as stream:
        stream.write(b"half")
        raise RuntimeError("the writer failed")
    assert path.read_text() == "old" and _leftovers(tmp_path) == []


def test_a_symlink_is_followed_and_stays_a_symlink(tmp_path):
    target = tmp_path / "real.html"
    target.write_text("old")
    link = tmp_path / "link.html"
    link.symlink_to(target)
    write_output(link, "new", "report")
    assert link.is_symlink() and target.read_text() == "new"
    dangling = tmp_path / "dangling.html"
    dangling.symlink_to(tmp_path / "made.html")
    write_output(dangling, "made", "report")
    assert dangling.is_symlink() and (tmp_path / "made.html").read_text() == "made"


def test_a_fifo_is_written_through(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    write_output(fifo, "through the pipe", "export")
    reader.join(10)
    assert got == [b"through the pipe"] and stat.S_ISFIFO(fifo.stat().st_mode)


def test_where_it_cannot_be_written_is_one_line(tmp_path):
    (tmp_path / "afile").write_text("a file")
    with pytest.raises(OutputError, match="cannot write the export .*afile/o.json: Not a directory"):
        write_output(tmp_path / "afile" / "o.json", "x", "export")
    with pytest.raises(OutputError, match="is a directory"):
        write_output(tmp_path, "x", "export")
    assert (tmp_path / "afile").read_text() == "a file"


def test_export_into_a_file_s_child_is_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("IOTUNE_PLAIN", "1")
    from iotune.store import Store

    Store(tmp_path / "s.db").close()
    (tmp_path / "afile").write_text("a file")
    assert main(["export", str(tmp_path / "afile" / "o.json"), "--db", str(tmp_path / "s.db")]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: cannot write the export") and "Not a directory" in lines[0]


@pytest.mark.requires_root
def test_a_device_is_written_through_never_replaced(tmp_path):
    node = tmp_path / "null"
    os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # /dev/null's numbers
    write_output(node, "x" * 100_000, "export")
    assert stat.S_ISCHR(node.stat().st_mode) and node.stat().st_rdev == os.makedev(1, 3)
    full = tmp_path / "full"
    os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))  # /dev/full's
    with pytest.raises(OutputError, match="No space left on device"):
        write_output(full, "x" * 100_000, "export")
    assert stat.S_ISCHR(full.stat().st_mode)
    assert _leftovers(tmp_path) == []


@pytest.mark.requires_root
def test_export_to_a_full_device_stays_a_device(tmp_path, capsys, monkeypatch):
    """Made with mknod in tmp_path, not the machine's /dev/full: the old code turned the device into a file."""
    monkeypatch.setenv("IOTUNE_PLAIN", "1")
    from iotune.store import Store

    Store(tmp_path / "s.db").close()
    full = tmp_path / "full"
    os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    assert main(["export", str(full), "--format", "json", "--db", str(tmp_path / "s.db")]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "No space left on device" in lines[0]
    assert stat.S_ISCHR(full.stat().st_mode)


@pytest.fixture
def small_disk(tmp_path):
    """A 64 KiB tmpfs mounted at tmp_path/disk (root), unmounted after the test."""
    disk = tmp_path / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)], check=True)
    try:
        yield disk
    finally:
        subprocess.run(["umount", str(disk)], check=True)


@pytest.mark.requires_root
def test_a_full_disk_leaves_the_old_file_whole(small_disk):
    from iotune.report import write_report
    from iotune.report.build import Report

    path = small_disk / "report.html"
    path.write_text("the old report")
    report = Report("title", "x" * 200_000, [], {})
    with pytest.raises(OutputError, match="cannot write the report .*No space left on device"):
        write_report(report, path)
    assert path.read_text() == "the old report" and _leftovers(small_disk) == []


def test_a_dash_is_standard_output(capsys):
    write_output("-", "to stdout", "export")
    assert capsys.readouterr().out == "to stdout"


def test_a_dash_is_standard_output_when_it_is_a_text_stream(monkeypatch):
    import io
    import sys

    text = io.StringIO()
    monkeypatch.setattr(sys, "stdout", text)
    write_output("-", "to a text stream", "export")
    assert text.getvalue() == "to a text stream"
