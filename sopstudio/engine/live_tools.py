"""Calling a tool's real endpoint (a tool with `live: true`, only when a run allows it).

`call_endpoint(tool, arguments)` sends `tool.method` to `tool.url` with every `{param}` of the URL
replaced by its argument (URL-quoted); the other arguments go in the query string for GET and
DELETE, else as a JSON body. The reply's JSON object is mapped to the tool's outputs by name
(missing outputs are left out). Any transport or HTTP error, a timeout or a reply that is not a
JSON object gives ``{"error": "api_error"}`` — the run treats it like a mocked failure.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.parse
import urllib.request

from ..core.model import Tool

TIMEOUT = 10.0
API_ERROR = {"error": "api_error"}
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def build_request(tool: Tool, arguments: dict) -> urllib.request.Request:
    used = set(_PLACEHOLDER.findall(tool.url))
    url = _PLACEHOLDER.sub(lambda m: urllib.parse.quote(str(arguments.get(m.group(1), "")),
                                                        safe=""), tool.url)
    rest = {k: v for k, v in arguments.items() if k not in used}
    method = (tool.method or "GET").upper()
    data, headers = None, {"Accept": "application/json"}
    if method in ("GET", "DELETE"):
        if rest:
            url += ("&" if "?" in url else "?") + urllib.parse.urlencode(
                {k: v if isinstance(v, str) else json.dumps(v) for k, v in rest.items()})
    else:
        data = json.dumps(rest).encode("utf-8")
        headers["Content-Type"] = "application/json"
    return urllib.request.Request(url, data=data, headers=headers, method=method)


def call_endpoint(tool: Tool, arguments: dict, timeout: float = TIMEOUT) -> dict:
    """{"outputs": {...}} from the real endpoint, or {"error": "api_error"}."""
    try:
        request = build_request(tool, arguments)
        if request.type not in ("http", "https"):  # never file:// or other schemes
            return dict(API_ERROR)
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            body = json.loads(reply.read().decode("utf-8") or "null")
    except (urllib.error.URLError, OSError, ValueError):  # HTTPError is a URLError
        return dict(API_ERROR)
    if not isinstance(body, dict):
        return dict(API_ERROR)
    return {"outputs": {o.name: body[o.name] for o in tool.outputs if o.name in body}}
