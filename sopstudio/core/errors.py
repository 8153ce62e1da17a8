"""Typed errors raised by the core; the CLI turns them into one clear line."""

from __future__ import annotations


class SopStudioError(Exception):
    """Base class for every error we raise on purpose."""


class LoadError(SopStudioError):
    """A file could not be read as an SOP document (names the file and the field)."""


class EditError(SopStudioError):
    """An edit is illegal on the current document (unknown id, duplicate id, ...)."""
