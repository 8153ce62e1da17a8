"""`sopstudio diff FILE REV1 [REV2]`: structural diff between two versions of FILE's SOP.

A revision is a tag, `@N` (N versions back; `@0` is the newest), a hash prefix, or `working`
(also `file`): FILE as it is on disk. REV2 defaults to `working`.
"""

from __future__ import annotations

from ..store import diff_sops
from ._common import load_or_exit, print_json
from ._store import add_db_argument, load_revision, open_from_args

NAME = "diff"
HELP = ("structural diff between two revisions of FILE's SOP. A revision is a tag, @N "
        "(N versions back: @0 = the newest, @1 = the one before; `sopstudio history FILE` "
        "lists them), a hash prefix, or 'working' (= FILE as it is on disk)")


def add_arguments(parser) -> None:
    parser.add_argument("file", metavar="FILE")
    parser.add_argument("rev1", metavar="REV1", help="from: tag, @N (@0 = newest), hash prefix "
                        "or 'working'")
    parser.add_argument("rev2", metavar="REV2", nargs="?", default="working",
                        help="to (default: working, i.e. FILE on disk)")
    parser.add_argument("--json", action="store_true", help="print the diff as JSON data")
    add_db_argument(parser)


def run(args) -> int:
    sop = load_or_exit(args.file)
    with open_from_args(args, must_exist=True) as store:
        label1, old = load_revision(store, sop, args.rev1)
        label2, new = load_revision(store, sop, args.rev2)
    diff = diff_sops(old, new)
    if args.json:
        print_json({"from": label1, "to": label2, **diff.to_dict()})
    else:
        print(f"diff {label1} -> {label2}")
        print(diff.to_text())
    return 0
