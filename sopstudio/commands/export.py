"""`sopstudio export FILE --to FORMAT -o OUT`: write a .sop.json in another format.

`-o -` writes text formats to standard output (binary ones go to a pipe with `-o /dev/stdout`);
a device or FIFO is written to, never replaced. Nothing is written unless the export succeeds.
A format that cannot carry part of the SOP says what it drops on stderr (`note: FMT drops: ...`,
from formats.losses, the list the GUI's export dialog shows); an SOP with validation errors is
exported with a warning. With `-o -` both stay unsaid: the command is then part of a pipe.
"""

from __future__ import annotations

import sys

from ..core.validate import validate
from ..formats import EXPORT_FORMATS, FormatError, export_sop
from ..formats.losses import losses
from ..formats.output import write_atomic
from ._common import load_or_exit

NAME = "export"
HELP = "export an SOP as JSON, pseudocode, JourneyBench, DOT/SVG/PNG, Mermaid, tools or prompts"


def add_arguments(parser) -> None:
    parser.add_argument("file", metavar="FILE", help="the .sop.json to export")
    parser.add_argument("--to", dest="fmt", choices=EXPORT_FORMATS, required=True,
                        help="output format; the prompt formats write what an agent sends: "
                             "spa-prompt, react-prompt (text), dpa-prompts, sop-agent-prompts, "
                             "agent-s-prompts, marco-prompts (JSON: per node the templates "
                             "and functions)")
    parser.add_argument("-o", "--output", required=True, metavar="OUT",
                        help="where to write ('-' for standard output)")


def run(args) -> int:
    if not args.output.strip():
        raise FormatError("no output path (give a file name with -o, or '-' for standard output)")
    sop = load_or_exit(args.file)
    data = export_sop(sop, args.fmt)
    if args.output == "-" and isinstance(data, bytes):
        raise FormatError(f"{args.fmt} is binary; give a file name with -o (or -o /dev/stdout "
                          f"into a pipe)")
    if args.output != "-":  # `-o -` feeds a pipe and stays quiet (tests/test_safe_writes.py)
        _notes(sop, args.file, args.fmt)
    write_atomic(args.output, data)
    if args.output != "-":
        print(f"exported {args.file} ({args.fmt}) -> {args.output}", file=sys.stderr)
    return 0


def _notes(sop, path: str, fmt: str) -> None:
    dropped = losses(sop, fmt)
    if dropped:
        print(f"note: {fmt} drops: {'; '.join(dropped)}", file=sys.stderr)
    errors = sum(issue.severity == "error" for issue in validate(sop))
    if errors:
        print(f"warning: {path} has {errors} validation error(s); exported anyway "
              f"(see: sopstudio validate {path})", file=sys.stderr)
