"""Property tests: random edit sequences on random small SOPs undo exactly and redo exactly."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sopstudio.core import io
from sopstudio.core.document import Document, History
from sopstudio.core.errors import EditError

from edit_strategies import draw_edit, small_sops

SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def run_sequence(data, doc: Document, steps: int):
    """Apply random edits; record (edit, inverse, state before, state after) for the legal
    ones and check illegal ones left the document as it was."""
    log = []
    for _ in range(steps):
        edit = draw_edit(data, doc.sop)
        before = io.dumps(doc.sop)
        try:
            inverse = doc.apply(edit)
        except EditError:
            assert io.dumps(doc.sop) == before
            continue
        log.append((edit, inverse, before, io.dumps(doc.sop)))
    return log


@SETTINGS
@given(sop=small_sops(), data=st.data())
def test_inverses_in_reverse_restore_every_state(sop, data):
    doc = Document(sop)
    original = io.dumps(sop)
    log = run_sequence(data, doc, data.draw(st.integers(1, 12)))
    redos = []
    for edit, inverse, before, after in reversed(log):
        assert io.dumps(doc.sop) == after
        redos.append(doc.apply(inverse))
        assert io.dumps(doc.sop) == before
    assert io.dumps(doc.sop) == original
    assert not doc.dirty
    # Redo by applying the inverse of each inverse, oldest first.
    for redo, (_, _, _, after) in zip(reversed(redos), log):
        doc.apply(redo)
        assert io.dumps(doc.sop) == after


@SETTINGS
@given(sop=small_sops(), data=st.data())
def test_reapplying_original_edits_after_full_undo_gives_same_states(sop, data):
    doc = Document(sop)
    original = io.dumps(sop)
    log = run_sequence(data, doc, data.draw(st.integers(1, 10)))
    for _, inverse, _, _ in reversed(log):
        doc.apply(inverse)
    assert io.dumps(doc.sop) == original
    for edit, _, before, after in log:
        assert io.dumps(doc.sop) == before
        doc.apply(edit)
        assert io.dumps(doc.sop) == after


@SETTINGS
@given(sop=small_sops(), data=st.data())
def test_history_undo_all_then_redo_all(sop, data):
    doc = Document(sop)
    history = History(doc)
    original = io.dumps(sop)
    for _ in range(data.draw(st.integers(1, 10))):
        try:
            history.do(draw_edit(data, doc.sop))
        except EditError:
            pass
    final = io.dumps(doc.sop)
    while history.can_undo:
        history.undo()
    assert io.dumps(doc.sop) == original
    while history.can_redo:
        history.redo()
    assert io.dumps(doc.sop) == final
