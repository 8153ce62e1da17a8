"""Typed errors of the expression language, each with a 0-based position in the text, and the
shortening of user text that error messages quote (a 5,000-digit number or a 20 KB condition is
quoted as its head and tail around an ellipsis; positions always count in the original text)."""

from __future__ import annotations

from sopstudio.core.errors import SopStudioError

QUOTE_LIMIT = 60      # characters of user text a message quotes at most
EXCERPT_WIDTH = 40    # characters of context shown around an error's position
MARK = "\u25b8"       # ▸ marks the error's position inside an excerpt


def shorten(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` if it is short, else its head and tail joined by an ellipsis (``limit`` chars)."""
    if len(text) <= limit:
        return text
    keep = max(limit - 1, 2)
    head = (keep * 2 + 2) // 3
    return f"{text[:head]}\u2026{text[len(text) - (keep - head):]}"


def quoted(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` shortened and in single quotes, for a message."""
    return f"'{shorten(text, limit)}'"


def excerpt(text: str, position: int, width: int = EXCERPT_WIDTH) -> str:
    """The ``width`` characters of ``text`` around ``position``, with ▸ at the position and an
    ellipsis where text is cut: `…== 'abc' and ▸)…`. Newlines are shown as spaces."""
    start = max(0, min(position - (width * 2) // 3, len(text) - width))
    end = min(len(text), start + width)
    window = text[start:position] + MARK + text[position:end]
    window = window.replace("\n", " ").replace("\r", " ").replace("\t", " ")
    return ("\u2026" if start > 0 else "") + window + ("\u2026" if end < len(text) else "")


class ExprError(SopStudioError):
    """Any problem with a condition or assignment expression.

    ``position`` is a 0-based character offset into ``text`` (or None when the
    whole expression is at fault); ``str()`` reports it 1-based as a column.
    """

    def __init__(self, message: str, position: int | None = None, text: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.position = position
        self.text = text

    def __str__(self) -> str:
        if self.position is None:
            return self.message
        return f"column {self.position + 1}: {self.message}"

    def described(self, width: int = EXCERPT_WIDTH) -> str:
        """``str(self)``, plus an excerpt around the position when the text is too long to
        find column N by eye (the column still counts in the whole text)."""
        if self.position is None or len(self.text) <= width:
            return str(self)
        where = excerpt(self.text, self.position, width)
        return f"column {self.position + 1} (at {where}): {self.message}"

    def locate(self, position: int | None, text: str) -> "ExprError":
        """Fill in where the error happened if a lower layer did not know."""
        if self.position is None:
            self.position = position
        if not self.text:
            self.text = text
        return self


class ExprSyntaxError(ExprError):
    """The text is not a well-formed expression (raised by ``parse``)."""


class ExprEvalError(ExprError):
    """The expression is well formed but cannot be evaluated against this environment.

    ``name`` is the dotted name that was missing, when that was the problem.
    """

    def __init__(
        self,
        message: str,
        position: int | None = None,
        text: str = "",
        name: str | None = None,
    ) -> None:
        super().__init__(message, position, text)
        self.name = name
