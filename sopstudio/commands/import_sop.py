"""`sopstudio import SRC [--from FORMAT] -o OUT.sop.json`: any supported format to a .sop.json.

The format is guessed from the content unless `--from` names it; notes the author should confirm
(derived variable and tool names, lines kept as notes, a count of validation errors) are
printed on stderr. Nothing is written unless the import succeeds.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..core.inputs import InputError, read_text
from ..core.io import dumps
from ..core.validate import ERROR, validate
from ..formats import (IMPORT_FORMATS, FormatError, UnreadableSource, import_file, import_text,
                       llm_complete)
from ..formats.output import write_atomic
from . import _import_many as rasa_folder

NAME = "import"
HELP = ("import an SOP from text, JourneyBench JSON, DOT, Mermaid, tool specs, prose, Rasa flows, "
        "FloDial or STAR")


def add_arguments(parser) -> None:
    parser.add_argument("src", metavar="SRC", help="file to import ('-' reads standard input)")
    parser.add_argument("--from", dest="fmt", choices=IMPORT_FORMATS, default=None,
                        help="input format (default: guessed from the content)")
    parser.add_argument("-o", "--output", required=True, metavar="OUT.sop.json",
                        help="where to write the SOP document ('-' for standard output)")
    parser.add_argument("--base-url", default=None,
                        help="OpenAI-compatible endpoint for --from prose "
                             "(default: $SOPSTUDIO_BASE_URL)")
    parser.add_argument("--model", default=None,
                        help="model for --from prose (default: $SOPSTUDIO_MODEL)")
    parser.add_argument("--domain", default=None, metavar="DOMAIN.yml",
                        help="--from rasa: the domain whose responses become the said texts")
    parser.add_argument("--api", default=None, metavar="API.json",
                        help="--from star: the task's API spec (typed tool, enums)")


def run(args) -> int:
    if not args.output.strip():
        raise FormatError("no output path (give the .sop.json to write with -o)")
    if args.domain and args.fmt not in (None, "rasa"):
        raise FormatError("--domain goes with --from rasa")
    if args.api and args.fmt != "star":
        raise FormatError("--api goes with --from star")
    if args.fmt == "rasa" or args.domain or (args.src != "-" and Path(args.src).is_dir()):
        return rasa_folder.run(args)
    if args.fmt == "star" and args.api:
        return _report(args, rasa_folder.import_star_with_api(args.src, args.api))
    complete = _lazy_model(args) if args.fmt == "prose" else None
    text = None
    if args.src == "-":
        text = read_stdin()
        result = import_text(text, args.fmt, "<stdin>", complete)
    else:
        result = import_file(args.src, args.fmt, complete)
    if result.format == "rasa" and not args.output.endswith(".json") and args.output != "-":
        return rasa_folder.run(args)  # guessed Rasa flows, -o a folder: one file per flow
    return _report(args, result, text)


def _report(args, result, text: str | None = None) -> int:
    """Write the imported SOP and print what the author should confirm; `text` is the source
    when it was read from standard input (a file is read again for the review)."""
    write_atomic(args.output, dumps(result.sop))
    sop = result.sop
    print(f"imported {args.src} ({result.format}): {len(sop.nodes)} nodes, {len(sop.edges)} "
          f"edges, {len(sop.tools)} tools -> {args.output}",
          file=sys.stderr if args.output == "-" else sys.stdout)  # '-': stdout is the SOP
    errors = sum(issue.severity == ERROR for issue in validate(sop))
    notes = result.notes + _review(args.src, text, sop) + (
        [f"{errors} validation error{'s' * (errors != 1)} — run sopstudio validate "
         f"{args.output}"] if errors else [])
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    return 0


def _review(src: str, text: str | None, sop) -> list[str]:
    """The second look of formats.import_review (the GUI shows the same notes)."""
    from ..formats.import_review import review
    if text is None:
        try:
            text = read_text(src)
        except InputError:
            return []  # the importer read it a moment ago; nothing more to say
    return review(text, sop)


def _lazy_model(args):
    """Connect to the model only once the source has been read (an unreadable SRC exits 2)."""
    made = []

    def complete(messages: list[dict]) -> str:
        if not made:
            made.append(llm_complete(args.base_url, args.model))
        return made[0](messages)
    return complete


def read_stdin() -> str:
    """Standard input, bounded and UTF-8 checked like any file (core/inputs.py)."""
    try:
        return read_text("-", "<stdin>")
    except InputError as error:
        raise UnreadableSource(str(error)) from None
