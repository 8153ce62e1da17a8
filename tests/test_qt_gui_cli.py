"""`sopstudio gui`: --screenshot renders the window to a PNG (offscreen); bad files exit 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtGui import QImage

from sopstudio.core.io import save_sop

from test_qt_canvas import make_sop


def _run(args, tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen",
               SOPSTUDIO_SETTINGS=str(tmp_path / "settings.ini"))
    return subprocess.run([sys.executable, "-m", "sopstudio.cli", "gui", *args],
                          capture_output=True, text=True, env=env, timeout=120)


def test_screenshot_of_a_file_without_positions(tmp_path):
    sop = make_sop()
    for node in sop.nodes:
        node.position = None
    source = tmp_path / "plain.sop.json"
    save_sop(sop, source)
    out = tmp_path / "shot.png"
    result = _run([str(source), "--screenshot", str(out)], tmp_path)
    assert result.returncode == 0, result.stderr
    image = QImage(str(out))
    assert image.width() >= 1600 and image.height() >= 1000
    # The canvas is not blank: many distinct colours were drawn (nodes, text, edges).
    colours = {image.pixel(x, y) for x in range(300, 1100, 7) for y in range(100, 900, 7)}
    assert len(colours) > 20
    assert '"position"' not in source.read_text()


def test_unreadable_file_exits_2_with_one_line(tmp_path):
    bad = tmp_path / "bad.sop.json"
    bad.write_text("{not json")
    result = _run([str(bad), "--screenshot", str(tmp_path / "x.png")], tmp_path)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert not (tmp_path / "x.png").exists()
