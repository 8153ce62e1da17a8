"""Logging: warnings reach stderr in the CLI's one-line style; --verbose / SOPSTUDIO_LOG show debug
messages and tracebacks; a failed run inside a batch is logged, not swallowed."""

from __future__ import annotations

import io
import logging
import subprocess
import sys

import pytest

from sopstudio.cli_main import configure_logging, log_level


@pytest.fixture
def restore_logger():
    logger = logging.getLogger("sopstudio")
    level, handlers = logger.level, list(logger.handlers)
    yield logger
    logger.handlers[:] = handlers
    logger.setLevel(level)


def test_warnings_are_one_line_and_debug_is_hidden(restore_logger, monkeypatch):
    monkeypatch.delenv("SOPSTUDIO_LOG", raising=False)
    out = io.StringIO()
    configure_logging(stream=out)
    log = logging.getLogger("sopstudio.engine.batch")
    log.debug("not shown")
    try:
        raise ValueError("boom")
    except ValueError:
        log.warning("scenario %s: the run failed", 3, exc_info=True)
    assert out.getvalue() == "sopstudio: warning: scenario 3: the run failed\n"


def test_verbose_shows_debug_and_the_traceback(restore_logger):
    out = io.StringIO()
    configure_logging(verbose=True, stream=out)
    log = logging.getLogger("sopstudio.core.expr")
    try:
        raise ValueError("boom")
    except ValueError:
        log.debug("evaluating failed", exc_info=True)
    text = out.getvalue()
    assert text.startswith("sopstudio: debug: evaluating failed\nTraceback")
    assert "ValueError: boom" in text


def test_configuring_twice_keeps_one_handler(restore_logger):
    configure_logging(stream=io.StringIO())
    configure_logging(stream=io.StringIO())
    ours = [h for h in restore_logger.handlers if h.__class__.__name__ == "_OneLineHandler"]
    assert len(ours) == 1


@pytest.mark.parametrize("env, expected", [(None, logging.WARNING), ("debug", logging.DEBUG),
                                           ("INFO", logging.INFO), ("nonsense", logging.WARNING)])
def test_level_from_the_environment(env, expected):
    assert log_level(False, env) == expected
    assert log_level(True, env) == logging.DEBUG


def test_a_failed_run_in_a_batch_is_logged(caplog):
    from sopstudio.engine.batch import run_batch
    from sopstudio.engine.compiled import CompiledSop
    from sopstudio.engine.examples import listing_blocked
    from sopstudio.engine.scenarios import generate

    compiled = CompiledSop(listing_blocked())
    scenarios = generate(compiled)[:1]

    def broken_agent(_compiled):
        raise RuntimeError("agent exploded")

    with caplog.at_level(logging.DEBUG, logger="sopstudio"):
        result = run_batch(compiled, scenarios, broken_agent, workers=1)
    assert "agent exploded" in result.results[0].error
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings and "agent exploded" in warnings[0].getMessage()


def test_the_command_line_takes_verbose_before_or_after_the_command(tmp_path):
    for argv in (["--verbose", "validate", "missing.sop.json"],
                 ["validate", "missing.sop.json", "--verbose"]):
        done = subprocess.run([sys.executable, "-m", "sopstudio.cli", *argv], cwd=tmp_path,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 2
        assert "Traceback" not in done.stderr and "missing.sop.json" in done.stderr
