"""`sopstudio validate FILE [--json]`: list an SOP's problems; exit 1 if any is an error."""

from __future__ import annotations

import re
from collections import Counter

from ..core.subflows import SubflowLoader
from ..core.validate import ERROR, Issue, has_errors, validate
from ._common import UnreadableFile, load_or_exit, print_json

NAME = "validate"
HELP = "check an SOP for errors and warnings (exit 0 clean, 1 errors, 2 unreadable)"


def add_arguments(parser) -> None:
    parser.add_argument("file", metavar="FILE", help="the .sop.json file to check")
    parser.add_argument("--json", action="store_true", help="print the issues as JSON")


def run(args) -> int:
    # Non-strict: dangling edges and duplicate ids are issues to show, not a load failure.
    try:
        sop = load_or_exit(args.file, strict=False)
    except UnreadableFile as error:
        if args.json:  # scripts reading stdout get the reason too; stderr has the usual line
            print_json({"error": str(error), "issues": []})
        raise
    issues = validate(sop, SubflowLoader(args.file))
    if args.json:
        print_json({"issues": [issue.to_dict() for issue in issues]})
    else:
        for issue in issues:
            print(format_issue(issue))
        print(summary(issues, args.file))
    return 1 if has_errors(issues) else 0


def location(issue: Issue) -> str:
    return f"node {issue.node}" if issue.node else f"edge {issue.edge}" if issue.edge else \
        f"tool {issue.tool}" if issue.tool else f"variable {issue.variable}" if issue.variable \
        else "sop"


def format_issue(issue: Issue) -> str:
    """One line: severity, code, then the message, prefixed by the location unless the
    message already names it (most say "node X: ..." themselves)."""
    where = location(issue)
    named = re.search(rf"(?<![\w-]){re.escape(where)}(?![\w-])", issue.message)
    text = issue.message if named or where == "sop" else f"{where}: {issue.message}"
    return f"{issue.severity:<8}{issue.code:<24}{text}"


def summary(issues: list[Issue], source: str) -> str:
    counts = Counter(issue.severity for issue in issues)
    errors, warnings = counts[ERROR], len(issues) - counts[ERROR]
    if not issues:
        return f"{source}: no problems found"
    return (f"{source}: {errors} error{'s' * (errors != 1)}, "
            f"{warnings} warning{'s' * (warnings != 1)}")
