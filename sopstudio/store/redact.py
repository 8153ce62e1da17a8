"""Keep secrets out of the store: API keys, tokens, passwords and authorization headers.

Run settings lose every key whose name looks secret (recursively) and every value that looks
like a credential (`Bearer ...`, `sk-...`). The values removed, plus the secrets found in the
environment, are remembered so that a copy echoed into a trace event is replaced too.
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
    return data


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
    """Replace every known secret value inside already-serialised text."""
    for secret in secrets:
        if len(secret) >= MIN_SECRET_LEN and secret in text:
            text = text.replace(secret, REDACTED)
    return text
