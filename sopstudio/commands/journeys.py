"""`sopstudio journeys`: count, list and cover the journeys of an SOP (DESIGN §5, §9).

Human output lists the first `--limit` journeys and says "showing N of M" when there are more;
with `--cover` it prints only the covering set (and its size) instead of the list. `--json` keeps
the contract (count, journeys up to the limit, cover, uncoverable) whatever the flags.
"""

from __future__ import annotations

from ..core.journeys import JourneyGraph
from ..core.journeys_cover import cover
from ._common import load_or_exit, print_json
from ._options import positive_int, runnable

NAME = "journeys"
HELP = "count journeys exactly, list them in BFS order, compute an edge-covering set"
DEFAULT_LIMIT = 100


def add_arguments(parser) -> None:
    parser.add_argument("file", help="the .sop.json file")
    parser.add_argument("--count", action="store_true", help="only the exact count")
    parser.add_argument("--cover", action="store_true", help="the edge-covering set")
    parser.add_argument("--limit", type=positive_int, default=DEFAULT_LIMIT,
                        help=f"list at most N journeys (default {DEFAULT_LIMIT})")
    parser.add_argument("--json", action="store_true", help="print one JSON document")


def run(args) -> int:
    graph = JourneyGraph(runnable(load_or_exit(args.file), args.file))
    count = graph.count()
    hide_list = args.count or (args.cover and not args.json)
    listed = [] if hide_list else [j.to_dict() for j in graph.iter_journeys(args.limit)]
    covering = [j.to_dict() for j in cover(graph)] if (args.cover or args.json) else []
    if args.json:
        print_json({"count": count, "journeys": listed, "cover": covering,
                    "uncoverable": graph.uncoverable_edges()})
        return 0
    print(f"{count} journeys")
    for number, journey in enumerate(listed):
        print(f"  {number}: {' -> '.join(journey['nodes'])}")
    if len(listed) < count and not hide_list:
        print(f"showing {len(listed)} of {count} journeys (use --limit)")
    if args.cover:
        print(f"edge cover: {len(covering)} journeys")
        for journey in covering:
            print(f"  {' -> '.join(journey['nodes'])}")
        for edge in graph.uncoverable_edges():
            print(f"  (edge {edge} lies on no journey)")
    return 0
