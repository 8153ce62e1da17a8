"""`sopstudio gui FILE --simulate`: argument checks give one plain line before any window opens."""

from __future__ import annotations

from pathlib import Path

import pytest

from sopstudio.cli_main import run

SAMPLE = str(Path(__file__).resolve().parent.parent / "sample_sops" / "email_update.sop.json")


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
