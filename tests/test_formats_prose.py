"""Prose import through an LLM: draft -> validate -> feedback -> repair, at most 3 rounds.
The model is a fake `complete(messages) -> str` callable that records what it was sent."""

from __future__ import annotations

import json

import pytest

from sopstudio.formats import FormatError, import_text
from sopstudio.formats.prose import import_prose

from helpers import JOURNEYBENCH_REFUNDS


def broken_graph() -> dict:
    """Same graph, but the condition reads a name nothing sets (an undefined-variable error)."""
    data = json.loads(json.dumps(JOURNEYBENCH_REFUNDS))
    data["nodes"][0]["responsePathways"][1]["conditions"][0]["algebraicExpression"] = \
        "{stat} == 'lost'"
    return data


class FakeModel:
    def __init__(self, replies: list[str]):
        self.replies, self.calls = list(replies), []

    def __call__(self, messages: list[dict]) -> str:
        self.calls.append(messages)
        return self.replies.pop(0)


def test_clean_first_draft_needs_one_round():
    model = FakeModel(["Here you go:\n```json\n" + json.dumps(JOURNEYBENCH_REFUNDS) + "\n```"])
    result = import_prose("Look up the order; refund lost ones.", model)
    assert len(model.calls) == 1 and result.format == "prose"
    assert [n.id for n in result.sop.nodes] == ["1", "2", "3"]
    assert model.calls[0][0]["role"] == "system" and "JourneyBench" in model.calls[0][0]["content"]
    assert model.calls[0][1] == {"role": "user", "content": "Look up the order; refund lost ones."}


def test_validation_issues_are_fed_back_until_clean():
    model = FakeModel(["not json at all", json.dumps(broken_graph()), json.dumps(JOURNEYBENCH_REFUNDS)])
    result = import_prose("Refund lost orders.", model)
    assert len(model.calls) == 3
    feedback = model.calls[1][-1]["content"]
    assert "not a usable JourneyBench graph" in feedback
    assert "undefined-variable" in model.calls[2][-1]["content"]
    assert not any("still to fix" in note for note in result.notes)


def test_gives_up_after_three_rounds_and_lists_remaining_issues():
    model = FakeModel([json.dumps(broken_graph())] * 5)
    result = import_prose("Refund lost orders.", model)
    assert len(model.calls) == 3
    assert any("still to fix" in n and "undefined-variable" in n for n in result.notes)


def test_no_usable_graph_is_an_error():
    model = FakeModel(["sorry"] * 3)
    with pytest.raises(FormatError, match="no usable graph in 3 rounds"):
        import_prose("Refund lost orders.", model)


def test_registry_passes_the_callable():
    model = FakeModel([json.dumps(JOURNEYBENCH_REFUNDS)])
    assert import_text("Refund lost orders.", "prose", complete=model).format == "prose"
