"""`sopstudio import SRC --from rasa -o OUTDIR`: Rasa flows (a .yml file or a project folder) to
one `<flow_id>.sop.json` per flow; and `--from star --api API.json` (a task with its API spec).

Every file is read bounded and UTF-8 checked (core/inputs.py); nothing is written unless every
flow imports. A single flow may also go to a file (`-o FLOW.sop.json`).
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..core.errors import LoadError
from ..core.inputs import InputError, read_text
from ..core.io import check_references, dumps
from ..core.validate import ERROR, validate
from ..formats import FormatError, ImportResult, UnreadableSource
from ..formats import rasa, rasa_domain, star
from ..formats.output import write_atomic

YAML_SUFFIXES = (".yml", ".yaml")


def _read(path: Path | str) -> str:
    try:
        return read_text(path)
    except InputError as error:
        raise UnreadableSource(str(error)) from None


def _sources(src: Path) -> list[tuple[str, str]]:
    if not src.is_dir():
        return [(str(src), _read(src))]
    files = sorted(p for p in src.rglob("*") if p.suffix.lower() in YAML_SUFFIXES and p.is_file())
    if not files:
        raise FormatError(f"{src}: no .yml or .yaml files in the folder")
    return [(str(p), _read(p)) for p in files]


def run(args) -> int:
    if args.src == "-":
        sources = [("<stdin>", _read("-"))]
    else:
        sources = _sources(Path(args.src))
    domain = rasa_domain.load_domain(_read(args.domain), args.domain) if args.domain else None
    results = rasa.import_project(sources, domain)
    for result in results:
        _check(result)
    out = Path(args.output)
    if args.output.endswith(".json") or args.output == "-":
        if len(results) != 1:
            raise FormatError(f"{args.src} holds {len(results)} flows: give a folder with -o "
                              f"(one <flow>.sop.json per flow)")
        targets = [args.output]
    else:
        if out.exists() and not out.is_dir():
            raise FormatError(f"{out}: not a folder (--from rasa writes one file per flow)")
        out.mkdir(parents=True, exist_ok=True)
        targets = [str(out / f"{r.sop.id}.sop.json") for r in results]
    for result, target in zip(results, targets):
        write_atomic(target, dumps(result.sop))
        _summary(args, result, target)
    return 0


def import_star_with_api(src: str, api: str) -> ImportResult:
    result = star.import_star(_read(src), src, api=star.load_api(_read(api)))
    _check(result)
    return result


def _check(result: ImportResult) -> None:
    try:
        check_references(result.sop, result.format)
    except LoadError as error:
        raise FormatError(str(error)) from None


def _summary(args, result: ImportResult, target: str) -> None:
    sop = result.sop
    kind = " (pattern)" if sop.id.startswith("pattern_") else ""
    print(f"flow {sop.id}{kind}: {len(sop.nodes)} nodes, {len(sop.edges)} edges, "
          f"{len(sop.tools)} tools -> {target}", file=sys.stderr if target == "-" else sys.stdout)
    errors = sum(issue.severity == ERROR for issue in validate(sop))
    notes = result.notes + ([f"{errors} validation error{'s' * (errors != 1)} — run sopstudio "
                             f"validate {target}"] if errors else [])
    for note in notes:
        print(f"note: {sop.id}: {note}", file=sys.stderr)
