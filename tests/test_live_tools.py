"""Live tools (issue 17, item 4): bounded, same-origin, public-only real calls.

Every server here is local (127.0.0.1), so the tools set `allow_private` except in the test that
checks loopback is refused without it. "Terminates" is checked by the call returning.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from sopstudio.core.model import Tool, ToolOutput
from sopstudio.engine.live_tools import call_with_reason, is_public
from sopstudio.engine.tools import MockTools


class Handler(BaseHTTPRequestHandler):
    routes: dict = {}
    hits: list = []
    stop = threading.Event()

    def do_GET(self):
        type(self).hits.append(self.path)
        route = type(self).routes.get(self.path.split("?")[0])
        if route is None:
            self._send(404, b"{}")
        else:
            route(self)

    def _send(self, status: int, body: bytes, headers: dict | None = None):
        self.send_response(status)
        for key, value in (headers or {"Content-Type": "application/json"}).items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def _drip(handler):
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.end_headers()
    try:
        handler.wfile.write(b'{"status": "')
        while not Handler.stop.wait(0.05):
            handler.wfile.write(b"a")
            handler.wfile.flush()
    except OSError:  # the client gave up: that is the point
        pass


@pytest.fixture
def server():
    Handler.routes, Handler.hits = {}, []
    Handler.stop.clear()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    Handler.stop.set()
    httpd.shutdown()
    httpd.server_close()


def tool(url: str, **fields) -> Tool:
    fields.setdefault("allow_private", True)
    return Tool(name="t", url=url, live=True, outputs=[ToolOutput(name="status")], **fields)


def ok(handler):
    handler._send(200, json.dumps({"status": "fine", "other": 1}).encode())


def test_a_normal_reply_maps_outputs(server):
    Handler.routes["/ok"] = ok
    assert call_with_reason(tool(server + "/ok"), {}) == ({"outputs": {"status": "fine"}}, None)


def test_loopback_is_refused_unless_the_tool_allows_it(server):
    Handler.routes["/ok"] = ok
    result, reason = call_with_reason(tool(server + "/ok", allow_private=False), {})
    assert result == {"error": "api_error"} and "allow_private" in reason
    assert Handler.hits == []  # nothing reached the server
    result, _ = call_with_reason(tool("http://localhost:9/x", allow_private=False), {})
    assert result == {"error": "api_error"}


@pytest.mark.parametrize("address", ["127.0.0.1", "10.1.2.3", "192.168.0.1", "172.16.5.4",
                                     "169.254.169.254", "::1", "fe80::1", "::ffff:127.0.0.1",
                                     "0.0.0.0", "224.0.0.1", "fd00::1"])
def test_internal_addresses_are_not_public(address):
    assert not is_public(address)


@pytest.mark.parametrize("address", ["93.184.216.34", "2606:4700::1111", "8.8.8.8"])
def test_public_addresses_are_public(address):
    assert is_public(address)


def test_reply_size_is_capped(server):
    Handler.routes["/big"] = lambda h: h._send(200, b'{"status": "' + b"x" * 5000 + b'"}')
    result, reason = call_with_reason(tool(server + "/big", max_response_bytes=1000), {})
    assert result == {"error": "api_error"} and "larger than 1,000 bytes" in reason


def test_a_dripping_reply_ends_at_the_deadline(server):
    Handler.routes["/drip"] = _drip
    result, reason = call_with_reason(tool(server + "/drip", timeout=0.5), {})
    assert result == {"error": "api_error"} and reason


def test_deep_json_is_an_api_error_not_a_crash(server):
    Handler.routes["/deep"] = lambda h: h._send(200, b"[" * 100_000 + b"]" * 100_000)
    result, reason = call_with_reason(tool(server + "/deep"), {})
    assert result == {"error": "api_error"} and "nested too deeply" in reason


def test_redirects_are_off_by_default_and_same_origin_only(server):
    Handler.routes["/ok"] = ok
    Handler.routes["/here"] = lambda h: h._send(302, b"", {"Location": "/ok"})
    Handler.routes["/away"] = lambda h: h._send(302, b"", {"Location": "http://127.0.0.2:1/"})
    Handler.routes["/ftp"] = lambda h: h._send(302, b"", {"Location": "ftp://127.0.0.1/x"})
    result, reason = call_with_reason(tool(server + "/here"), {})
    assert result == {"error": "api_error"} and "redirect not followed" in reason
    same = tool(server + "/here", redirects="same-origin")
    assert call_with_reason(same, {})[0] == {"outputs": {"status": "fine"}}
    for path in ("/away", "/ftp"):
        result, reason = call_with_reason(tool(server + path, redirects="same-origin"), {})
        assert result == {"error": "api_error"} and "another origin" in reason
    assert Handler.hits.count("/ok") == 1


@pytest.mark.parametrize("url", ["file:///etc/passwd", "gopher://127.0.0.1:70/x", "ftp://x/y"])
def test_only_http_and_https(url):
    result, reason = call_with_reason(tool(url), {})
    assert result == {"error": "api_error"} and "only http and https" in reason


def test_the_refusal_reason_reaches_the_trace_note(server):
    tools = MockTools({"t": tool(server + "/none", allow_private=False)}, allow_live=True)
    assert tools.call("t", {})[0] == {"error": "api_error"}
    assert "allow_private" in tools.live_note("t")
