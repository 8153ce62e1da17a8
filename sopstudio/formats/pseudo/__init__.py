"""Seed-style pseudocode SOP text (Agent-S Table 1 / A.4 / A.5, SOP-Agent IF/ALWAYS lists).

`lines` turns text into a statement tree, `words` reads the wording of each line (action kind,
names, conditions), `build` makes the graph and `write` renders an SOP back as pseudocode.
"""

from .build import import_pseudocode
from .write import export_pseudocode

__all__ = ["import_pseudocode", "export_pseudocode"]
