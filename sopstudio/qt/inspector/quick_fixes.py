"""The edits behind the quick fixes for undeclared and unavailable variables, shared by the
inspector's forms and the Problems dock: each fix is one undoable edit."""

from __future__ import annotations

from ...core.edits import AddVariable, Batch, SetField
from ...core.model import SOP, Variable


def declare(sop: SOP, names: list[str]) -> Batch | None:
    """Declare the `names` that are not declared yet (None when all are)."""
    missing = [name for name in dict.fromkeys(names) if sop.variable(name) is None]
    if not missing:
        return None
    return Batch([AddVariable(Variable(name=name)) for name in missing],
                 f"Declare {', '.join(missing)}")


def ask_at(sop: SOP, name: str, node_id: str) -> Batch | None:
    """Declare `name` if needed and ask for it at `node_id`: declaring alone sets nothing
    (DESIGN §2), asking where it is read makes it available there."""
    node = sop.node(node_id)
    if node is None or name in node.ask:
        return None
    edits = [] if sop.variable(name) is not None else [AddVariable(Variable(name=name))]
    edits.append(SetField("node", node_id, "ask", [*node.ask, name]))
    return Batch(edits, f"Ask for {name} at {node_id}")
