"""Typed errors of the expression language, each with a 0-based position in the text."""

from __future__ import annotations

from sopstudio.core.errors import SopStudioError


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
