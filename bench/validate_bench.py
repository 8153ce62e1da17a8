"""Benchmark: load (JSON text -> SOP), validate and save (dumps) for SOPs of 100 to 5,000 nodes.

Each generated SOP is a chain of stages, 4 nodes each: ask a user value, call a tool with an enum
output and an assignment, and branch on the output (a condition per value group plus `else`,
and a failure edge back to the ask), with end nodes for the side exits. The generated SOPs are
clean (validate finds nothing), so the figures are for the full set of checks.

    .venv/bin/python bench/validate_bench.py [--runs 5] [--sizes 100 1000 5000]

"validate ms" is warm (the expression parser caches parsed texts, as when the editor
re-validates after each edit); "cold ms" empties that cache first (a freshly opened file).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from sopstudio.core import expr
from sopstudio.core.io import dumps, loads
from sopstudio.core.validate import validate


def _stage(i: int, last: bool) -> tuple[list, list, list, list]:
    var, tool, status = f"ref_{i}", f"check_{i}", f"status_{i}"
    variables = [{"name": var, "type": "string", "source": "user", "description": f"ref {i}"}]
    tools = [{"name": tool, "description": f"check step {i}",
              "url": f"https://api.example.com/check/{{{var}}}",
              "parameters": {"type": "object", "properties": {var: {"type": "string"}},
                             "required": [var]},
              "outputs": [{"name": status, "enum": ["ok", "hold", "review", "rejected"]}],
              "errors": ["api_error", "invalid_id"]}]
    nxt = "done" if last else f"ask_{i + 1}"
    nodes = [{"id": f"ask_{i}", "title": f"Ask ref {i}", "ask": [var], "max_attempts": 3,
              "say": f"Please give reference {i}."},
             {"id": f"call_{i}", "title": f"Check {i}", "tools": [tool],
              "set": {f"score_{i}": f"len({var}) + 1"}},
             {"id": f"held_{i}", "kind": "end", "say": "On hold.", "outcome": "escalated"},
             {"id": f"rejected_{i}", "kind": "end", "say": "Rejected {" + var + "}.",
              "outcome": "rejected"}]
    edges = [{"id": f"a{i}", "source": f"ask_{i}", "target": f"call_{i}"},
             {"id": f"ok{i}", "source": f"call_{i}", "target": nxt,
              "when": f"{status} == 'ok' and score_{i} > 0"},
             {"id": f"hold{i}", "source": f"call_{i}", "target": f"held_{i}",
              "when": f"{status} in ['hold', 'review']"},
             {"id": f"else{i}", "source": f"call_{i}", "target": f"rejected_{i}", "when": "else"},
             {"id": f"fail{i}", "source": f"call_{i}", "target": f"ask_{i}", "on": "failure",
              "when": "error == 'invalid_id'"}]
    return variables, tools, nodes, edges


def generate(size: int) -> str:
    """JSON text of a clean SOP with about `size` nodes."""
    stages = max(1, (size - 1) // 4)
    sop = {"id": f"bench-{size}", "title": f"Benchmark {size}", "start": "ask_0",
           "variables": [], "tools": [], "nodes": [], "edges": []}
    for i in range(stages):
        for key, items in zip(("variables", "tools", "nodes", "edges"),
                              _stage(i, i == stages - 1)):
            sop[key] += items
    sop["nodes"].append({"id": "done", "kind": "end", "say": "All good.", "outcome": "resolved"})
    return json.dumps({"format": "sopstudio", "version": 1, "sop": sop})


def _median_ms(func, runs: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(runs):
        begin = time.perf_counter()
        result = func()
        times.append((time.perf_counter() - begin) * 1000)
    return statistics.median(times), result


def _cold_validate(sop):
    """Validate with the expression parser's cache emptied: the cost of a freshly opened file."""
    cache_clear = getattr(getattr(expr, "_parse_cached", None), "cache_clear", None)
    if cache_clear:
        cache_clear()
    return validate(sop)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 5000])
    args = parser.parse_args()
    print(f"{'nodes':>6} {'edges':>6} {'load ms':>9} {'validate ms':>12} {'cold ms':>8} "
          f"{'save ms':>9} issues")
    for size in args.sizes:
        text = generate(size)
        load_ms, sop = _median_ms(lambda: loads(text), args.runs)
        validate_ms, issues = _median_ms(lambda: validate(sop), args.runs)
        cold_ms, _ = _median_ms(lambda: _cold_validate(sop), args.runs)
        save_ms, _ = _median_ms(lambda: dumps(sop), args.runs)
        print(f"{len(sop.nodes):>6} {len(sop.edges):>6} {load_ms:>9.1f} {validate_ms:>12.1f} "
              f"{cold_ms:>8.1f} {save_ms:>9.1f} {len(issues)}")


if __name__ == "__main__":
    main()
