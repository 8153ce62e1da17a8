"""Keep secrets out of the store: API keys, tokens, passwords and authorization headers.

Run settings lose every key whose name looks secret (recursively) and every value that looks
like a credential (`Bearer ...`, `sk-...`); URLs in string values lose their userinfo
(`http://user:pass@host/v1` -> `http://host/v1`, e.g. a `--base-url`). The values removed, plus
the secrets found in the environment, are remembered so that a copy echoed into a trace event is
replaced too; `scrub_text` also strips userinfo from any URL in the text it is given.
"""

from __future__ import annotations

import os
import re
from typing import Any

REDACTED = "[redacted]"
_SECRET_WORDS = {"password", "passwd", "passphrase", "secret", "secrets", "authorization",
                 "auth", "bearer", "credential", "credentials", "cookie", "apikey", "token", "key"}
_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
_SECRET_VALUE = re.compile(r"^\s*(bearer|basic)\s+\S+|\bsk-[A-Za-z0-9_\-]{12,}", re.IGNORECASE)
MIN_SECRET_LEN = 8  # shorter strings would replace innocent text
# scheme://USERINFO@ -- the userinfo characters of RFC 3986 (no '/', '@', quotes or spaces).
_USERINFO = re.compile(r"\b([A-Za-z][A-Za-z0-9+.\-]*://)([A-Za-z0-9\-._~%!$&'()*+,;=:]+)@")


def is_secret_key(name: str) -> bool:
    """`api_key`, `X-Api-Key`, `Authorization`, `access_token`, `password` -- but not
    `max_tokens` or `author`."""
    words = [w.lower() for w in _WORDS.findall(str(name))]
    joined = "".join(words)
    return bool(_SECRET_WORDS.intersection(words)) or "apikey" in joined or "password" in joined


def looks_secret(value: Any) -> bool:
    return isinstance(value, str) and bool(_SECRET_VALUE.search(value))


def strip_secrets(data: Any, found: set[str] | None = None) -> Any:
    """A copy of `data` without secret keys or credential-looking values; their string values
    are added to `found`."""
    found = found if found is not None else set()
    if isinstance(data, dict):
        clean = {}
        for key, value in data.items():
            if is_secret_key(key):
                _collect(value, found)
            elif looks_secret(value):
                found.add(value)
            else:
                clean[key] = strip_secrets(value, found)
        return clean
    if isinstance(data, (list, tuple)):
        kept = [v for v in data if not looks_secret(v)]
        found.update(v for v in data if looks_secret(v))
        return [strip_secrets(v, found) for v in kept]
    if isinstance(data, str):
        return _strip_userinfo(data, found)
    return data


def strip_userinfo(text: str) -> str:
    """`text` with the `user:password@` part of every URL in it removed."""
    # Cheap test first: this runs on every stored trace event.
    return _USERINFO.sub(r"\1", text) if "@" in text else text


def _strip_userinfo(text: str, found: set[str]) -> str:
    """Like `strip_userinfo`, remembering the original text and the passwords, so that an echo
    of either in a trace event is scrubbed (and `found` is not empty, so events get scrubbed)."""
    clean = strip_userinfo(text)
    if clean != text:
        found.add(text)
        for match in _USERINFO.finditer(text):
            _, _, password = match.group(2).partition(":")
            if len(password) >= MIN_SECRET_LEN:
                found.add(password)
    return clean


def _collect(value: Any, found: set[str]) -> None:
    if isinstance(value, str):
        found.add(value)
        # "Bearer sk-..." -> also the bare token, which may be echoed on its own.
        found.update(part for part in value.split() if len(part) >= MIN_SECRET_LEN)
    elif isinstance(value, dict):
        for item in value.values():
            _collect(item, found)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _collect(item, found)


def environment_secrets() -> set[str]:
    return {value for key, value in os.environ.items()
            if is_secret_key(key) and len(value) >= MIN_SECRET_LEN}


def scrub_text(text: str, secrets: set[str]) -> str:
    """Strip URL userinfo, then replace every known secret value, inside already-serialised
    text."""
    text = strip_userinfo(text)
    for secret in secrets:
        if len(secret) >= MIN_SECRET_LEN and secret in text:
            text = text.replace(secret, REDACTED)
    return text
