"""A second look at an import: what the importer's own notes do not say but the author must
check. `review(text, sop)` returns extra note lines; the CLI's `import` prints them with the
importer's notes and the GUI shows them in its import dialog and the Problems dock.

Today: a text that says "if … otherwise" whose result has no branch (the condition was not
understood, so the chain runs straight through), and a result with no start node.
"""

from __future__ import annotations

import re

from ..core.model import SOP

# Prose, not an expression: a plain look for the words, line by line or across lines.
_IF = re.compile(r"\b(if|when|unless)\b", re.IGNORECASE)
_OTHERWISE = re.compile(r"\b(otherwise|else|if not)\b", re.IGNORECASE)


def says_otherwise(text: str) -> bool:
    """Whether the text describes a choice ('if … otherwise', 'when … else')."""
    return bool(_IF.search(text) and _OTHERWISE.search(text))


def has_branch(sop: SOP) -> bool:
    """Whether some node has two or more ways out (to different nodes)."""
    targets: dict[str, set[str]] = {}
    for edge in sop.edges:
        targets.setdefault(edge.source, set()).add(edge.target)
    return any(len(found) > 1 for found in targets.values())


def review(text: str, sop: SOP) -> list[str]:
    notes = []
    if says_otherwise(text) and sop.nodes and not has_branch(sop):
        notes.append("the text says 'if … otherwise', but the imported SOP has no branch (no "
                     "step with two ways out): the choice was not understood; add it by hand")
    if sop.nodes and sop.start is None:
        notes.append("no start node was found: choose the first step (SOP ▸ Start node)")
    return notes
