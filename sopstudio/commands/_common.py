"""Helpers shared by subcommands: loading a file with the right exit code, printing JSON."""

from __future__ import annotations

import json
import sys
from typing import Any

from ..core.errors import LoadError
from ..core.io import load_sop
from ..core.model import SOP


class UnreadableFile(LoadError):
    """A command's input file cannot be read: exit code 2 (DESIGN §9)."""

    exit_code = 2


def load_or_exit(path: str, strict: bool = True) -> SOP:
    try:
        return load_sop(path, strict=strict)
    except LoadError as error:
        raise UnreadableFile(str(error)) from None


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
