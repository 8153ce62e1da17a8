"""`sopstudio export FILE --to FORMAT -o OUT`: write a .sop.json in another format.

`-o -` writes text formats to standard output (binary ones go to a pipe with `-o /dev/stdout`);
a device or FIFO is written to, never replaced. Nothing is written unless the export succeeds.
"""

from __future__ import annotations

import sys

from ..formats import EXPORT_FORMATS, FormatError, export_sop
from ..formats.output import write_atomic
from ._common import load_or_exit

NAME = "export"
HELP = "export an SOP as JSON, pseudocode, JourneyBench, DOT/SVG/PNG, Mermaid, tools or prompts"


def add_arguments(parser) -> None:
    parser.add_argument("file", metavar="FILE", help="the .sop.json to export")
    parser.add_argument("--to", dest="fmt", choices=EXPORT_FORMATS, required=True,
                        help="output format")
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
    write_atomic(args.output, data)
    if args.output != "-":
        print(f"exported {args.file} ({args.fmt}) -> {args.output}", file=sys.stderr)
    return 0
