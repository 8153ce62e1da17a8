"""No import circles (DESIGN §1): two modules of one package never import each other, not even
lazily inside a function or under TYPE_CHECKING, and no longer ring closes either.

The graph is read from the source with `ast` (every `import` statement anywhere in a module), so a
circle hidden in a function body is found too; networkx finds the cycles.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent / "sopstudio"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path, name: str, known: set[str]) -> set[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            # `from . import words` imports the submodule; `from .x import name` the module x
            subs = {f"{base}.{alias.name}" for alias in node.names} & known
            found.update(subs)
            if len(subs) < len(node.names):
                found.add(base)
    return {m for m in found if m in known and m != name}


def import_graph() -> nx.DiGraph:
    files = {_module_name(p): p for p in ROOT.rglob("*.py")}
    graph = nx.DiGraph()
    graph.add_nodes_from(files)
    for name, path in files.items():
        graph.add_edges_from((name, target) for target in _imports(path, name, set(files)))
    return graph


def test_the_graph_sees_relative_and_lazy_imports():
    graph = import_graph()
    assert graph.has_edge("sopstudio.core.journeys_cover", "sopstudio.core.journeys")
    assert graph.has_edge("sopstudio.engine.orchestrator_replay", "sopstudio.engine.orchestrator")


def test_no_import_circles():
    """No module reaches itself through imports: not two modules of one package, not a longer
    ring, not across packages."""
    cycles = sorted(sorted(c) for c in nx.simple_cycles(import_graph()))
    assert cycles == []
