"""Argument parsing and dispatch for `sopstudio`.

Each module in `sopstudio.commands` is one subcommand: it defines `NAME`, `HELP`,
`add_arguments(parser)` and `run(args) -> int`. Errors we raise on purpose become one line on
stderr; unexpected exceptions too (with a hint to file a bug), never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from . import __version__, commands
from .core.errors import SopStudioError

# Exit code for "the input file could not be read" (DESIGN §9).
EXIT_UNREADABLE = 2


def _command_modules():
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda i: i.name):
        if not info.name.startswith("_"):
            yield importlib.import_module(f"{commands.__name__}.{info.name}")


def build_parser() -> tuple[argparse.ArgumentParser, dict]:
    parser = argparse.ArgumentParser(prog="sopstudio", description="SOP Studio")
    parser.add_argument("--version", action="version", version=f"sopstudio {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    handlers = {}
    for module in _command_modules():
        command = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(command)
        handlers[module.NAME] = module.run
    return parser, handlers


def run(argv: list[str]) -> int:
    parser, handlers = build_parser()
    # `sopstudio` and `sopstudio FILE` open the application.
    if not argv or (argv[0] not in handlers and not argv[0].startswith("-")):
        argv = ["gui", *argv]
    args = parser.parse_args(argv)
    try:
        return handlers[args.command](args)
    except SopStudioError as error:
        print(f"sopstudio {args.command}: {error}", file=sys.stderr)
        return getattr(error, "exit_code", 1)
    except KeyboardInterrupt:
        print("sopstudio: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as error:  # noqa: BLE001 - last line of defence: one line, no traceback
        print(f"sopstudio {args.command}: internal error: {error.__class__.__name__}: {error} "
              "(please report this)", file=sys.stderr)
        return 1
