"""Files written by `export` / `import -o`: the umask's mode for new files, the old mode kept
when overwriting, written through symlinks; an empty output path is a one-line error."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from sopstudio.cli_main import run
from sopstudio.formats import FormatError
from sopstudio.formats.output import write_atomic

SAMPLE = Path(__file__).resolve().parents[1] / "sample_sops" / "listing_blocked.sop.json"


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_new_file_gets_the_umask_mode(tmp_path, umask_022):
    out = tmp_path / "new.txt"
    write_atomic(out, "hello")
    assert out.read_text() == "hello" and _mode(out) == 0o644
    os.umask(0o077)
    other = tmp_path / "private.txt"
    write_atomic(other, b"x")
    assert _mode(other) == 0o600


def test_overwrite_keeps_the_existing_mode(tmp_path, umask_022):
    out = tmp_path / "shared.txt"
    out.write_text("old")
    out.chmod(0o664)
    write_atomic(out, "new")
    assert out.read_text() == "new" and _mode(out) == 0o664


def test_symlink_is_written_through(tmp_path, umask_022):
    target = tmp_path / "real.txt"
    target.write_text("old")
    target.chmod(0o640)
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    write_atomic(link, "new")
    assert link.is_symlink() and target.read_text() == "new" and _mode(target) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.txt", "real.txt"]


def test_dangling_symlink_creates_its_target(tmp_path, umask_022):
    link = tmp_path / "link.txt"
    link.symlink_to(tmp_path / "later.txt")
    write_atomic(link, "made")
    assert link.is_symlink() and (tmp_path / "later.txt").read_text() == "made"


def test_cli_export_mode_and_empty_output(tmp_path, capsys, umask_022):
    out = tmp_path / "listing.txt"
    assert run(["export", str(SAMPLE), "--to", "text", "-o", str(out)]) == 0
    assert _mode(out) == 0o644
    capsys.readouterr()
    assert run(["export", str(SAMPLE), "--to", "text", "-o", ""]) == 1
    err = capsys.readouterr().err
    assert "no output path" in err and len(err.strip().splitlines()) == 1
    assert run(["import", str(out), "-o", ""]) == 1
    assert "no output path" in capsys.readouterr().err
    with pytest.raises(FormatError, match="no output path"):
        write_atomic("", "x")
