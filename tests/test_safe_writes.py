"""Safe writes (issue 17, item 3): only regular files are replaced; streams are written to.

A FIFO read by a thread, /dev/null, `-` and /dev/stdout into a pipe must keep being what they
are; a regular file (also through a symlink) is still replaced atomically.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading

import pytest

from sopstudio.cli_main import run as cli
from sopstudio.core import atomic
from sopstudio.core.io import save_sop
from sopstudio.engine.examples import listing_blocked


@pytest.fixture
def sop_file(tmp_path):
    path = tmp_path / "lb.sop.json"
    save_sop(listing_blocked(), path)
    return str(path)


def _read_fifo(path, into: list, done: threading.Event) -> None:
    with open(path, "rb") as handle:
        into.append(handle.read())
    done.set()


def test_export_into_a_fifo_writes_to_it_and_keeps_it_a_fifo(tmp_path, sop_file):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got, done = [], threading.Event()
    threading.Thread(target=_read_fifo, args=(fifo, got, done), daemon=True).start()
    assert cli(["export", sop_file, "--to", "mermaid", "-o", str(fifo)]) == 0
    assert done.wait(30)
    assert got[0].startswith(b"flowchart") and stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lb.sop.json", "pipe"]


def test_dev_null_is_written_to_not_replaced(sop_file):
    before = os.stat("/dev/null")
    assert cli(["export", sop_file, "--to", "dot", "-o", "/dev/null"]) == 0
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino
    assert atomic.is_stream("/dev/null")


def test_dash_writes_text_to_stdout(capsys, sop_file):
    assert cli(["export", sop_file, "--to", "mermaid", "-o", "-"]) == 0
    out = capsys.readouterr()
    assert out.out.startswith("flowchart") and out.err == ""


def test_import_to_dash_prints_the_document_only(capsys, tmp_path, sop_file):
    assert cli(["import", sop_file, "-o", "-"]) == 0
    out = capsys.readouterr()
    assert out.out.lstrip().startswith("{") and "imported" in out.err


def test_dev_stdout_into_a_pipe_takes_text_and_binary(sop_file):
    for fmt, head in (("mermaid", b"flowchart"), ("png", b"\x89PNG")):
        done = subprocess.run([sys.executable, "-m", "sopstudio.cli", "export", sop_file,
                               "--to", fmt, "-o", "/dev/stdout"], capture_output=True,
                              timeout=120)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(head)


def test_regular_file_and_symlink_are_replaced_atomically(tmp_path):
    target = tmp_path / "real.txt"
    target.write_text("old")
    os.chmod(target, 0o640)
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    atomic.write_atomic(link, "new")
    assert link.is_symlink() and target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert not atomic.is_stream(target) and not atomic.is_stream(tmp_path / "absent.txt")


def test_a_directory_target_is_an_error_not_a_stream(tmp_path, sop_file, capsys):
    assert cli(["export", sop_file, "--to", "dot", "-o", str(tmp_path)]) != 0
    assert "cannot write" in capsys.readouterr().err and tmp_path.is_dir()
