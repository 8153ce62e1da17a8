"""`sopstudio history FILE [--json]`: the versions of FILE's SOP, newest first."""

from __future__ import annotations

from datetime import datetime

from ..store import SHORT, hash_sop
from ._common import load_or_exit, print_json
from ._store import add_db_argument, open_from_args

NAME = "history"
HELP = ("list the stored versions of FILE's SOP, newest first: @0 is the newest, @1 the one "
        "before (use these in diff); * = same as the file")


def add_arguments(parser) -> None:
    parser.add_argument("file", metavar="FILE")
    parser.add_argument("--limit", type=int, help="show at most N versions")
    parser.add_argument("--json", action="store_true", help="print JSON")
    add_db_argument(parser)


def _local(created: str) -> str:
    return datetime.fromisoformat(created).astimezone().strftime("%Y-%m-%d %H:%M:%S")


def run(args) -> int:
    sop = load_or_exit(args.file)
    with open_from_args(args, must_exist=True) as store:
        versions = store.history.versions(sop.id, limit=args.limit)
    working = hash_sop(sop)
    if args.json:
        print_json({"sop": sop.id, "working": working,
                    "versions": [{"rev": f"@{n}", **v.to_dict()} for n, v in enumerate(versions)]})
        return 0
    if not versions:
        print(f"no versions of '{sop.id}' in the store (record one with: sopstudio commit FILE)")
        return 0
    # @N is what `diff` and `runs --version` accept; show it so users can find it.
    width = max(3, len(f"@{len(versions) - 1}"))
    print(f"  {'REV':<{width}}  {'HASH':<{SHORT}}  {'CREATED':<19}  AUTHOR [TAGS]  MESSAGE")
    for n, v in enumerate(versions):
        mark = "*" if v.hash == working else " "
        tags = f" [{', '.join(v.tags)}]" if v.tags else ""
        print(f"{mark} {'@' + str(n):<{width}}  {v.short}  {_local(v.created)}  "
              f"{v.author or '-'}{tags}  {v.message}".rstrip())
    return 0
