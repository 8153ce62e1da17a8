"""Helpers shared by subcommands: loading a file with the right exit code, printing JSON."""

from __future__ import annotations

import json
import sys
from typing import Any

from ..core.errors import LoadError, SopStudioError
from ..core.io import load_sop
from ..core.model import SOP


class UnreadableFile(LoadError):
    """A command's input file cannot be read: exit code 2 (DESIGN §9)."""

    exit_code = 2


class UsageError(SopStudioError):
    """Arguments that parse but do not make sense together; printed like an argparse error."""

    exit_code = 2


IMPORT_HINT = "(to read other formats use: sopstudio import FILE -o OUT.sop.json)"


def load_or_exit(path: str, strict: bool = True) -> SOP:
    try:
        return load_sop(path, strict=strict)
    except LoadError as error:
        message = str(error)
        # A .dot/.mmd/.txt file given where a .sop.json is expected: say how to convert it.
        if "not valid JSON" in message and not str(path).lower().endswith(".json"):
            message = f"{message} {IMPORT_HINT}"
        raise UnreadableFile(message) from None


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
