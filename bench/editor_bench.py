"""Editor benchmark (offscreen): open + render SOPs of 100, 1,000 and 3,000 nodes, one
auto-layout, and the mean frame time while moving 50 selected nodes in the 1,000-node graph.

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python bench/editor_bench.py
Targets (issue 5): the 1,000-node SOP opens and renders in under 1 s; moving stays < 16 ms/frame.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
_TMP = tempfile.mkdtemp(prefix="sopstudio-bench-")
os.environ["SOPSTUDIO_SETTINGS"] = str(Path(_TMP) / "settings.ini")  # never the user's own
os.environ["SOPSTUDIO_DB"] = str(Path(_TMP) / "store.sqlite")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PySide6.QtCore import QPointF  # noqa: E402

from sopstudio.core.io import save_sop  # noqa: E402
from sopstudio.core.model import SOP, Edge, Node, Tool, ToolOutput  # noqa: E402
from sopstudio.qt.app import application, open_window  # noqa: E402

FAN = 3


def make_sop(count: int) -> SOP:
    """A tree of tasks (each with a tool and three conditional exits) whose leaves are ends,
    placed as a tidy tree (parents centred over their children), as a laid-out file would be."""
    tools = [Tool(name=f"tool_{i}", outputs=[ToolOutput(name=f"out_{i}", enum=["a", "b", "c"])])
             for i in range(20)]
    nodes, edges = [], []
    internal = (count - 1) // FAN
    xs = _tidy_x(count)
    for i in range(count):
        position = (xs[i], _level(i) * 170.0)
        if i < internal:
            nodes.append(Node(id=f"n{i}", title=f"Step {i}: check the account state",
                              tools=[f"tool_{i % 20}"], position=position))
        else:
            nodes.append(Node(id=f"n{i}", title=f"End {i}", kind="end", outcome="resolved",
                              say="Done.", position=position))
        if i:
            parent = (i - 1) // FAN
            value = "abc"[(i - 1) % FAN]
            when = "else" if value == "c" else f"out_{parent % 20} == '{value}'"
            edges.append(Edge(id=f"e{i}", source=f"n{parent}", target=f"n{i}", when=when))
    return SOP(id=f"bench{count}", title=f"Bench {count}", start="n0", tools=tools,
               nodes=nodes, edges=edges)


def _tidy_x(count: int) -> list[float]:
    xs = [0.0] * count
    next_leaf = 0
    for i in sorted(range(count), key=lambda k: _dfs_key(k), reverse=False):
        children = [c for c in range(FAN * i + 1, FAN * i + FAN + 1) if c < count]
        if not children:
            xs[i] = next_leaf * 230.0
            next_leaf += 1
    for i in reversed(range(count)):  # children have larger indexes: fill parents bottom-up
        children = [c for c in range(FAN * i + 1, FAN * i + FAN + 1) if c < count]
        if children:
            xs[i] = sum(xs[c] for c in children) / len(children)
    return xs


def _dfs_key(index: int) -> list[int]:
    """Path of child positions from the root: sorting by it gives depth-first leaf order."""
    path = []
    while index:
        path.append((index - 1) % FAN)
        index = (index - 1) // FAN
    return path[::-1]


def _level(index: int) -> int:
    level, first = 0, 0
    while index >= first + FAN ** level:
        first += FAN ** level
        level += 1
    return level


def time_open(count: int):
    app = application()
    path = Path(_TMP) / f"bench_{count}.sop.json"
    save_sop(make_sop(count), path)
    start = time.perf_counter()
    window = open_window(str(path))
    window.resize(1600, 1000)
    window.show()
    app.processEvents()
    window.view.fit_all()
    window.grab()  # paints every visible item once
    elapsed = time.perf_counter() - start
    return elapsed, window


def time_layout(window) -> float:
    start = time.perf_counter()
    window.editor.auto_layout()
    elapsed = time.perf_counter() - start
    window.session.undo_stack.undo()
    return elapsed


def time_move(window, frames: int = 40) -> float:
    app = application()
    view, scene = window.view, window.scene
    chosen = [scene.nodes[f"n{i}"] for i in range(100, 150)]
    scene.select_ids([item.node_id for item in chosen])
    view.resetTransform()
    view.centerOn(chosen[0])
    app.processEvents()
    durations = []
    for frame in range(frames):
        start = time.perf_counter()
        for item in chosen:  # what a mouse drag does to each selected item, once per frame
            item.setPos(item.pos() + QPointF(3, 2))
        view.viewport().repaint()
        durations.append(time.perf_counter() - start)
    return statistics.mean(durations)


def main() -> int:
    warm, windows = time_open(10)  # one-time costs: fonts, styles, the first window
    print(f"first window (10 nodes, start-up costs): {warm * 1000:8.1f} ms")
    windows = {10: windows}
    for count in (100, 1000, 3000):
        elapsed, windows[count] = time_open(count)
        print(f"open + render {count:>5} nodes: {elapsed * 1000:8.1f} ms")
    print(f"auto-layout 1000 nodes (dot):  {time_layout(windows[1000]) * 1000:8.1f} ms")
    print(f"move 50 of 1000 nodes:        {time_move(windows[1000]) * 1000:8.2f} ms/frame")
    for window in windows.values():
        window.session.mark_saved()
        window.keep_state = False
        window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
