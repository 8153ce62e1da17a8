"""A tiny OpenAI-compatible chat-completions server for tests (stdlib only, 127.0.0.1 only).

    with FakeLLMServer([reply("hello"), tool("lookup", {"id": "A1"})]) as server:
        client = openai.OpenAI(base_url=server.url, api_key="test")

Each POST /v1/chat/completions consumes the next scripted step (or asks `handler(body)`); a step
is a dict made by the helpers below (`reply`, `tool`, `status`, `garbage`, `slow`) or a callable
`body -> step`. GET /v1/models lists the model. Every request body is kept in `requests` (parsed
JSON) and its headers in `headers`, so tests can assert what the client sent.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


def reply(text: str) -> dict:
    """A plain assistant message."""
    return {"content": text}


def tool(name: str, arguments: Any, text: str | None = None) -> dict:
    """One tool call; `arguments` is a dict (sent as JSON) or a raw string (sent as is)."""
    return {"content": text, "tool_calls": [(name, arguments)]}


def status(code: int, message: str = "server error") -> dict:
    return {"status": code, "body": {"error": {"message": message, "type": "server_error"}}}


def garbage(text: str = "<<this is not json>>") -> dict:
    return {"raw": text}


def slow(seconds: float, step: dict | None = None) -> dict:
    """Wait before answering (forces a client timeout when longer than its timeout)."""
    return {**(step or reply("late")), "delay": seconds}


def completion(step: dict, index: int, model: str) -> dict:
    calls = [{"id": f"call_{index}_{i}", "type": "function",
              "function": {"name": name,
                           "arguments": args if isinstance(args, str) else json.dumps(args)}}
             for i, (name, args) in enumerate(step.get("tool_calls") or [])]
    message = {"role": "assistant", "content": step.get("content")}
    if calls:
        message["tool_calls"] = calls
    return {"id": f"chatcmpl-{index}", "object": "chat.completion", "created": 1700000000,
            "model": model, "choices": [{"index": 0, "message": message,
                                         "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


class FakeLLMServer:
    def __init__(self, steps: list | None = None, handler: Callable[[dict], dict] | None = None,
                 model: str = "fake-model"):
        self.steps = list(steps or [])
        self.handler = handler
        self.model = model
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def start(self) -> "FakeLLMServer":
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,),
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes handlers sleeping in a `slow` step
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._thread.join(timeout=5)

    def __enter__(self) -> "FakeLLMServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def next_step(self, body: dict) -> tuple[int, dict]:
        with self._lock:
            index = len(self.requests)
            self.requests.append(body)
            if self.handler is not None:
                step = self.handler(body)
            elif self.steps:
                step = self.steps.pop(0)
            else:
                step = status(500, "script exhausted")
        if callable(step):
            step = step(body)
        return index, step

    def sleep(self, seconds: float) -> None:
        self._stopping.wait(seconds)


def _make_handler(server: FakeLLMServer):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:  # keep test output clean
            pass

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._send(200, {"object": "list", "data": [
                    {"id": server.model, "object": "model", "created": 0, "owned_by": "test"}]})
            else:
                self._send(404, {"error": {"message": "not found"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(404, {"error": {"message": "not found"}})
                return
            with server._lock:
                server.headers.append(dict(self.headers))
            index, step = server.next_step(json.loads(raw or b"{}"))
            if step.get("delay"):
                server.sleep(step["delay"])
            if "raw" in step:
                self._send_bytes(200, step["raw"].encode())
            elif "status" in step:
                self._send(step["status"], step["body"])
            else:
                self._send(200, completion(step, index, server.model))

        def _send(self, code: int, payload: dict) -> None:
            self._send_bytes(code, json.dumps(payload).encode())

        def _send_bytes(self, code: int, data: bytes) -> None:
            try:
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout): nothing to deliver

    return Handler
