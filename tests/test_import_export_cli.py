"""`sopstudio import` and `sopstudio export`: outputs, exit codes, one-line errors, no partial
files."""

from __future__ import annotations

import json

import pytest

from sopstudio.cli_main import run
from sopstudio.core.io import load_sop

from helpers import FORMATS, JOURNEYBENCH_REFUNDS, TAU2_DOT


def test_import_guesses_format_and_writes_sop(tmp_path, capsys):
    out = tmp_path / "listing.sop.json"
    assert run(["import", str(FORMATS / "agent_s_listing_blocked.txt"), "-o", str(out)]) == 0
    sop = load_sop(out)
    assert sop.start == "check_user_status" and len(sop.nodes) == 19
    captured = capsys.readouterr()
    assert "(text): 19 nodes" in captured.out
    assert "note: " in captured.err and "confirm" in captured.err


def test_import_dot_then_export_every_format(tmp_path):
    sop_path = tmp_path / "tau2.sop.json"
    assert run(["import", str(TAU2_DOT), "--from", "dot", "-o", str(sop_path)]) == 0
    for fmt in ("dot", "svg", "png", "mermaid", "journeybench", "text", "sop-text",
                "spa-prompt", "dpa-prompts", "json"):
        out = tmp_path / f"out.{fmt}"
        assert run(["export", str(sop_path), "--to", fmt, "-o", str(out)]) == 0
        assert out.stat().st_size > 0
    for fmt in ("openai-tools", "toolspecs"):  # a flowchart has no tools: refused, no file
        out = tmp_path / f"out.{fmt}"
        assert run(["export", str(sop_path), "--to", fmt, "-o", str(out)]) == 1
        assert not out.exists()
    assert (tmp_path / "out.png").read_bytes()[:4] == b"\x89PNG"
    assert load_sop(tmp_path / "out.json") == load_sop(sop_path)


def test_import_unreadable_source_exits_2(tmp_path, capsys):
    out = tmp_path / "x.sop.json"
    assert run(["import", str(tmp_path / "missing.txt"), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot read" in err and not out.exists()


@pytest.mark.parametrize("name, content, fmt", [
    ("bad.dot", "digraph {\n a -> ;\n}\n", None),
    ("bad.mmd", "flowchart TD\n A -->\n", None),
    ("bad.json", '{"nodes": [\n {"id": 1,,}\n]}', "journeybench"),
    ("bad.txt", "# sopstudio-text 1\nsop:\n  id: bare\n", None)])
def test_malformed_import_one_line_error_and_no_output(tmp_path, capsys, name, content, fmt):
    src = tmp_path / name
    src.write_text(content)
    out = tmp_path / "out.sop.json"
    args = ["import", str(src), "-o", str(out)] + (["--from", fmt] if fmt else [])
    assert run(args) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "line " in err and "Traceback" not in err
    assert not out.exists() and list(tmp_path.iterdir()) == [src]


def test_export_unreadable_file_exits_2(tmp_path, capsys):
    out = tmp_path / "x.dot"
    assert run(["export", str(tmp_path / "nope.sop.json"), "--to", "dot", "-o", str(out)]) == 2
    assert not out.exists() and capsys.readouterr().err.count("\n") == 1


def test_export_failure_leaves_no_file(tmp_path, capsys):
    sop_path = tmp_path / "a.sop.json"
    assert run(["import", str(FORMATS / "openai_tools.json"), "-o", str(sop_path)]) == 0
    out = tmp_path / "missing-dir" / "tools.json"
    assert run(["export", str(sop_path), "--to", "openai-tools", "-o", str(out)]) == 1
    assert "cannot write" in capsys.readouterr().err and not out.parent.exists()


def test_export_to_stdout(tmp_path, capsys):
    sop_path = tmp_path / "a.sop.json"
    run(["import", str(FORMATS / "openai_tools.json"), "-o", str(sop_path)])
    capsys.readouterr()
    assert run(["export", str(sop_path), "--to", "toolspecs", "-o", "-"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["toolSpec"]["name"] == "check_listing_status"
    assert run(["export", str(sop_path), "--to", "png", "-o", "-"]) == 1


def test_import_prose_without_llm_client_is_a_clear_error(tmp_path, capsys, monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "sopstudio.engine.llm_client", None)  # import fails
    src = tmp_path / "p.txt"
    src.write_text("Refund lost orders.")
    out = tmp_path / "p.sop.json"
    assert run(["import", str(src), "--from", "prose", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "LLM client" in err and err.count("\n") == 1 and not out.exists()


def test_import_prose_through_a_local_openai_compatible_server(tmp_path, capsys, monkeypatch):
    """The real `openai` client (via the engine's LLM client) against a stdlib server on
    127.0.0.1 that answers every chat completion with a JourneyBench graph."""
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    seen = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # http.server's naming
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append(body)
            reply = {"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                     "choices": [{"index": 0, "finish_reason": "stop",
                                  "message": {"role": "assistant",
                                              "content": json.dumps(JOURNEYBENCH_REFUNDS)}}]}
            data = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        src = tmp_path / "refunds.txt"
        src.write_text("Look the order up. Lost orders are refunded; shipped ones wait.")
        out = tmp_path / "refunds.sop.json"
        url = f"http://127.0.0.1:{server.server_port}/v1"
        assert run(["import", str(src), "--from", "prose", "--base-url", url, "--model", "m",
                    "-o", str(out)]) == 0
    finally:
        server.shutdown()
        server.server_close()
    assert [n.id for n in load_sop(out).nodes] == ["1", "2", "3"]
    assert len(seen) == 1 and seen[0]["messages"][1]["content"].startswith("Look the order up")


def test_import_prose_without_model_settings_is_a_clear_error(tmp_path, capsys, monkeypatch):
    for name in ("SOPSTUDIO_BASE_URL", "OPENAI_BASE_URL", "SOPSTUDIO_MODEL"):
        monkeypatch.delenv(name, raising=False)
    src = tmp_path / "p.txt"
    src.write_text("Refund lost orders.")
    assert run(["import", str(src), "--from", "prose", "-o", str(tmp_path / "o.json")]) == 1
    assert "--base-url and --model" in capsys.readouterr().err
    assert run(["import", str(tmp_path / "nope.txt"), "--from", "prose", "-o", "x"]) == 2
