"""Editor benchmark (offscreen): open + render SOPs of 100, 1,000 and 3,000 nodes, one
auto-layout, and the mean frame time while moving 50 selected nodes in the 1,000-node graph;
then the dense SOPs of issue 12 (every step with an else and a failure edge to shared ends):
a 1,000-node one without positions (interactive, then fully laid out by the child process),
the svg export of the 200-node one, and how fast a batch Cancel lands during generation.

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python bench/editor_bench.py
Targets (issues 5 and 12): the 1,000-node SOP opens and renders in under 1 s; moving stays
< 16 ms/frame (a real mouse drag: event handling and painting); without positions, interactive < 1 s and laid out < 10 s; dense svg < 10 s;
batch Cancel during generation < 0.5 s.
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

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt  # noqa: E402
from PySide6.QtGui import QMouseEvent  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from sopstudio.core.io import save_sop  # noqa: E402
from sopstudio.core.layout import layout_with_routes  # noqa: E402
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
    start, cpu = time.perf_counter(), time.process_time()
    window = open_window(str(path))
    window.resize(1600, 1000)
    window.show()
    app.processEvents()
    window.view.fit_all()
    window.grab()  # paints every visible item once
    elapsed = time.perf_counter() - start
    return elapsed, window, time.process_time() - cpu


def time_layout(window) -> float:
    """dot's share of an auto-layout: what the layout process computes (core/layout.py)."""
    sizes = {i: (item.width, item.height) for i, item in window.scene.nodes.items()}
    start = time.perf_counter()
    layout_with_routes(window.session.sop, sizes)
    return time.perf_counter() - start


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


def time_drag(window, frames: int = 40) -> tuple[float, float, float]:
    """A real mouse drag of 50 selected nodes in the 1,000-node graph, through the view:
    press on one of them, `frames` moves (each handled, then painted at once, as a frame
    is), release. Returns the mean and worst frame and the release (ms)."""
    app = application()
    view, scene = window.view, window.scene
    chosen = [scene.nodes[f"n{i}"] for i in range(100, 150)]
    view.resetTransform()
    view.centerOn(chosen[0])
    app.processEvents()
    scene.select_ids([item.node_id for item in chosen])
    grip = view.mapFromScene(chosen[0].scenePos() + QPointF(0, -chosen[0].height / 4))
    _mouse(view, QEvent.MouseButtonPress, grip, Qt.LeftButton)
    durations = []
    for frame in range(1, frames + 1):
        start = time.perf_counter()
        _mouse(view, QEvent.MouseMove, grip + QPoint(3 * frame, 2 * frame), Qt.NoButton)
        view.viewport().repaint()
        durations.append(time.perf_counter() - start)
    start = time.perf_counter()
    _mouse(view, QEvent.MouseButtonRelease, grip + QPoint(3 * frames, 2 * frames),
           Qt.LeftButton)
    view.viewport().repaint()
    release = time.perf_counter() - start
    return statistics.mean(durations) * 1000, max(durations) * 1000, release * 1000


def _mouse(view, kind, pos, button) -> None:
    held = Qt.NoButton if kind == QEvent.MouseButtonRelease else Qt.LeftButton
    event = QMouseEvent(kind, QPointF(pos), QPointF(view.viewport().mapToGlobal(pos)),
                        button, held, Qt.NoModifier)
    QApplication.sendEvent(view.viewport(), event)


def make_dense(count: int, positions: bool = False) -> SOP:
    """`count` steps in a chain with two conditional exits each (the next two steps), an else
    edge to a shared "escalated" end and a failure edge to a shared "failed" end: ~4 edges per
    node, the shape that made dot take minutes."""
    tools = [Tool(name="check", outputs=[ToolOutput(name="x", enum=["a", "b", "c"])])]
    nodes = [Node(id=f"t{i}", title=f"Step {i}: check the account", tools=["check"])
             for i in range(count)]
    nodes += [Node(id=e, title=e.capitalize(), kind="end", outcome=e)
              for e in ("done", "escalated", "failed")]
    edges = []
    for i in range(count):
        nxt = [f"t{j}" if j < count else "done" for j in (i + 1, i + 2)]
        edges += [Edge(id=f"a{i}", source=f"t{i}", target=nxt[0], when="x == 'a'"),
                  Edge(id=f"b{i}", source=f"t{i}", target=nxt[1], when="x == 'b'"),
                  Edge(id=f"c{i}", source=f"t{i}", target="escalated", when="else"),
                  Edge(id=f"d{i}", source=f"t{i}", target="failed", on="failure")]
    return SOP(id=f"dense{count}", title=f"Dense {count}", start="t0", tools=tools,
               nodes=nodes, edges=edges)


def time_unplaced(count: int) -> tuple[float, float]:
    """Seconds until the window on an unplaced dense SOP is shown and painted (provisional
    layout), and until dot's layout from the child process is on the canvas."""
    app = application()
    path = Path(_TMP) / f"dense_{count}.sop.json"
    save_sop(make_dense(count), path)
    start, cpu = time.perf_counter(), time.process_time()
    window = open_window(str(path))
    window.resize(1600, 1000)
    window.show()
    app.processEvents()
    window.grab()
    interactive = time.perf_counter() - start
    figures = {"interactive": interactive, "interactive_cpu": time.process_time() - cpu}
    done, problems = [], []
    window.auto_layout.applied.connect(done.append)
    window.problems.issues_ready.connect(problems.append)
    while not (done and problems) and time.perf_counter() - start < 120:
        app.processEvents()
        if problems and "problems" not in figures:
            figures["problems"] = time.perf_counter() - start
        time.sleep(0.005)
    figures["laid_out"] = time.perf_counter() - start if done else float("inf")
    figures["hit_test_ms"] = _hit_test_ms(window)
    window.session.mark_saved()
    window.keep_state = False
    window.close()
    return figures


def _hit_test_ms(window, points: int = 100) -> float:
    """Mean ms of the scene lookup a hover move makes, along a line across the graph."""
    rect = window.scene.itemsBoundingRect()
    start = time.perf_counter()
    for i in range(points):
        window.scene.items(QPointF(rect.left() + rect.width() * i / points, rect.top() + 400))
    return (time.perf_counter() - start) * 1000 / points


def time_svg(count: int) -> float:
    from sopstudio.formats import export_sop
    sop = make_dense(count)
    start = time.perf_counter()
    export_sop(sop, "svg")
    return time.perf_counter() - start


def time_batch_cancel() -> float:
    """Seconds from Cancel to the batch job's end while scenarios are still being generated
    (the source never ends: only Cancel can stop it)."""
    import itertools
    import threading

    from sopstudio.qt.sim.batch_job import BatchJob, BatchRequest, build_scenarios
    sop = make_sop(40)

    def endless(compiled, request):
        return itertools.cycle(build_scenarios(compiled, request))

    job = BatchJob(sop, BatchRequest(source="covering", types=("correct",), store_runs=False,
                                     workers=2), scenario_source=endless)
    ended = threading.Event()
    job.finished.connect(lambda *_: ended.set())
    job.start()
    while len(job.completed) < 50:  # runs are going while generation goes on
        time.sleep(0.01)
    start = time.perf_counter()
    job.cancel.set()
    job.thread.join(10)
    return time.perf_counter() - start


def main() -> int:
    warm, window, _ = time_open(10)  # one-time costs: fonts, styles, the first window
    print(f"first window (10 nodes, start-up costs): {warm * 1000:8.1f} ms")
    windows = {10: window}
    for count in (100, 1000, 3000):
        elapsed, windows[count], cpu = time_open(count)
        print(f"open + render {count:>5} nodes: {elapsed * 1000:8.1f} ms (CPU {cpu * 1000:.0f} ms)")
    print(f"auto-layout 1000 nodes (dot):  {time_layout(windows[1000]) * 1000:8.1f} ms")
    print(f"move 50 of 1000 nodes:        {time_move(windows[1000]) * 1000:8.2f} ms/frame")
    mean, worst, release = time_drag(windows[1000])
    print(f"mouse drag 50 of 1000 nodes:  {mean:8.2f} ms/frame (worst {worst:.2f}), "
          f"release {release:.1f} ms")
    for window in windows.values():  # the dense SOP is opened on its own
        window.session.mark_saved()
        window.keep_state = False
        window.close()
    application().processEvents()
    dense = time_unplaced(1000)
    print(f"dense 1000 nodes, no positions: interactive {dense['interactive']:6.2f} s "
          f"(CPU {dense['interactive_cpu']:.2f} s), problems listed {dense.get('problems', float('inf')):6.2f} s, "
          f"laid out {dense['laid_out']:6.2f} s, hover hit test {dense['hit_test_ms']:.2f} ms")
    print(f"svg export, dense 200 nodes:  {time_svg(200):8.2f} s")
    print(f"batch Cancel during generation: {time_batch_cancel() * 1000:6.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
