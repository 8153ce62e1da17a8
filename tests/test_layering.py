"""Layering rules of DESIGN §1 that import-linter's static contracts (pyproject.toml, run by
`make test`) do not see: the Qt-free packages really import with PySide6 absent (lazy and
dynamic imports included), openai is imported in one engine module, and nothing evaluates text."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "sopstudio"
QT_FREE = ("core", "formats", "engine", "store")

BLOCKER = r"""
import importlib, pkgutil, sys

class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in ('PySide6', 'shiboken6') or name.startswith('sopstudio.qt'):
            raise ImportError('blocked by layering test: ' + name)
        return None

sys.meta_path.insert(0, Block())
import sopstudio
for package in %r:
    root = importlib.import_module('sopstudio.' + package)
    for info in pkgutil.walk_packages(root.__path__, root.__name__ + '.'):
        importlib.import_module(info.name)
import sopstudio.cli_main
sopstudio.cli_main.build_parser()
print('ok')
"""


def test_core_formats_engine_store_import_without_qt():
    result = subprocess.run([sys.executable, "-c", BLOCKER % (QT_FREE,)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("ok")


def test_openai_is_imported_in_one_engine_module_only():
    pattern = re.compile(r"^\s*(from|import)\s+openai\b", re.M)
    users = sorted(p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py")
                   if pattern.search(p.read_text()))
    assert users in ([], ["engine/llm_client.py"])


def test_no_eval_or_exec_anywhere():
    pattern = re.compile(r"(?<![\w.])(eval|exec|compile)\s*\(|literal_eval")
    offenders = [str(p) for p in PACKAGE.rglob("*.py") if pattern.search(p.read_text())]
    assert offenders == []
