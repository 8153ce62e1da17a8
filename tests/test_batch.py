"""Batch runner: results in order, progress callbacks, cancellation, per-run errors."""

from __future__ import annotations

import threading

import pytest

from sopstudio.core.errors import SopStudioError
from sopstudio.engine.batch import is_unreachable, run_batch
from sopstudio.engine.agents import make_agent
from sopstudio.engine.compiled import CompiledSop
from sopstudio.engine.examples import listing_blocked
from sopstudio.engine.llm_client import LLMError, ModelUnreachable
from sopstudio.engine.scenarios import generate


def test_batch_runs_all_scenarios_in_order_with_progress():
    cs = CompiledSop(listing_blocked())
    scenarios = generate(cs)
    seen = []
    result = run_batch(cs, scenarios, workers=3, progress=lambda d, t, r: seen.append((d, t)))
    assert [r.scenario.id for r in result.results] == [s.id for s in scenarios]
    assert sorted(seen) == [(i, len(scenarios)) for i in range(1, len(scenarios) + 1)]
    assert result.metrics["overall"]["runs"] == len(scenarios)
    assert result.metrics["by_type"]["correct"]["ujcs"] == 1.0
    assert len(result.traces) == len(scenarios) and not result.cancelled


def test_cancellation_stops_remaining_runs():
    cs = CompiledSop(listing_blocked())
    scenarios = generate(cs)
    cancel, seen = threading.Event(), threading.Event()
    made = []

    def gated(compiled):
        # from the second run on, wait until the main thread has handled the first result and
        # cancelled: the single worker cannot race ahead through every scenario
        if made:
            assert seen.wait(30), "the progress callback never ran"
        made.append(compiled)
        return make_agent("scripted", compiled)

    def progress(done, total, result):
        cancel.set()
        seen.set()

    result = run_batch(cs, scenarios, gated, workers=1, progress=progress, cancel=cancel)
    assert result.cancelled
    ran = [r for r in result.results if r.trace is not None]
    assert 1 <= len(ran) < len(scenarios)
    assert all(r.error == "cancelled" for r in result.results if r.trace is None)


def test_agent_factory_errors_are_reported_per_run():
    cs = CompiledSop(listing_blocked())
    scenarios = generate(cs)[:2]

    def broken(compiled):
        raise RuntimeError("no model")

    result = run_batch(cs, scenarios, broken)
    assert [r.error for r in result.results] == ["RuntimeError: no model"] * 2
    assert result.metrics["overall"]["runs"] == 0


class Unreachable(SopStudioError):
    """Stands for llm_client.ModelUnreachable: a SopStudioError with code "connection"."""

    code = "connection"


def test_an_unreachable_model_stops_the_batch_early_without_metrics():
    cs = CompiledSop(listing_blocked())
    scenarios = generate(cs)
    started = []

    def dead(compiled):
        started.append(1)
        raise Unreachable("cannot reach the model at http://127.0.0.1:1/v1: refused")

    cancel = threading.Event()
    with pytest.raises(Unreachable, match="cannot reach the model"):
        run_batch(cs, scenarios, dead, workers=1, cancel=cancel)
    assert cancel.is_set() and len(started) == 1  # the other runs never started


def test_the_real_unreachable_error_is_recognised():
    assert is_unreachable(ModelUnreachable("http://x", "refused"))
    assert not is_unreachable(LLMError("slow", "timeout")) and not is_unreachable(OSError())
