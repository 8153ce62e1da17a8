"""Argument parsing and dispatch for `sopstudio`.

Each module in `sopstudio.commands` is one subcommand: it defines `NAME`, `HELP`,
`add_arguments(parser)` and `run(args) -> int`. Errors we raise on purpose become one line on
stderr; unexpected exceptions too (with a hint to file a bug), never a traceback.

Logging is configured here, once per process: the `sopstudio` loggers print warnings to stderr in
the same one-line style ("sopstudio: warning: ..."); `--verbose` or `SOPSTUDIO_LOG=debug` (any
level name) shows more, including the traceback of an internal error.
"""

from __future__ import annotations

import argparse
import importlib
import logging
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
LOG_ENV = "SOPSTUDIO_LOG"
log = logging.getLogger(__name__)


class _OneLineHandler(logging.StreamHandler):
    """Writes "sopstudio: warning: text" like the CLI's error lines; tracebacks only if verbose."""

    def __init__(self, stream, verbose: bool):
        super().__init__(stream if stream is not None else sys.stderr)
        self.follow_stderr = stream is None  # whatever sys.stderr is when a record comes
        self.verbose = verbose

    def emit(self, record: logging.LogRecord) -> None:
        if self.follow_stderr:
            self.stream = sys.stderr
        super().emit(record)

    def format(self, record: logging.LogRecord) -> str:
        line = f"sopstudio: {record.levelname.lower()}: {record.getMessage()}"
        if self.verbose and record.exc_info:
            line += "\n" + logging.Formatter().formatException(record.exc_info)
        return line


def log_level(verbose: bool, env: str | None) -> int:
    """DEBUG with --verbose, else the level named by SOPSTUDIO_LOG (default WARNING)."""
    if verbose:
        return logging.DEBUG
    level = logging.getLevelName((env or "").strip().upper() or "WARNING")
    return level if isinstance(level, int) else logging.WARNING


def configure_logging(verbose: bool = False, stream=None) -> logging.Handler:
    """Send the `sopstudio` loggers to stderr (once per process; a second call replaces the
    handler) and return the handler."""
    logger = logging.getLogger("sopstudio")
    for old in [h for h in logger.handlers if isinstance(h, _OneLineHandler)]:
        logger.removeHandler(old)
    level = log_level(verbose, os.environ.get(LOG_ENV))
    handler = _OneLineHandler(stream, verbose=level <= logging.DEBUG)
    logger.addHandler(handler)
    logger.setLevel(level)
    return handler


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
    parser.add_argument("--verbose", action="store_true",
                        help=f"log debug messages to stderr (also: {LOG_ENV}=debug)")
    # Subparsers are built with the parent's class, so they report errors the same way.
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    handlers = {}
    for module in _command_modules():
        command = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(command)
        # also after the command name; SUPPRESS keeps a flag given before it
        command.add_argument("--verbose", action="store_true", default=argparse.SUPPRESS,
                             help="log debug messages to stderr")
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
    configure_logging(verbose=args.verbose)
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
    except Exception as error:
        log.debug("internal error in %s", args.command, exc_info=True)
        print(f"sopstudio {args.command}: internal error: {error.__class__.__name__}: {error} "
              "(please report this)", file=sys.stderr)
        return 1
