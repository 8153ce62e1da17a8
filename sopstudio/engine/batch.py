"""Batch runs: many scenarios on a thread pool, with progress, cancellation and metrics.

Threads suit LLM agents (I/O-bound); each run has its own agent, user and tools, and the
compiled SOP is shared read-only. Results keep the scenarios' order whatever the finishing order.
`progress(done, total, result)` is called from worker threads (the GUI marshals it to Qt).
An unreachable model (`ModelUnreachable`) stops the whole batch early: the remaining runs are
cancelled and `run_batch` raises it, with no metrics (every run would fail the same way, and
scoring those failures as agent behaviour would be meaningless).
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any, Callable

from ..core.errors import SopStudioError
from .compiled import CompiledSop
from .metrics import run_metrics, summarize
from .runner import run_scenario
from .scenarios import Scenario
from .trace import Trace

log = logging.getLogger(__name__)


def is_unreachable(error: BaseException) -> bool:
    """An LLMError with code "connection" (llm_client.ModelUnreachable), recognised without
    importing llm_client (the offline engine never loads `openai`)."""
    return isinstance(error, SopStudioError) and getattr(error, "code", None) == "connection"


Progress = Callable[[int, int, "RunResult"], None]


@dataclass
class RunResult:
    scenario: Scenario
    trace: Trace | None
    metrics: dict | None
    error: str | None = None


@dataclass
class BatchResult:
    results: list[RunResult] = field(default_factory=list)
    metrics: dict = field(default_factory=dict)
    cancelled: bool = False

    @property
    def traces(self) -> list[Trace]:
        return [r.trace for r in self.results if r.trace is not None]


def run_batch(cs: CompiledSop, scenarios: list[Scenario], agent: Any = "scripted", *,
              workers: int = 4, progress: Progress | None = None,
              cancel: threading.Event | None = None, **options) -> BatchResult:
    """Run every scenario; `agent` is a name or a factory `compiled -> agent` (one per run)."""
    cancel = cancel or threading.Event()
    results: list[RunResult | None] = [None] * len(scenarios)
    fatal: list[Exception] = []

    def one(index: int) -> RunResult:
        scenario = scenarios[index]
        if cancel.is_set():
            return RunResult(scenario, None, None, "cancelled")
        try:
            chosen = agent(cs) if callable(agent) else agent
            trace = run_scenario(cs, scenario, chosen, cancel=cancel, **options)
        except Exception as error:
            if is_unreachable(error):  # ...but a dead endpoint sinks every run: stop now
                fatal.append(error)
                cancel.set()
            else:
                log.warning("scenario %s: the run failed: %s: %s", index + 1,
                            error.__class__.__name__, error)
            log.debug("run of scenario %s failed", index + 1, exc_info=True)
            return RunResult(scenario, None, None, f"{error.__class__.__name__}: {error}")
        return RunResult(scenario, trace, run_metrics(trace, scenario))

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = {pool.submit(one, i): i for i in range(len(scenarios))}
        for done, future in enumerate(as_completed(futures), 1):
            result = future.result()
            results[futures[future]] = result
            if progress is not None:
                progress(done, len(scenarios), result)
    if fatal:
        raise fatal[0]
    finished = [r for r in results if r is not None]
    rows = [r.metrics for r in finished if r.metrics is not None and r.error is None]
    return BatchResult(finished, summarize(rows), cancel.is_set())
