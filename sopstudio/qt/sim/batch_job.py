"""Batch evaluation off the GUI thread: generate scenarios, run them, store the runs.

`BatchJob` runs on a plain Python thread and calls the engine's `run_batch` with a progress
callback that appends each finished run to `completed`; the dialog polls that list on a timer
and adds rows in chunks, so thousands of fast runs never flood the GUI's event loop. The
`progress` signal is throttled too (at most one every `PROGRESS_INTERVAL` seconds, plus the last).
Cancellation is the engine's cooperative `threading.Event`.

Scenarios are generated lazily (`stream_scenarios`) on a thread of their own while the runs of
those already generated go on: the first runs start at once, and Cancel stops generation at the
next scenario instead of after thousands of them.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

from PySide6.QtCore import QObject, Signal

log = logging.getLogger(__name__)

PROGRESS_INTERVAL = 0.1


@dataclass
class BatchRequest:
    """What to run: `source` is covering | all | sample | csv | rasa."""

    source: str = "covering"
    types: tuple = ("correct", "missing-parameter", "failing-function")
    sample: int = 50
    limit: int = 500
    seed: int = 0
    csv_text: str = ""
    mapping: dict = field(default_factory=dict)
    rasa_tests: dict = field(default_factory=dict)  # read by engine.scenarios_rasa
    agent: str = "scripted"
    compare: tuple = ()     # two or more agents: each runs the same scenarios (`agent` ignored)
    profile: object = None
    extras: dict = field(default_factory=dict)  # agent -> options beyond its endpoint
    workers: int = 4
    store_runs: bool = True


CHUNK = 200  # at most this many generated scenarios go to one engine batch


def stream_scenarios(compiled, request: BatchRequest) -> Iterator:
    """The request's scenarios one by one, generated as they are asked for."""
    from ...core.journeys import JourneyGraph
    from ...core.journeys_cover import cover
    from ...engine.scenarios import sample_journeys, scenarios_for
    if request.source == "csv":
        from ...engine.scenarios_csv import scenarios_from_csv
        yield from scenarios_from_csv(compiled, request.csv_text, request.mapping)
        return
    graph = JourneyGraph(compiled.sop)
    types = tuple(request.types)
    if request.source == "sample":  # the types take turns (as engine.sampled_scenarios)
        for number, journey in enumerate(sample_journeys(graph, request.sample, request.seed)):
            turn = types[number % len(types):] + types[:number % len(types)]
            found = scenarios_for(compiled, journey, number, turn)
            if found:
                yield found[0]
        return
    journeys = cover(graph) if request.source == "covering" \
        else graph.iter_journeys(request.limit)
    for number, journey in enumerate(journeys):
        yield from scenarios_for(compiled, journey, number, types)


def build_scenarios(compiled, request: BatchRequest) -> list:
    return list(stream_scenarios(compiled, request))


ScenarioSource = Callable[[object, BatchRequest], Iterable]


def agent_for(request: BatchRequest, agent: str | None = None):
    """A name (scripted) or a per-run factory for model agents (each run gets its own client)."""
    agent = agent or request.agent
    if agent == "scripted":
        return "scripted"
    from ...engine.agents import make_agent
    settings = request.profile.llm_settings()
    extras = request.extras.get(agent, {})
    return lambda compiled: make_agent(agent, compiled, settings=settings, **extras)


class BatchJob(QObject):
    progress = Signal(int, int)        # done, total
    stage = Signal(str)                # what the job is doing now
    finished = Signal(object)          # BatchResult (None when it failed)
    failed = Signal(str)

    def __init__(self, sop, request: BatchRequest, store_link=None,
                 scenario_source: ScenarioSource = stream_scenarios, parent=None):
        """`store_link` stores the runs (none: not stored); `scenario_source(compiled, request)`
        gives the scenarios to run (tests hand in a source whose runs wait for their signal)."""
        super().__init__(parent)
        self.sop, self.request, self.store_link = sop, request, store_link
        self.scenario_source = scenario_source
        self.cancel = threading.Event()
        self.thread: threading.Thread | None = None
        self.result = None
        self.run_ids: list[int] = []
        self.total = 0
        self.completed: list = []  # RunResults in the order they ended (read by the dialog)
        self.agent_of: dict[int, str] = {}  # id(RunResult) -> the agent that ran it
        self.comparison: dict[str, dict] = {}  # agent -> batch metrics, when comparing
        self.rasa_results: dict[str, dict] = {}  # agent -> Rasa test summary (source rasa)
        self._agent = request.agent
        self._last = 0.0

    def start(self) -> None:
        self.thread = threading.Thread(target=self._main, name="sim-batch", daemon=True)
        self.thread.start()

    def running(self) -> bool:
        return self.thread is not None and self.thread.is_alive()

    def stop(self, wait: float = 10.0) -> bool:
        """Cancel and wait for the worker to wind down; True when it has."""
        self.cancel.set()
        if self.thread is not None:
            self.thread.join(wait)
        return not self.running()

    def _main(self) -> None:
        try:
            self.result = self.execute()
        except Exception as problem:  # any failure ends the job: reported, logged
            log.exception("the batch failed")
            self.failed.emit(f"{problem.__class__.__name__}: {problem}")
            self.finished.emit(None)
            return
        self.finished.emit(self.result)

    def execute(self):
        """Generate, run and store; returns the engine's BatchResult (runs on the job thread)."""
        from ...engine.batch import run_batch
        from ...engine.compiled import CompiledSop
        self.stage.emit("Generating scenarios…")
        compiled = CompiledSop(self.sop)
        rasa = None
        if self.request.source == "rasa":  # applicable test cases run; the rest are listed
            from ...engine.scenarios_rasa import scenarios_from_rasa_tests
            rasa = scenarios_from_rasa_tests(compiled, self.request.rasa_tests)
            scenarios = list(rasa.scenarios)
        else:
            scenarios = self.scenario_source(compiled, self.request)
        if len(self.request.compare) > 1:
            result = self._run_compared(compiled, list(scenarios))
        elif isinstance(scenarios, list):  # all there already: one engine batch
            self.total = len(scenarios)
            self.stage.emit(f"Running {len(scenarios)} scenario(s)…")
            self.progress.emit(0, len(scenarios))
            result = run_batch(compiled, scenarios, agent_for(self.request),
                               workers=self.request.workers, progress=self._on_progress,
                               cancel=self.cancel)
        else:
            result = self._run_streamed(compiled, iter(scenarios))
        if rasa is not None:
            self._judge_rasa(rasa, result)
        all_ran = all(r.error != "cancelled" for r in result.results)
        if self.request.store_runs and (all_ran or not self.cancel.is_set()):
            self._store(result)
        return result

    def _run_streamed(self, compiled, scenarios: Iterator):
        """Generate on a thread of its own; run what is there in chunks meanwhile."""
        from ...engine.batch import BatchResult, run_batch
        from ...engine.metrics import summarize
        generated: list = []
        problems: list = []
        ended = threading.Event()
        threading.Thread(target=self._generate, args=(scenarios, generated, ended, problems),
                         name="sim-batch-generate", daemon=True).start()
        results: list = []
        offset = 0
        while not self.cancel.is_set():
            # A full chunk, or what is left once generation has ended (a small batch is one
            # chunk, as before); meanwhile wait a little for more, never spin.
            if not ended.is_set() and len(generated) - offset < CHUNK:
                ended.wait(0.05)
                continue
            if offset == len(generated):
                break
            chunk = generated[offset:offset + CHUNK]
            self.stage.emit(f"Running scenarios… ({len(generated)} generated so far)"
                            if not ended.is_set() else f"Running {len(generated)} scenario(s)…")
            base = offset
            offset += len(chunk)
            part = run_batch(compiled, chunk, agent_for(self.request),
                             workers=self.request.workers, cancel=self.cancel,
                             progress=lambda done, _total, r, base=base: self._on_progress(
                                 base + done, max(len(generated), base + done), r))
            results.extend(part.results)
        if problems:
            raise problems[0]
        rows = [r.metrics for r in results if r.metrics is not None and r.error is None]
        return BatchResult(results, summarize(rows), self.cancel.is_set())

    def _run_compared(self, compiled, scenarios: list):
        """Every agent of `compare` on the same scenarios, one after the other; the result holds
        all their runs (the coverage of them all) and `comparison` each agent's metrics."""
        from ...engine.batch import BatchResult, run_batch
        agents = list(self.request.compare)
        self.total = len(scenarios) * len(agents)
        results: list = []
        for number, agent in enumerate(agents):
            if self.cancel.is_set():
                break
            self._agent, base = agent, number * len(scenarios)
            self.stage.emit(f"Running {len(scenarios)} scenario(s) with {agent}…")
            part = run_batch(compiled, scenarios, agent_for(self.request, agent),
                             workers=self.request.workers, cancel=self.cancel,
                             progress=lambda done, _total, r, base=base: self._on_progress(
                                 base + done, self.total, r))
            self.comparison[agent] = part.metrics
            results.extend(part.results)
        first = self.comparison.get(agents[0], {})
        return BatchResult(results, first, self.cancel.is_set())

    def _judge_rasa(self, rasa, result) -> None:
        """Passed / failed / not applicable per test case, for each agent that ran them."""
        from ...engine.scenarios_rasa import summary
        rows: dict[str, list] = {}
        for item in result.results:
            agent = self.agent_of.get(id(item), self.request.agent)
            if item.metrics:
                rows.setdefault(agent, []).append(item.metrics)
        for agent in self.request.compare if len(self.request.compare) > 1 \
                else (self.request.agent,):
            self.rasa_results[agent] = summary(rasa, rows.get(agent, []))

    def _generate(self, scenarios: Iterator, into: list, ended: threading.Event,
                  problems: list) -> None:
        try:
            for scenario in scenarios:
                if self.cancel.is_set():
                    break
                into.append(scenario)  # list.append is atomic: the runner reads the list
                self.total = len(into)
        except Exception as problem:  # noqa: BLE001 - re-raised by the job once its runs end
            problems.append(problem)
            self.cancel.set()
        finally:
            close = getattr(scenarios, "close", None)
            if close is not None:  # a generator stops here, not whenever it is collected
                close()
            ended.set()

    def _on_progress(self, done: int, total: int, result) -> None:
        self.total = total
        self.agent_of[id(result)] = self._agent  # before the GUI can see the result
        self.completed.append(result)  # list.append is atomic: the GUI polls this list
        now = time.monotonic()
        if done == total or now - self._last >= PROGRESS_INTERVAL:
            self._last = now
            self.progress.emit(done, total)

    def _store(self, result) -> None:
        from .runs import save_gui_run
        store = self.store_link.store() if self.store_link is not None else None
        if store is None:
            return
        self.stage.emit("Storing runs…")
        model = self.request.profile.model if self.request.profile is not None else None
        for item in result.results:
            if item.trace is not None:
                self.run_ids.append(save_gui_run(store, self.sop, item.trace, item.scenario,
                                                 model, item.metrics))
