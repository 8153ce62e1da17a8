"""`sopstudio history FILE [--json]`: the versions of FILE's SOP, newest first."""

from __future__ import annotations

from datetime import datetime

from ..store import hash_sop
from ._common import load_or_exit, print_json
from ._store import add_db_argument, open_from_args

NAME = "history"
HELP = "list the stored versions of FILE's SOP, newest first (* = same as the file)"


def add_arguments(parser) -> None:
    parser.add_argument("file", metavar="FILE")
    parser.add_argument("--limit", type=int, help="show at most N versions")
    parser.add_argument("--json", action="store_true", help="print JSON")
    add_db_argument(parser)


def _local(created: str) -> str:
    return datetime.fromisoformat(created).astimezone().strftime("%Y-%m-%d %H:%M:%S")


def run(args) -> int:
    sop = load_or_exit(args.file)
    with open_from_args(args) as store:
        versions = store.versions(sop.id, limit=args.limit)
    working = hash_sop(sop)
    if args.json:
        print_json({"sop": sop.id, "working": working,
                    "versions": [v.to_dict() for v in versions]})
        return 0
    if not versions:
        print(f"no versions of '{sop.id}' in the store (record one with: sopstudio commit FILE)")
    for v in versions:
        mark = "*" if v.hash == working else " "
        tags = f" [{', '.join(v.tags)}]" if v.tags else ""
        print(f"{mark} {v.short}  {_local(v.created)}  {v.author or '-'}{tags}  {v.message}".rstrip())
    return 0
