"""The GUI's undo path (EditSession: QUndoStack of EditCommands) and core's History undo the same
way: one random sequence of edits, undos, redos and saves is pushed through both, and the two
documents are byte-identical after every step (the merge rule lives once, in core.UndoEntry)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sopstudio.core import io
from sopstudio.core.document import Document, History
from sopstudio.core.edits import SetField
from sopstudio.core.errors import EditError
from sopstudio.qt.session import EditSession

from edit_strategies import draw_edit, small_sops

SETTINGS = settings(max_examples=120, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])
TYPED = st.text(alphabet="ab ", max_size=4)


def _typing(data, sop):
    """A keystroke in a node title, an edge condition or the SOP title: what merges."""
    nodes = [n.id for n in sop.nodes]
    target = data.draw(st.sampled_from(["sop"] + (["node"] if nodes else [])))
    if target == "sop":
        return SetField("sop", None, "title", data.draw(TYPED))
    return SetField("node", data.draw(st.sampled_from(nodes)), "title", data.draw(TYPED))


def _step(data, history: History, session: EditSession) -> str:
    op = data.draw(st.sampled_from(["edit", "type", "type", "undo", "redo", "save"]))
    stack = session.undo_stack
    if op in ("edit", "type"):
        edit = draw_edit(data, history.doc.sop) if op == "edit" else _typing(data, history.doc.sop)
        try:
            history.do(edit)
        except EditError:
            assert session.push(edit) is False  # refused on both paths, recorded on neither
            return op
        assert session.push(edit) is True
    elif op == "undo":
        history.undo()
        stack.undo()
    elif op == "redo":
        history.redo()
        stack.redo()
    else:
        history.doc.mark_saved()
        session.mark_saved()
    return op


@SETTINGS
@given(sop=small_sops(), data=st.data())
def test_gui_undo_stack_and_history_give_identical_documents(qapp, sop, data):
    history = History(Document(sop.model_copy(deep=True)))
    session = EditSession(Document(sop.model_copy(deep=True)))
    for _ in range(data.draw(st.integers(1, 25))):
        _step(data, history, session)
        assert io.dumps(session.document.sop) == io.dumps(history.doc.sop)
        assert session.undo_stack.canUndo() == history.can_undo
        assert session.undo_stack.canRedo() == history.can_redo
    while history.can_undo:  # and all the way back, entry by entry
        history.undo()
        session.undo_stack.undo()
        assert io.dumps(session.document.sop) == io.dumps(history.doc.sop)
    assert not session.undo_stack.canUndo()
    assert io.dumps(history.doc.sop) == io.dumps(sop)


def test_typing_in_one_field_is_one_entry_on_the_gui_stack(qapp):
    session = EditSession(None)
    original = io.dumps(session.document.sop)
    for text in ("H", "He", "Hel"):
        session.push(SetField("sop", None, "title", text))
    assert session.undo_stack.count() == 1
    session.mark_saved()
    session.push(SetField("sop", None, "title", "Help"))  # after a save: a new entry
    assert session.undo_stack.count() == 2
    session.undo_stack.undo()
    session.undo_stack.undo()
    assert io.dumps(session.document.sop) == original
