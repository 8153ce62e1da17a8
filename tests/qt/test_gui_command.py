"""`sopstudio gui`: --screenshot renders the window to a PNG (offscreen); bad files exit 2;
--simulate argument checks give one plain line before any window opens."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from PySide6.QtGui import QImage

from sopstudio.cli_main import run
from sopstudio.core.io import save_sop

from qt_helpers import SAMPLES, make_sop

SAMPLE = str(SAMPLES / "email_update.sop.json")


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


# -- --simulate checks -------------------------------------------------------------------------
def gui_error(capsys, *extra) -> str:
    with pytest.raises(SystemExit) as stopped:
        run(["gui", SAMPLE, "--simulate", "--screenshot", "out.png", *extra])
    assert stopped.value.code == 2
    return capsys.readouterr().err


def gui_usage(capsys, *extra) -> str:
    assert run(["gui", SAMPLE, "--simulate", "--screenshot", "out.png", *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    return err


def test_unknown_scenario_is_refused_by_argparse(capsys):
    err = gui_error(capsys, "--scenario", "bogus")
    assert "invalid choice: 'bogus'" in err
    assert "missing-parameter" in err and "failing-function" in err


def test_journey_must_be_in_the_list(capsys):
    assert "--journey must be 0 or more" in gui_usage(capsys, "--journey", "-1")
    err = gui_usage(capsys, "--journey", "18")  # email_update has journeys 0..17
    assert "--journey 18 is out of range" in err and "0 to 17" in err


def test_steps_must_be_positive(capsys):
    assert "--steps must be 1 or more (got 0)" in gui_usage(capsys, "--steps", "0")
