"""Output hygiene (issue 17, item 7): no secrets in messages, no raw control characters, and
importers as strict about ids as the native loader."""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from sopstudio.cli_main import run as cli
from sopstudio.core.hygiene import CleanStream, escape_controls, redact_message
from sopstudio.core.io import save_sop
from sopstudio.core.model import Edge, Node, Tool
from sopstudio.engine.examples import listing_blocked
from sopstudio.formats import FormatError, import_text

KEY = "sk-abcdefghijklmnopqrstuvwx"


@pytest.fixture
def sop_file(tmp_path):
    path = tmp_path / "lb.sop.json"
    save_sop(listing_blocked(), path)
    return str(path)


def test_unreachable_model_message_hides_userinfo_and_key(sop_file, capsys):
    url = f"http://user:{KEY}@127.0.0.1:9/v1"
    assert cli(["bench", sop_file, "--agent", "dpa", "--model", "m", "--base-url", url,
                "--no-store", "--limit", "1"]) != 0
    err = capsys.readouterr().err
    assert "cannot reach the model at http://127.0.0.1:9/v1" in err
    assert KEY not in err and "user:" not in err


def test_argument_errors_hide_userinfo(sop_file, capsys):
    with pytest.raises(SystemExit):
        cli(["bench", sop_file, "--base-url", f"ftp://user:{KEY}@host/v1"])
    err = capsys.readouterr().err
    assert KEY not in err and "ftp://host/v1" in err


def test_environment_secrets_are_redacted(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "plain-secret-value-123")
    assert redact_message("got plain-secret-value-123 back") == "got [redacted] back"


def test_control_characters_in_ids_are_refused():
    for bad in ("a\x1b[2K", "b\r0 errors", "c\x9b31m", "d\x00"):
        with pytest.raises(ValidationError):
            Node(id=bad)
        with pytest.raises(ValidationError):
            Edge(id="e", source=bad, target="x")
        with pytest.raises(ValidationError):
            Tool(name=bad)


def test_a_file_with_an_escape_in_an_id_cannot_fake_the_summary(tmp_path, capsys):
    data = {"format": "sopstudio", "version": 1, "sop": {
        "id": "x", "start": "a\x1b[2K\r0 errors",
        "nodes": [{"id": "a\x1b[2K\r0 errors", "title": "t\x1b[31m"}]}}
    src = tmp_path / "esc.sop.json"
    src.write_text(json.dumps(data))
    assert cli(["validate", str(src)]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\r" not in err and "\\u001b" in err


@given(st.text())
def test_escaped_text_has_no_control_characters(text):
    shown = escape_controls(text)
    assert not any(ord(c) < 32 and c not in "\n\t" or 0x7f <= ord(c) <= 0x9f for c in shown)
    if not any(ord(c) < 32 and c not in "\n\t" or 0x7f <= ord(c) <= 0x9f for c in text):
        assert shown == text


def test_clean_stream_passes_the_rest_through():
    target = io.StringIO()
    stream = CleanStream(target, redact=True)
    stream.write(f"at http://u:{KEY}@h/v1 \x1b[2K done\n")
    assert target.getvalue() == "at http://h/v1 \\u001b[2K done\n"
    assert stream.getvalue() == target.getvalue()  # attributes of the wrapped stream


def test_journeybench_import_refuses_duplicate_ids():
    text = json.dumps({"title": "Dup", "nodes": [
        {"id": "a", "task_name": "A", "responsePathways": [{"conditions": [],
                                                           "nextNodeId": "b"}]},
        {"id": "a", "task_name": "A again"}, {"id": "b", "task_name": "B"}], "edges": []})
    with pytest.raises(FormatError, match="duplicate id 'a'"):
        import_text(text, "journeybench", "x")


def test_import_of_duplicates_writes_nothing(tmp_path, capsys):
    src = tmp_path / "dup.json"
    src.write_text(json.dumps([{"type": "function", "function": {"name": "t"}},
                               {"type": "function", "function": {"name": "t"}}]))
    out = tmp_path / "o.sop.json"
    assert cli(["import", str(src), "-o", str(out)]) == 1
    assert "duplicate" in capsys.readouterr().err and not out.exists()
