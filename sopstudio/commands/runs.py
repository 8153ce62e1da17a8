"""`sopstudio runs [FILE] [--json]`: stored simulation runs, newest first; `--show ID` prints
one run with its trace events."""

from __future__ import annotations

from ..store import SHORT
from ._common import load_or_exit, print_json
from ._store import add_db_argument, open_from_args

NAME = "runs"
HELP = "list stored runs (of FILE's SOP if given), newest first; --show ID prints one run"


def add_arguments(parser) -> None:
    parser.add_argument("file", metavar="FILE", nargs="?")
    parser.add_argument("--agent", help="only runs of this agent")
    parser.add_argument("--status", help="only runs with this status")
    parser.add_argument("--version", metavar="REV",
                        help="only runs of this version (tag, @N or hash prefix; needs FILE)")
    parser.add_argument("--limit", type=int, help="show at most N runs")
    parser.add_argument("--show", type=int, metavar="ID", help="print run ID with its events")
    parser.add_argument("--json", action="store_true", help="print JSON")
    add_db_argument(parser)


def run(args) -> int:
    sop = load_or_exit(args.file) if args.file else None
    with open_from_args(args) as store:
        if args.show is not None:
            return _show(store.load_run(args.show), args.json)
        version = args.version
        if version and sop is not None:
            version = store.resolve(sop.id, version).hash
        runs = store.list_runs(sop_id=sop.id if sop else None, version=version,
                               agent=args.agent, status=args.status, limit=args.limit)
    if args.json:
        print_json({"runs": [r.to_dict(events=False) for r in runs]})
        return 0
    if not runs:
        print("no runs in the store")
    for r in runs:
        version = (r.version or "-")[:SHORT]
        print(f"{r.id:>5}  {r.created[:19].replace('T', ' ')}  {r.sop_id or '-'}  {version}  "
              f"{r.agent or '-'}  {r.model or '-'}  {r.status}  {r.outcome or '-'}  "
              f"{r.event_count} events")
    return 0


def _show(record, as_json: bool) -> int:
    if as_json:
        print_json(record.to_dict())
        return 0
    print(f"run {record.id}: {record.sop_id or '-'} {(record.version or '-')[:SHORT]} "
          f"agent={record.agent or '-'} model={record.model or '-'} status={record.status} "
          f"outcome={record.outcome or '-'}")
    for index, event in enumerate(record.events):
        where = f" [{event['node']}]" if event.get("node") else ""
        detail = event.get("text") or event.get("tool") or ""
        print(f"{index:>4} {event.get('type', '?')}{where} {detail}".rstrip())
    return 0
