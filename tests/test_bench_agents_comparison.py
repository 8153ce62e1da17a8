"""`sopstudio bench --agents A,B`: the same scenarios for every agent, one comparison table by
scenario type, `--json` with one metrics object per agent (DESIGN §9)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sopstudio.cli_main import run as cli

from fake_llm_server import FakeLLMServer, reply
from llm_support import guided_model

PARENT = str(Path(__file__).resolve().parent / "fixtures" / "subflows" / "refund.sop.json")


def test_two_agents_one_json_document(capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeLLMServer(handler=lambda body: reply("Hello, how can I help?")) as server:
        code = cli(["bench", PARENT, "--agents", "scripted,spa", "--model", "m",
                    "--base-url", server.url, "--no-store", "--json", "--workers", "1"])
    out = capsys.readouterr().out
    assert code == 0
    data = json.loads(out)
    assert [a["agent"] for a in data["agents"]] == ["scripted", "spa"]
    scripted, spa = (a["metrics"] for a in data["agents"])
    assert scripted["overall"]["tsr"] == 1.0
    assert spa["overall"]["runs"] == scripted["overall"]["runs"] == data["scenarios"]
    assert spa["overall"]["tsr"] < 1.0  # a model that only chats completes nothing


def test_table_has_a_row_per_type_and_agent(capsys):
    assert cli(["bench", PARENT, "--agents", "scripted", "--no-store", "--workers", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split()[:2] == ["type", "agent"]
    rows = {tuple(line.split()[:2]) for line in lines[2:6]}
    assert rows == {(t, "scripted") for t in ("overall", "correct", "missing-parameter",
                                              "failing-function")}


def test_unknown_agent_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as stop:
        cli(["bench", PARENT, "--agents", "scripted,nope"])
    assert stop.value.code == 2 and "unknown agent(s) nope" in capsys.readouterr().err


def test_agent_s_takes_the_store_library_as_its_action_repository(capsys, monkeypatch, tmp_path):
    """The library's tools are retrieved (top-k by description) beside the SOP's own."""
    from sopstudio.core.model import Tool
    from sopstudio.store.store import open_store
    db = tmp_path / "runs.db"
    with open_store(db) as store:
        store.library.add(Tool(name="lookup_customer_history",
                            description="look up the customer id history"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeLLMServer(handler=lambda body: reply("Hello.")) as server:
        assert cli(["bench", PARENT, "--agent", "agent-s", "--model", "m", "--base-url",
                    server.url, "--db", str(db), "--json", "--limit", "1",
                    "--workers", "1", "--guidance", "off"]) == 0  # off: every retrieved tool
    offered = {t["function"]["name"] for r in server.requests for t in r.get("tools", [])}
    assert "lookup_customer_history" in offered
    capsys.readouterr()


def test_an_agent_choosing_branches_reports_how_often_the_conditions_agreed(capsys,
                                                                            monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeLLMServer(handler=guided_model) as server:
        code = cli(["bench", PARENT, "--agent", "sop-agent", "--model", "m", "--base-url",
                    server.url, "--no-store", "--workers", "1", "--json"])
    assert code == 0
    overall = json.loads(capsys.readouterr().out)["metrics"]["overall"]
    choices, agreed = overall["branch_choices"], overall["branch_agreements"]
    assert choices > 0 and 0 <= agreed <= choices
    with FakeLLMServer(handler=guided_model) as server:
        cli(["bench", PARENT, "--agent", "sop-agent", "--model", "m", "--base-url",
             server.url, "--no-store", "--workers", "1"])
    out = capsys.readouterr().out
    assert (f"sop-agent: chose {choices} branch(es) itself; the conditions agreed with "
            f"{agreed} ({agreed / choices:.0%})") in out
