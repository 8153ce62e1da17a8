"""Tools marked `live` call their HTTP endpoint (a stdlib server on 127.0.0.1) only when live
calls are allowed; otherwise they are mocked with a note; an HTTP error is an `api_error`."""

from __future__ import annotations

import json

from sopstudio.engine.agents.scripted import ScriptedAgent
from sopstudio.engine.compiled import CompiledSop
from sopstudio.engine.orchestrator import Orchestrator
from sopstudio.engine.orchestrator_replay import replay
from sopstudio.engine.tools import MockTools
from sopstudio.engine.users import ScriptedUser

from helpers import sop_of


def live_sop(url):
    return sop_of(
        [{"id": "a", "kind": "task", "ask": ["order_id"], "tools": ["lookup", "refund"]},
         {"id": "b", "kind": "end"}],
        [{"id": "e1", "source": "a", "target": "b"}],
        tools=[{"name": "lookup", "method": "GET", "url": url + "/orders/{order_id}",
                "live": True, "allow_private": True,  # the test server is on 127.0.0.1
                "parameters": {"type": "object", "properties": {
                    "order_id": {"type": "string"}}},
                "outputs": [{"name": "status", "type": "string"}]},
               {"name": "refund", "method": "POST", "url": url + "/refunds", "live": True,
                "allow_private": True,
                "parameters": {"type": "object", "properties": {
                    "order_id": {"type": "string"}, "status": {"type": "string"}}},
                "outputs": [{"name": "refund_id", "type": "string"}]}],
        variables=[{"name": "order_id", "type": "string", "source": "user"}])


class Endpoint:
    """A stdlib HTTP server on 127.0.0.1 recording requests; GET /orders/<id>, POST /refunds."""

    def __enter__(self):
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        seen = self.seen = []

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, code, body):
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                seen.append(("GET", self.path, None))
                if self.path == "/orders/A%2F1":
                    self._send(200, {"status": "shipped", "extra": 1})
                else:
                    self._send(404, {"error": "not found"})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                seen.append(("POST", self.path, body))
                self._send(200, {"refund_id": "R9"})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def run_live(sop, order_id, allow_live):
    cs = CompiledSop(sop)
    tools = MockTools(cs.tools, {}, allow_live=allow_live)
    return Orchestrator(cs, ScriptedAgent(cs), ScriptedUser({"order_id": order_id}), tools).run()


def test_live_tools_call_the_endpoint_only_when_allowed():
    with Endpoint() as server:
        trace = run_live(live_sop(server.url), "A/1", allow_live=True)
        assert server.seen == [("GET", "/orders/A%2F1", None),
                               ("POST", "/refunds", {"order_id": "A/1", "status": "shipped"})]
        results = [e.result for e in trace.events if e.type == "tool_result"]
        assert results == [{"outputs": {"status": "shipped"}}, {"outputs": {"refund_id": "R9"}}]
        assert not [e for e in trace.events if e.type == "note"]
        server.seen.clear()
        off = run_live(live_sop(server.url), "A/1", allow_live=False)
        assert server.seen == []  # mocked
        notes = [e for e in off.events if e.type == "note"]
        assert [n.tool for n in notes] == ["lookup", "refund"]
        assert "live calls are off" in notes[0].text
        assert [e.to_dict() for e in replay(CompiledSop(live_sop(server.url)), off).events] == \
            [e.to_dict() for e in off.events]


def test_live_http_error_is_api_error():
    with Endpoint() as server:
        trace = run_live(live_sop(server.url), "nosuch", allow_live=True)
    results = [e.result for e in trace.events if e.type == "tool_result"]
    assert results and all(r == {"error": "api_error"} for r in results)
    assert trace.outcome == "technical-issue"
