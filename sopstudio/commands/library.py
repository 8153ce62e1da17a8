"""`sopstudio library ...`: the shared tool library in the store.

  library list [QUERY]        tools (whose name/description match QUERY)
  library import SPECS.json   add tools from a toolSpec (SOP-Bench/Bedrock) or OpenAI tool file
  library drift               SOPs whose bound copy of a tool differs from the library
"""

from __future__ import annotations

from ..store.diff_text import value_text
from ._common import UsageError, print_json
from ._store import add_db_argument, open_from_args

NAME = "library"
HELP = "the shared tool library: list/search, import tool-spec files, report drifted SOPs"


def add_arguments(parser) -> None:
    parser.add_argument("action", choices=("list", "import", "drift"))
    parser.add_argument("arg", nargs="?", metavar="QUERY|FILE")
    parser.add_argument("--keep", action="store_true",
                        help="import: fail instead of updating tools that already exist")
    parser.add_argument("--json", action="store_true", help="print JSON")
    add_db_argument(parser)


def run(args) -> int:
    if args.action == "import" and not args.arg:
        raise UsageError("library import needs a tool-spec FILE")
    # Only `import` writes; listing from a mistyped --db must not create an empty store.
    with open_from_args(args, must_exist=args.action != "import") as store:
        if args.action == "import":
            tools = store.library.import_file(args.arg, replace=not args.keep)
            return _print_tools(tools, args.json, "imported ")
        if args.action == "list":
            tools = store.library.search(args.arg) if args.arg else store.library.list()
            return _print_tools(tools, args.json, "", args.arg)
        drift = store.library.drift()
    if args.json:
        print_json({"drift": [d.to_dict() for d in drift]})
        return 0
    for item in drift:
        fields = ", ".join(f"{c.field} {value_text(c.old, 30)} -> {value_text(c.new, 30)}"
                           for c in item.changes)
        print(f"{item.sop_id} ({item.version[:12]}): tool {item.tool}: {fields}")
    if not drift:
        print("every bound tool matches the library")
    return 0


def _print_tools(tools, as_json: bool, prefix: str, query: str | None = None) -> int:
    if as_json:
        print_json({"tools": [t.model_dump(mode="json") for t in tools]})
        return 0
    if not tools:
        print("no tools match" if query else "the tool library is empty")
    for tool in tools:
        print(f"{prefix}{tool.name}: {tool.description}".rstrip(": "))
    return 0
