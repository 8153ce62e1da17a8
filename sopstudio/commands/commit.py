"""`sopstudio commit FILE [-m MESSAGE] [--tag TAG] [--new-id ID]`: record FILE as a version.

The store keeps one history per SOP id and remembers which file it came from: committing a
different file whose id already has history is refused (one line naming the other file);
`--new-id ID` gives FILE a new id (written into the file) and commits it under that id.
"""

from __future__ import annotations

import re
import sys

from ..core.io import save_sop
from ._common import UsageError, load_or_exit
from ._store import add_db_argument, open_from_args

NAME = "commit"
HELP = "record FILE as a new version in the store; prints its short hash"
_ID = re.compile(r"^[A-Za-z0-9_.-]+$")


def add_arguments(parser) -> None:
    parser.add_argument("file", metavar="FILE")
    parser.add_argument("-m", "--message", default="", help="what changed")
    parser.add_argument("--tag", help="name this version (e.g. v1.0)")
    parser.add_argument("--author", help="author (default: the OS user)")
    parser.add_argument("--new-id", metavar="ID",
                        help="give FILE this new SOP id (written into FILE) and commit it under "
                             "it; for a copy of another SOP that should get its own history")
    add_db_argument(parser)


def run(args) -> int:
    sop = load_or_exit(args.file)
    with open_from_args(args) as store:
        if args.new_id:
            sop = _renamed(store, sop, args.new_id, args.file)
        head = store.history.head(sop.id)
        version = store.history.record(sop, args.message, author=args.author, tag=args.tag,
                               path=args.file)
    if head is not None and head.id == version.id:
        print(f"sopstudio commit: no changes since {version.short}", file=sys.stderr)
    print(version.short)
    return 0


def _renamed(store, sop, new_id: str, path: str):
    if not _ID.match(new_id):
        raise UsageError(f"--new-id {new_id!r}: use letters, digits, _ - and . only")
    if new_id != sop.id and store.history.head(new_id) is not None:
        raise UsageError(f"--new-id {new_id!r}: that id already has history in the store; "
                         "pick another")
    sop.id = new_id
    save_sop(sop, path)
    return sop
