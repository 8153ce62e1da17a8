"""Keeping secrets and terminal control sequences out of what the app prints.

Pure helpers shared by the CLI (every line it prints goes through `clean_stream`) and the store's
redaction (store/redact.py builds on `strip_userinfo`, `is_secret_key` and `environment_secrets`):
- URL userinfo (`http://user:sk-...@host/v1` -> `http://host/v1`), `sk-...` keys and the values of
  secret-looking environment variables are replaced in messages;
- C0/C1 control characters (ESC sequences could erase a line and print a fake "0 errors") are
  shown escaped as `\\u001b`, which reads clearly and keeps JSON output valid.
"""

from __future__ import annotations

import os
import re
from typing import Any, TextIO

REDACTED = "[redacted]"
MIN_SECRET_LEN = 8  # shorter strings would replace innocent text
_SECRET_WORDS = {"password", "passwd", "passphrase", "secret", "secrets", "authorization",
                 "auth", "bearer", "credential", "credentials", "cookie", "apikey", "token", "key"}
_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
# scheme://USERINFO@ -- the userinfo characters of RFC 3986 (no '/', '@', quotes or spaces).
USERINFO = re.compile(r"\b([A-Za-z][A-Za-z0-9+.\-]*://)([A-Za-z0-9\-._~%!$&'()*+,;=:]+)@")
_KEY = re.compile(r"\bsk-[A-Za-z0-9_\-]{12,}")
# Every C0 control but newline and tab, DEL and the C1 controls.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def is_secret_key(name: str) -> bool:
    """`api_key`, `X-Api-Key`, `Authorization`, `access_token`, `password` -- but not
    `max_tokens` or `author`."""
    words = [w.lower() for w in _WORDS.findall(str(name))]
    joined = "".join(words)
    return bool(_SECRET_WORDS.intersection(words)) or "apikey" in joined or "password" in joined


def environment_secrets() -> set[str]:
    return {value for key, value in os.environ.items()
            if is_secret_key(key) and len(value) >= MIN_SECRET_LEN}


def strip_userinfo(text: str) -> str:
    """`text` with the `user:password@` part of every URL in it removed."""
    return USERINFO.sub(r"\1", text) if "@" in text else text  # cheap test first


def redact_message(text: str) -> str:
    """A message with URL userinfo, `sk-` keys and environment secrets removed."""
    text = _KEY.sub(REDACTED, strip_userinfo(text))
    for secret in environment_secrets():
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


def escape_controls(text: str) -> str:
    """Control characters (other than newline and tab) shown as `\\u001b`."""
    return _CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


class CleanStream:
    """A text stream that escapes control characters (and, with `redact`, secrets) in what is
    written to it; everything else (buffer, isatty, encoding...) is the wrapped stream's."""

    def __init__(self, stream: TextIO, redact: bool = False) -> None:
        self._stream, self._redact = stream, redact

    def write(self, text: str) -> int:
        text = escape_controls(text)
        self._stream.write(redact_message(text) if self._redact else text)
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
