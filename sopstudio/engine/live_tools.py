"""Calling a tool's real endpoint (a tool with `live: true`, only when a run allows it).

`call_endpoint(tool, arguments)` sends `tool.method` to `tool.url` with every `{param}` of the URL
replaced by its argument (URL-quoted); the other arguments go in the query string for GET and
DELETE, else as a JSON body. The reply's JSON object is mapped to the tool's outputs by name
(missing outputs are left out). Any failure gives ``{"error": "api_error"}`` — the run treats it
like a mocked failure — and `last_refusal` says why for the trace's note.

A shared SOP must not be able to aim the app at anything but the public service it names, nor
exhaust it, so every call is bounded (stdlib `http.client`, checked by hand):
- only `http` and `https`;
- the host is resolved ONCE and the connection goes to that checked address (no DNS rebinding);
  loopback, private, link-local (cloud metadata 169.254.169.254), multicast, reserved and
  unspecified addresses are refused unless the tool sets `allow_private: true`;
- redirects are not followed (`redirects: "same-origin"` follows up to MAX_REDIRECTS to the same
  scheme, host and port);
- one total deadline per call, connection and every read included (a reply dripping one byte a
  second ends at the deadline): the tool's `timeout`, else DEADLINE seconds;
- the reply body is read up to a size cap (the tool's `max_response_bytes`, else MAX_RESPONSE);
- the JSON reply is parsed with core.inputs' nesting and number limits.
"""

from __future__ import annotations

import http.client
import ipaddress
import json
import re
import socket
import ssl
import time
import urllib.parse

from ..core.inputs import InputError, loads_json
from ..core.model import Tool

DEADLINE = 10.0                  # seconds per call, everything included
MAX_RESPONSE = 1 << 20           # bytes of reply body (1 MiB)
MAX_REDIRECTS = 3
API_ERROR = {"error": "api_error"}
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_DEFAULT_PORTS = {"http": 80, "https": 443}


class Refused(Exception):
    """The call is not made or is cut (the message says why, for the trace's note)."""


def build_url(tool: Tool, arguments: dict) -> tuple[str, str, bytes | None, dict]:
    """(method, url, body, headers) of the request for `arguments`."""
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
    return method, url, data, headers


def call_endpoint(tool: Tool, arguments: dict, timeout: float | None = None) -> dict:
    """{"outputs": {...}} from the real endpoint, or {"error": "api_error"}."""
    result, _reason = call_with_reason(tool, arguments, timeout)
    return result


def call_with_reason(tool: Tool, arguments: dict,
                     timeout: float | None = None) -> tuple[dict, str | None]:
    """The result and, on failure, why (a plain sentence)."""
    deadline = time.monotonic() + (timeout or tool.timeout or DEADLINE)
    try:
        method, url, data, headers = build_url(tool, arguments)
        body = _fetch(tool, method, url, data, headers, deadline)
        reply = loads_json(body.decode("utf-8") or "null", "reply")
    except Refused as error:
        return dict(API_ERROR), str(error)
    except (OSError, http.client.HTTPException, ValueError, InputError) as error:
        return dict(API_ERROR), f"the call failed ({error.__class__.__name__}: {error})"
    if not isinstance(reply, dict):
        return dict(API_ERROR), "the reply is not a JSON object"
    return {"outputs": {o.name: reply[o.name] for o in tool.outputs if o.name in reply}}, None


def _fetch(tool: Tool, method: str, url: str, data, headers, deadline: float) -> bytes:
    origin = None
    for _ in range(MAX_REDIRECTS + 1):
        parts = urllib.parse.urlsplit(url)
        here = (parts.scheme, parts.hostname, parts.port)
        if origin is not None and here != origin:
            raise Refused(f"redirect to another origin refused ({parts.scheme}://"
                          f"{parts.hostname})")
        origin = origin or here
        status, location, body = _request(tool, method, parts, data, headers, deadline)
        if status in (301, 302, 303, 307, 308) and location:
            if tool.redirects != "same-origin":
                raise Refused(f"redirect not followed (HTTP {status}; the tool's redirects "
                              f"setting is off)")
            url = urllib.parse.urljoin(url, location)
            if status == 303:
                method, data = "GET", None
            continue
        if status >= 400:
            raise Refused(f"HTTP {status}")
        return body
    raise Refused(f"more than {MAX_REDIRECTS} redirects")


def _request(tool: Tool, method: str, parts, data, headers, deadline: float):
    if parts.scheme not in _DEFAULT_PORTS:
        raise Refused(f"scheme {parts.scheme or '(none)'!r} refused (only http and https)")
    if not parts.hostname:
        raise Refused("the URL names no host")
    port = parts.port or _DEFAULT_PORTS[parts.scheme]
    _left(deadline)
    address = _resolve(parts.hostname, port, tool.allow_private)
    conn, sock = _connection(parts.scheme, parts.hostname, address, port, _left(deadline))
    try:
        path = parts.path or "/"
        if parts.query:
            path += "?" + parts.query
        host = parts.hostname if port == _DEFAULT_PORTS[parts.scheme] else \
            f"{parts.hostname}:{port}"
        conn.request(method, path, body=data, headers={**headers, "Host": host})
        reply = conn.getresponse()
        limit = tool.max_response_bytes or MAX_RESPONSE
        body = _read_capped(sock, reply, limit, deadline)
        return reply.status, reply.getheader("Location"), body
    finally:
        conn.close()


def _left(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise Refused("the call took longer than its deadline")
    return left


def _resolve(host: str, port: int, allow_private: bool) -> str:
    """One resolution; the first address, refused if it is not public (unless allowed)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        raise Refused(f"cannot resolve {host} ({error.strerror})") from None
    address = str(infos[0][4][0])
    if not allow_private and not is_public(address):
        raise Refused(f"{host} resolves to {address}, a private, loopback or link-local "
                      f"address; set allow_private on the tool to call it")
    return address


def is_public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%")[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return not (ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_multicast
                or ip.is_reserved or ip.is_unspecified)


def _connection(scheme: str, host: str, address: str, port: int, timeout: float):
    """A connection to the checked `address` (TLS still verifies the certificate of `host`)."""
    sock = socket.create_connection((address, port), timeout=timeout)
    if scheme == "https":
        sock = ssl.create_default_context().wrap_socket(sock, server_hostname=host)
    conn = http.client.HTTPConnection(address, port, timeout=timeout)
    conn.sock = sock  # already connected to the checked address: no second lookup
    return conn, sock  # the connection drops `sock` once the reply says "close"


def _read_capped(sock, reply, limit: int, deadline: float) -> bytes:
    """The body, at most `limit` bytes, every read bounded by what is left of the deadline."""
    chunks, total = [], 0
    while True:
        sock.settimeout(_left(deadline))
        chunk = reply.read1(min(65536, limit + 1 - total)) if total <= limit else b""
        if not chunk:
            break
        total += len(chunk)
        if total > limit:
            raise Refused(f"the reply is larger than {limit:,} bytes")
        chunks.append(chunk)
    return b"".join(chunks)
