"""Import and export seconds of every format at scale (issue 17, item 6): prints figures.

Inputs, generated in memory: a 100k-node SOP (a chain of tasks, every third one a decision with
a conditional and an else edge, a tool on every fifth, failure edges), an SOP with 100k tools,
and an 8,000-node chain. Every export format is written, then read back by its importer (the
formats that have one). svg/png are drawn by Graphviz, whose layout is superlinear: above the
draw cap (formats/graphviz_io.py) they are refused with a message, which is reported here.

    .venv/bin/python bench/formats_bench.py [--nodes 100000] [--tools 100000] [--chain 8000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sopstudio.core.model import SOP, Edge, Node, Tool, ToolOutput, Variable
from sopstudio.formats import EXPORT_FORMATS, FormatError, export_sop, import_text

IMPORTABLE = ("json", "text", "sop-text", "journeybench", "dot", "mermaid", "toolspecs",
              "openai-tools")


def big_sop(count: int) -> SOP:
    tools = [Tool(name="check", outputs=[ToolOutput(name="status", enum=["ok", "bad"])],
                  parameters={"type": "object", "properties": {"x": {"type": "string"}},
                              "required": ["x"]}, errors=["api_error"])]
    nodes, edges = [], []
    for i in range(count):
        if i % 3 == 1:
            nodes.append(Node(id=f"n{i}", title=f"Decide {i}"))
            edges.append(Edge(id=f"c{i}", source=f"n{i}", target="end", when="status == 'bad'"))
            edges.append(Edge(id=f"e{i}", source=f"n{i}", target=f"n{i + 1}", when="else"))
            continue
        tools_here = ["check"] if i % 5 == 0 else []
        nodes.append(Node(id=f"n{i}", title=f"Step {i}", ask=["x"] if i == 0 else [],
                          tools=tools_here, say=None if tools_here else f"step {i}"))
        edges.append(Edge(id=f"e{i}", source=f"n{i}", target=f"n{i + 1}"))
        if tools_here:
            edges.append(Edge(id=f"f{i}", source=f"n{i}", target="end", on="failure"))
    edges[-1].target = "end"
    nodes.append(Node(id="end", title="End", kind="end", outcome="resolved"))
    return SOP(id="big", title="Big", start="n0", variables=[Variable(name="x")], tools=tools,
               nodes=nodes, edges=edges)


def chain(count: int) -> SOP:
    nodes = [Node(id=f"n{i}", title=f"Step {i}", say=f"step {i}") for i in range(count)]
    nodes.append(Node(id="end", title="End", kind="end", outcome="resolved"))
    edges = [Edge(id=f"e{i}", source=f"n{i}", target=f"n{i + 1}" if i + 1 < count else "end")
             for i in range(count)]
    return SOP(id="chain", title="Chain", start="n0", nodes=nodes, edges=edges)


def many_tools(count: int) -> SOP:
    tools = [Tool(name=f"tool_{i}", description=f"Tool {i}",
                  parameters={"type": "object", "properties": {"a": {"type": "string"}},
                              "required": ["a"]},
                  outputs=[ToolOutput(name=f"out_{i}")]) for i in range(count)]
    return SOP(id="tools", title="Tools", tools=tools)


def timed(fn):
    start = time.perf_counter()
    try:
        return fn(), time.perf_counter() - start, None
    except FormatError as error:
        return None, time.perf_counter() - start, str(error)


def bench(name: str, sop: SOP, formats) -> None:
    print(f"\n{name}: {len(sop.nodes)} nodes, {len(sop.edges)} edges, {len(sop.tools)} tools")
    print(f"  {'format':<14}{'export s':>10}{'import s':>10}  note")
    for fmt in formats:
        data, out_s, problem = timed(lambda: export_sop(sop, fmt))
        in_s, note = "", problem or ""
        if data is not None and fmt in IMPORTABLE:
            _, seconds, problem = timed(lambda: import_text(data, fmt, "bench"))
            in_s, note = f"{seconds:10.2f}", problem or ""
        print(f"  {fmt:<14}{out_s:10.2f}{in_s:>10}  {note[:90]}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--tools", type=int, default=100_000)
    parser.add_argument("--chain", type=int, default=8_000)
    parser.add_argument("--formats", default=",".join(EXPORT_FORMATS))
    args = parser.parse_args()
    formats = [f for f in args.formats.split(",") if f]
    bench(f"{args.chain}-node chain", chain(args.chain), formats)
    bench(f"{args.tools}-tool SOP", many_tools(args.tools),
          [f for f in formats if f in ("json", "sop-text", "toolspecs", "openai-tools",
                                       "spa-prompt")])
    bench(f"{args.nodes}-node SOP", big_sop(args.nodes), formats)


if __name__ == "__main__":
    main()
