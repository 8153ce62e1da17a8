"""Store benchmark: prints the figures DESIGN §7 / issue 4 set targets for.

    python bench/store_bench.py [--keep DIR]

- time to save a version of a 1,000-node SOP (target < 50 ms)
- trace events written per second in batches (target >= 50,000/s)
- time to list 10,000 versions (target < 100 ms)
- database bytes per version over 100 successive small edits (zlib-compressed vs raw JSON)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sopstudio.core.model import SOP, Edge, Node, Tool
from sopstudio.store import open_store
from sopstudio.store.blobs import pack


def make_sop(sop_id: str, nodes: int) -> SOP:
    return SOP(
        id=sop_id, title=f"{nodes}-node SOP", start="n0",
        tools=[Tool(name=f"tool{i}", description=f"Tool number {i}",
                    parameters={"type": "object", "properties": {"id": {"type": "string"}},
                                "required": ["id"]}) for i in range(10)],
        nodes=[Node(id=f"n{i}", title=f"Step {i}", instructions=f"Do step {i} carefully.",
                    ask=["id"] if i % 3 == 0 else [], tools=[f"tool{i % 10}"],
                    position=(float(i % 40) * 180, float(i // 40) * 120)) for i in range(nodes)],
        edges=[Edge(id=f"e{i}", source=f"n{i}", target=f"n{i + 1}",
                    when=f"count > {i}" if i % 2 else None) for i in range(nodes - 1)])


def edit(sop: SOP, i: int) -> SOP:
    new = sop.model_copy(deep=True)
    new.nodes[i % len(new.nodes)].title = f"Edited step {i}"
    return new


def bench_save(store, repeats: int = 20) -> tuple[float, float]:
    sop = make_sop("big", 1000)
    store.history.record(sop)
    times, pack_times = [], []
    for i in range(repeats):
        sop = edit(sop, i)
        start = time.perf_counter()
        pack(sop)
        pack_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        store.history.record(sop, f"edit {i}")
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000, statistics.median(pack_times) * 1000


def bench_events(store, total: int = 200_000, batch: int = 1000) -> float:
    run_id = store.runs.save(sop_id="big", agent="scripted")
    events = [{"type": "tool_call", "node": f"n{k % 50}", "tool": "lookup",
               "arguments": {"id": k, "q": "order status"}, "text": None, "step": k}
              if k % 2 else {"type": "say", "node": f"n{k % 50}", "text": f"Message number {k}"}
              for k in range(batch)]
    start = time.perf_counter()
    for _ in range(total // batch):
        store.runs.add_events(run_id, events)
    return total / (time.perf_counter() - start)


def bench_list(store, count: int = 10_000) -> float:
    sop = make_sop("many", 5)
    with store.tx.write():  # setup only: one transaction for the 10,000 saves
        for i in range(count):
            store.history.record(sop.model_copy(update={"title": f"title {i}"}), f"save {i}")
    times = []
    for _ in range(5):
        start = time.perf_counter()
        listed = store.history.versions("many")
        times.append(time.perf_counter() - start)
    assert len(listed) == count
    return statistics.median(times) * 1000


def bench_bytes(path: Path, edits: int = 100) -> tuple[float, float, float]:
    """(file bytes per version, compressed document bytes, raw JSON bytes) for 100 small edits
    of a 30-node SOP."""
    with open_store(path) as store:
        sop = make_sop("small", 30)
        store.history.record(sop)
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        before = path.stat().st_size
        packed, raw = 0, 0
        for i in range(edits):
            sop = edit(sop, i)
            content = pack(sop)
            packed, raw = packed + len(content.document), raw + content.size
            store.history.record(sop, f"edit {i}")
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        after = path.stat().st_size
    return (after - before) / edits, packed / edits, raw / edits


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", help="write the databases into this folder")
    args = parser.parse_args()
    folder = Path(args.keep or tempfile.mkdtemp(prefix="sopstudio-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    with open_store(folder / "bench.sqlite") as store:
        save_ms, pack_ms = bench_save(store)
        events_per_s = bench_events(store)
        list_ms = bench_list(store)
    file_bytes, packed, raw = bench_bytes(folder / "bytes.sqlite")
    print(f"save a version of a 1,000-node SOP: {save_ms:.1f} ms median "
          f"(of which serialise+hash+compress {pack_ms:.1f} ms)   target < 50 ms")
    print(f"trace events written in batches of 1,000: {events_per_s:,.0f} events/s"
          "   target >= 50,000/s")
    print(f"list 10,000 versions: {list_ms:.1f} ms median   target < 100 ms")
    print(f"database bytes per version, 100 small edits of a 30-node SOP: {file_bytes:,.0f} B "
          f"(document {packed:,.0f} B zlib vs {raw:,.0f} B raw JSON, {raw / packed:.1f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
