"""`sopstudio commit FILE [-m MESSAGE] [--tag TAG]`: record FILE as a version in the store."""

from __future__ import annotations

import sys

from ._common import load_or_exit
from ._store import add_db_argument, open_from_args

NAME = "commit"
HELP = "record FILE as a new version in the store; prints its short hash"


def add_arguments(parser) -> None:
    parser.add_argument("file", metavar="FILE")
    parser.add_argument("-m", "--message", default="", help="what changed")
    parser.add_argument("--tag", help="name this version (e.g. v1.0)")
    parser.add_argument("--author", help="author (default: the OS user)")
    add_db_argument(parser)


def run(args) -> int:
    sop = load_or_exit(args.file)
    with open_from_args(args) as store:
        head = store.head(sop.id)
        version = store.record(sop, args.message, author=args.author, tag=args.tag)
    if head is not None and head.id == version.id:
        print(f"sopstudio commit: no changes since {version.short}", file=sys.stderr)
    print(version.short)
    return 0
