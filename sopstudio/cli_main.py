"""Argument parsing and dispatch for `sopstudio`.

Each module in `sopstudio.commands` is one subcommand: it defines `NAME`, `HELP`,
`add_arguments(parser)` and `run(args) -> int`. Errors we raise on purpose become one line on
stderr; unexpected exceptions too (with a hint to file a bug), never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from pathlib import Path

from . import __version__, commands
from .commands._common import UsageError
from .core.errors import SopStudioError
from .core.hygiene import CleanStream

# Exit code for usage errors (argparse's own; DESIGN §9 gives unreadable input files the same).
EXIT_USAGE = 2


def usage_error_line(prog: str, message: str) -> str:
    return f"{prog}: error: {message} (see {prog} --help)"


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line on stderr (not usage + message)."""

    def error(self, message: str):
        self.exit(EXIT_USAGE, usage_error_line(self.prog, message) + "\n")


def _command_modules():
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda i: i.name):
        if not info.name.startswith("_"):
            yield importlib.import_module(f"{commands.__name__}.{info.name}")


def build_parser() -> tuple[argparse.ArgumentParser, dict]:
    parser = Parser(prog="sopstudio", description="SOP Studio")
    parser.add_argument("--version", action="version", version=f"sopstudio {__version__}")
    # Subparsers are built with the parent's class, so they report errors the same way.
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    handlers = {}
    for module in _command_modules():
        command = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(command)
        handlers[module.NAME] = module.run
    return parser, handlers


def looks_like_file(word: str) -> bool:
    """Whether a first argument that is no command names a file to open (else: a typo)."""
    seps = {os.sep, "/"} | ({os.altsep} if os.altsep else set())
    return Path(word).exists() or "." in word or any(sep in word for sep in seps)


def run(argv: list[str]) -> int:
    """Run one command. Everything printed meanwhile passes through `CleanStream`: control
    characters escaped, and on stderr URL userinfo and keys redacted (core/hygiene.py)."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = CleanStream(out), CleanStream(err, redact=True)
    try:
        return _run(argv)
    finally:
        sys.stdout, sys.stderr = out, err


def _run(argv: list[str]) -> int:
    parser, handlers = build_parser()
    # `sopstudio` and `sopstudio FILE` open the application; `sopstudio frobnicate` is a typo
    # for argparse to report ("invalid choice"), not a file the GUI cannot read.
    if not argv or (argv[0] not in handlers and not argv[0].startswith("-")
                    and looks_like_file(argv[0])):
        argv = ["gui", *argv]
    args = parser.parse_args(argv)
    if args.command is None:  # defensive: subcommands are optional to argparse
        parser.error("a COMMAND or FILE is needed")
    try:
        return handlers[args.command](args)
    except UsageError as error:
        print(usage_error_line(f"sopstudio {args.command}", str(error)), file=sys.stderr)
        return error.exit_code
    except SopStudioError as error:
        print(f"sopstudio {args.command}: {error}", file=sys.stderr)
        return getattr(error, "exit_code", 1)
    except KeyboardInterrupt:
        print("sopstudio: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except RecursionError:  # a structure too deep for a walker that escaped the input limits
        print(f"sopstudio {args.command}: the input is nested too deeply to process",
              file=sys.stderr)
        return EXIT_USAGE
    except Exception as error:  # noqa: BLE001 - last line of defence: one line, no traceback
        print(f"sopstudio {args.command}: internal error: {error.__class__.__name__}: {error} "
              "(please report this)", file=sys.stderr)
        return 1
