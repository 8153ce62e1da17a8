"""Scenarios per second of a scripted batch of 1,000 scenarios: driven from the GUI's batch
worker (BatchJob, with throttled Qt progress signals and a live event loop) versus the same
batch from the engine directly (what `sopstudio bench` runs). Prints both and the overhead.

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/batch_bench.py [--n 1000] [--workers 4]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from PySide6.QtCore import QCoreApplication  # noqa: E402

from sopstudio.core.io import load_sop  # noqa: E402
from sopstudio.engine.batch import run_batch  # noqa: E402
from sopstudio.engine.compiled import CompiledSop  # noqa: E402
from sopstudio.qt.sim.batch_job import BatchJob, BatchRequest, build_scenarios  # noqa: E402


def engine_direct(sop, request: BatchRequest) -> tuple[float, int]:
    start = time.perf_counter()
    compiled = CompiledSop(sop)
    scenarios = build_scenarios(compiled, request)
    result = run_batch(compiled, scenarios, "scripted", workers=request.workers)
    return time.perf_counter() - start, len(result.results)


def gui_worker(app, sop, request: BatchRequest) -> tuple[float, int]:
    job = BatchJob(sop, request)
    updates = []
    job.progress.connect(lambda done, total: updates.append(done))
    start = time.perf_counter()
    job.start()
    while job.running() or job.result is None:
        app.processEvents()  # the GUI thread stays live, as in the application
        time.sleep(0.001)
    app.processEvents()
    elapsed = time.perf_counter() - start
    return elapsed, len(job.result.results)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000, help="scenarios (sampled journeys × types)")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--sop", default=str(ROOT / "sample_sops" / "listing_blocked.sop.json"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    app = QCoreApplication.instance() or QCoreApplication(sys.argv[:1])
    sop = load_sop(args.sop)
    # balanced sample of journeys, `correct` only, so exactly n scenarios are run
    request = BatchRequest(source="sample", sample=args.n, types=("correct",),
                           workers=args.workers, store_runs=False)
    engine_direct(sop, request)  # warm-up (imports, caches)
    best_engine = best_gui = float("inf")
    for _ in range(args.repeat):
        seconds, count = engine_direct(sop, request)
        best_engine = min(best_engine, seconds)
        seconds, gui_count = gui_worker(app, sop, request)
        best_gui = min(best_gui, seconds)
        assert count == gui_count == args.n, (count, gui_count)
    engine_rate, gui_rate = args.n / best_engine, args.n / best_gui
    overhead = (best_gui - best_engine) / best_engine * 100
    print(f"SOP: {Path(args.sop).name}, {args.n} scripted scenarios, {args.workers} workers, "
          f"best of {args.repeat}")
    print(f"engine directly : {engine_rate:8.1f} scenarios/s  ({best_engine:.3f} s)")
    print(f"GUI batch worker: {gui_rate:8.1f} scenarios/s  ({best_gui:.3f} s)")
    print(f"GUI overhead    : {overhead:+.1f} %  (target < 20 %)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
