"""Keep secrets out of the store: API keys, tokens, passwords and authorization headers.

Run settings lose every key whose name looks secret (recursively) and every value that looks
like a credential (`Bearer ...`, `sk-...`); URLs in string values lose their userinfo
(`http://user:pass@host/v1` -> `http://host/v1`, e.g. a `--base-url`; the pure helpers live in
core/hygiene.py, shared with the CLI's output). The values removed, plus
the secrets found in the environment, are remembered so that a copy echoed into a trace event is
replaced too; `scrub_text` also strips userinfo from any URL in the text it is given.
"""

from __future__ import annotations

import re
from typing import Any

from ..core.hygiene import (MIN_SECRET_LEN, REDACTED, USERINFO as _USERINFO,  # noqa: F401
                            environment_secrets, is_secret_key, strip_userinfo)

_SECRET_VALUE = re.compile(r"^\s*(bearer|basic)\s+\S+|\bsk-[A-Za-z0-9_\-]{12,}", re.IGNORECASE)


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


def scrub_text(text: str, secrets: set[str]) -> str:
    """Strip URL userinfo, then replace every known secret value, inside already-serialised
    text."""
    text = strip_userinfo(text)
    for secret in secrets:
        if len(secret) >= MIN_SECRET_LEN and secret in text:
            text = text.replace(secret, REDACTED)
    return text
