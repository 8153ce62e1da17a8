"""Renames as one refactor edit (variables, tools), the title-following id, and the store's
refusal to merge two documents' histories (`commit --new-id`)."""

from __future__ import annotations

import pytest

from sopstudio.cli_main import run
from sopstudio.core.document import Document, History
from sopstudio.core.edits import EditError
from sopstudio.core.edits_refactor import (RenameSop, RenameTool, RenameVariable, SetTitle,
                                           rename_name, rename_string)
from sopstudio.core.identity import follows_title, new_sop_id, slugify
from sopstudio.core.io import canonical_json, load_sop, save_sop
from sopstudio.core.model import SOP, Edge, Knowledge, Node, Tool, Variable
from sopstudio.store import IdentityConflict, open_store


def drafted() -> SOP:
    lookup = Tool(name="lookup", parameters={"type": "object", "properties": {
        "email": {"type": "string"}}, "required": ["email"]})
    return SOP(
        id="pw", title="Password reset", start="ask",
        variables=[Variable(name="email"), Variable(name="emails", type="list")],
        tools=[lookup],
        knowledge=[Knowledge(question="Which {email}?", answer="The one on file: {email}.")],
        nodes=[Node(id="ask", ask=["email", "emails"], tools=["lookup"],
                    say="Thanks, {email}", set={"email": "lower(email) + 'email'"},
                    tool_when={"lookup": "email != ''"}),
               Node(id="end", kind="end")],
        edges=[Edge(id="e1", source="ask", target="end",
                    when="len(emails) > 0 && {email} == 'email' || tool == 'lookup'")])


def test_rename_name_rewrites_tokens_not_text():
    text = "email == 'email' && len(emails) > 0 && { email.domain } != emailx"
    assert rename_name(text, "email", "address") == \
        "address == 'email' && len(emails) > 0 && { address.domain } != emailx"
    assert rename_name("email == 'open", "email", "x") == "email == 'open"  # untokenizable
    assert rename_string("tool == 'a' or b == 'ab'", "a", "c") == "tool == 'c' or b == 'ab'"


def test_rename_variable_updates_every_reference_and_undoes_exactly():
    doc = Document(drafted())
    before = canonical_json(doc.sop)
    history = History(doc)
    history.do(RenameVariable("email", "address"))
    sop = doc.sop
    assert [v.name for v in sop.variables] == ["address", "emails"]
    node = sop.node("ask")
    assert node.ask == ["address", "emails"]
    assert node.set == {"address": "lower(address) + 'email'"}
    assert node.tool_when == {"lookup": "address != ''"}
    assert node.tool_args == {"lookup": {"email": "address"}}  # the parameter keeps its input
    assert node.say == "Thanks, {address}"
    assert sop.edge("e1").when == "len(emails) > 0 && {address} == 'email' || tool == 'lookup'"
    assert sop.knowledge[0].answer == "The one on file: {address}."
    history.undo()
    assert canonical_json(doc.sop) == before


def test_rename_variable_refuses_taken_or_bad_names():
    doc = Document(drafted())
    with pytest.raises(EditError, match="already exists"):
        doc.apply(RenameVariable("email", "emails"))
    with pytest.raises(EditError, match="letters"):
        doc.apply(RenameVariable("email", "e mail"))


def test_rename_tool_takes_a_name_nodes_already_reference():
    sop = drafted()
    sop.nodes[1] = Node(id="end", kind="end")
    sop.nodes.append(Node(id="status", tools=["get_account_status"]))
    doc = Document(sop)
    History(doc).do(RenameTool("lookup", "get_account_status"))
    assert doc.sop.tool("get_account_status") is not None
    assert doc.sop.node("ask").tools == ["get_account_status"]
    assert doc.sop.node("ask").tool_when == {"get_account_status": "email != ''"}
    assert doc.sop.edge("e1").when.endswith("tool == 'get_account_status'")


def test_new_ids_are_unique_and_follow_the_title_until_edited():
    ids = {new_sop_id() for _ in range(50)}
    assert len(ids) > 40 and all(i.startswith("untitled-sop-") for i in ids)
    assert slugify("Password reset!") == "password-reset" and slugify("???") == "sop"
    doc = Document(SOP(id=new_sop_id(suffix="ab12"), title="Untitled SOP"))
    history = History(doc)
    history.do(SetTitle("P"))
    history.do(SetTitle("Password reset"))
    assert doc.sop.id == "password-reset-ab12" and follows_title(doc.sop.id, doc.sop.title)
    history.undo()  # the typing was one entry
    assert (doc.sop.id, doc.sop.title) == ("untitled-sop-ab12", "Untitled SOP")
    doc.sop.id = "my-own-id"
    history.do(SetTitle("Renamed"))
    assert doc.sop.id == "my-own-id"


def test_store_refuses_to_merge_histories_of_two_files(tmp_path):
    a, b = tmp_path / "a.sop.json", tmp_path / "b.sop.json"
    first, second = drafted(), drafted()
    second.title = "Another SOP, same id"
    save_sop(first, a)
    save_sop(second, b)
    with open_store(tmp_path / "store.db") as store:
        store.history.record(first, "a", path=a)
        with pytest.raises(IdentityConflict, match="a.sop.json") as raised:
            store.history.record(second, "b", path=b)
        assert "--new-id" in str(raised.value)
        assert len(store.history.versions("pw")) == 1
        store.history.record(first, "a again", path=a)  # the same file is fine
        a.rename(tmp_path / "moved.sop.json")  # a moved file keeps its history
        store.history.record(second, "moved", path=tmp_path / "moved.sop.json")
        assert len(store.history.versions("pw")) == 2


def test_cli_commit_refuses_then_commits_under_a_new_id(tmp_path, capsys):
    db = tmp_path / "store.db"
    a, b = tmp_path / "a.sop.json", tmp_path / "b.sop.json"
    save_sop(drafted(), a)
    other = drafted()
    other.title = "Other"
    save_sop(other, b)
    assert run(["commit", str(a), "--db", str(db)]) == 0
    capsys.readouterr()
    assert run(["commit", str(b), "--db", str(db)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "a.sop.json" in err[0] and "--new-id" in err[0]
    assert run(["commit", str(b), "--db", str(db), "--new-id", "pw-other"]) == 0
    assert load_sop(b).id == "pw-other"
    with open_store(db) as store:
        assert len(store.history.versions("pw")) == 1
        assert len(store.history.versions("pw-other")) == 1


def test_rename_sop_moves_self_subflows_along_and_undoes():
    sop = drafted()
    sop.nodes.append(Node(id="again", kind="subflow", subflow="pw"))
    doc = Document(sop)
    history = History(doc)
    history.do(RenameSop("pw-2"))
    assert doc.sop.id == "pw-2" and doc.sop.node("again").subflow == "pw-2"
    with pytest.raises(EditError, match="letters"):
        doc.apply(RenameSop("bad id"))
    history.undo()
    assert doc.sop.id == "pw" and doc.sop.node("again").subflow == "pw"
