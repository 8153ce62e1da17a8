"""`sopstudio runs [FILE] [--json]`: stored simulation runs, newest first; `--show ID` prints
one run with its trace events; `--replay ID` re-runs it from its recording (no model call) and
says whether the replay matches the stored trace (exit 0 if it does, 1 if not); `--search TEXT`
lists the runs whose trace (what was said, tool names, arguments, results, error codes) or
version message holds every word of TEXT, each with a short excerpt (store.runs.search)."""

from __future__ import annotations

from ..store import SHORT, StoreError
from ._common import UsageError, load_or_exit, print_json
from ._store import add_db_argument, open_from_args

NAME = "runs"
HELP = ("list stored runs (of FILE's SOP if given), newest first; --show ID prints one run; "
        "--replay ID replays one; --search TEXT finds runs by what their traces hold")

DEFAULT_LIMIT = 50  # human listing without --limit: the newest runs, and a note on the rest
COLUMNS = ("ID", "CREATED", "SOP", "VERSION", "AGENT", "MODEL", "STATUS", "OUTCOME", "EVENTS")
SEARCH_COLUMNS = ("ID", "CREATED", "SOP", "VERSION", "AGENT", "SCENARIO", "OUTCOME", "MATCH")


def add_arguments(parser) -> None:
    parser.add_argument("file", metavar="FILE", nargs="?")
    parser.add_argument("--agent", help="only runs of this agent")
    parser.add_argument("--status", help="only runs with this status")
    parser.add_argument("--version", metavar="REV",
                        help="only runs of this version (tag, @N or hash prefix; needs FILE)")
    parser.add_argument("--limit", type=int,
                        help=f"show at most N runs (default: the newest {DEFAULT_LIMIT}; "
                             "--json lists all)")
    parser.add_argument("--show", type=int, metavar="ID", help="print run ID with its events")
    parser.add_argument("--replay", type=int, metavar="RUN_ID",
                        help="replay run RUN_ID from its recording (no model call) and compare")
    parser.add_argument("--search", metavar="TEXT",
                        help="runs whose trace or version message holds every word of TEXT "
                             "(e.g. a tool name, an error code, words the agent said)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    add_db_argument(parser)


def run(args) -> int:
    if args.version and not args.file:
        raise UsageError("--version needs FILE (a revision belongs to one SOP)")
    if args.search is not None and any((args.agent, args.status, args.version,
                                        args.show is not None, args.replay is not None)):
        raise UsageError("--search takes only FILE, --limit, --json and --db")
    sop = load_or_exit(args.file) if args.file else None
    with open_from_args(args, must_exist=True) as store:
        if args.search is not None:
            return _search(store, args, sop.id if sop else None)
        if args.show is not None:
            return _show(store.runs.load(args.show), args.json)
        if args.replay is not None:
            return _replay(store, args.replay, args.json)
        version = _version_hash(store, sop.id, args.version) if args.version else None
        runs = store.runs.list(sop_id=sop.id if sop else None, version=version,
                               agent=args.agent, status=args.status, limit=args.limit)
    if args.json:
        print_json({"runs": [r.to_dict(events=False) for r in runs]})
        return 0
    filtered = any((args.file, args.agent, args.status, args.version))
    _print_table(runs, filtered, args.limit)
    return 0


def _print_table(runs, filtered: bool, limit: int | None) -> None:
    if not runs:
        print("no runs match" if filtered else "no runs in the store")
        return
    total = len(runs)
    if limit is None and total > DEFAULT_LIMIT:
        runs = runs[:DEFAULT_LIMIT]
    rows = [COLUMNS] + [_row(r) for r in runs]
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    for row in rows:
        cells = [cell.rjust(width) if i in (0, len(COLUMNS) - 1) else cell.ljust(width)
                 for i, (cell, width) in enumerate(zip(row, widths))]
        print("  ".join(cells).rstrip())
    if len(runs) < total:
        print(f"showing {len(runs)} of {total} (use --limit)")


def _search(store, args, sop_id: str | None) -> int:
    limit = args.limit if args.limit is not None else DEFAULT_LIMIT
    hits = store.runs.search(args.search, sop_id=sop_id, limit=limit)
    if args.json:
        print_json({"runs": hits})
        return 0
    if not hits:
        print(f"no runs match {args.search!r}")
        return 0
    rows = [SEARCH_COLUMNS] + [_search_row(hit) for hit in hits]
    widths = [max(len(row[i]) for row in rows) for i in range(len(SEARCH_COLUMNS) - 1)]
    for row in rows:
        cells = [cell.rjust(width) if i == 0 else cell.ljust(width)
                 for i, (cell, width) in enumerate(zip(row, widths))]
        print("  ".join(cells + [row[-1]]).rstrip())
    if len(hits) == limit:
        print(f"showing the newest {limit} (use --limit)")
    return 0


def _search_row(hit: dict) -> tuple[str, ...]:
    return (str(hit["run_id"]), hit["created"][:19].replace("T", " "), hit["sop_id"] or "-",
            (hit["version"] or "-")[:SHORT], hit["agent"] or "-", hit["scenario"] or "-",
            hit["outcome"] or "-", " ".join(hit["snippet"].split()))


def _row(r) -> tuple[str, ...]:
    return (str(r.id), r.created[:19].replace("T", " "), r.sop_id or "-",
            (r.version or "-")[:SHORT], r.agent or "-", r.model or "-", r.status,
            r.outcome or "-", str(r.event_count))


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


def _version_hash(store, sop_id: str, revision: str) -> str:
    """A recorded version's hash; else the text itself as a hash prefix, since runs also point
    at documents that were simulated without ever being committed."""
    try:
        return store.history.resolve(sop_id, revision).hash
    except StoreError:
        if len(revision) >= 4 and all(c in "0123456789abcdef" for c in revision.lower()):
            return revision.lower()
        raise


def _replay(store, run_id: int, as_json: bool) -> int:
    from ..engine.orchestrator_replay import ReplayExhausted
    from ..store.traces import load_trace, replay_run, same_trace
    stored = load_trace(store, run_id)
    try:
        replayed, problem = replay_run(store, run_id), None
    except ReplayExhausted as error:  # the recording does not fit: a mismatch, not a crash
        replayed, problem = None, str(error)
    matches = replayed is not None and same_trace(stored, replayed)
    data = {"run": run_id, "outcome": replayed.outcome if replayed else None,
            "end_node": replayed.end_node if replayed else None,
            "stored_outcome": stored.outcome, "matches": matches,
            "events": len(replayed.events) if replayed else 0, "problem": problem}
    if as_json:
        print_json(data)
    else:
        outcome = data["outcome"] or "-"
        print(f"run {run_id} replayed: outcome {outcome} (stored {stored.outcome or '-'}), "
              f"{data['events']} events; matches the stored trace: {'yes' if matches else 'no'}"
              + (f" ({problem})" if problem else ""))
    return 0 if matches else 1
