"""The inspector dock: forms editing the selected node, edge or tool through undoable edits."""
