"""Importers and exporters (DESIGN §8): one registry used by the CLI, the GUI's paste and
File ▸ Import, and tests.

    import_text(text, fmt=None, source='<paste>') -> ImportResult   # fmt guessed when None
    import_file(path, fmt=None) -> ImportResult
    export_sop(sop, fmt) -> str | bytes                               # bytes only for png

Lossless (import(export(sop)) == sop): `json` and `sop-text`. Lossy: `text` (pseudocode),
`journeybench`, `dot`, `mermaid` (structure, titles and conditions survive), `toolspecs` and
`openai-tools` (tools only). Export-only: `svg`, `png` and the agents' prompts (prompts.py):
`spa-prompt`, `react-prompt` (text), `dpa-prompts`, `sop-agent-prompts`, `agent-s-prompts`,
`marco-prompts` (JSON bundles: per node the templates and the functions offered).
Import-only: `prose` (needs an LLM: pass `complete=`, or the engine's client is used), `rasa`
(CALM flows YAML: the first flow here; a folder or every flow through commands/_import_many.py),
`flodial` and `star` (their JSON shapes are recognised by `looks_like` in their modules).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..core.errors import LoadError
from ..core.inputs import InputError, read_text, strip_bom
from ..core.io import check_references
from ..core.model import SOP
from .base import FormatError, ImportResult

__all__ = ["import_text", "import_file", "export_sop", "guess_format", "llm_complete",
           "IMPORT_FORMATS",
           "EXPORT_FORMATS", "LOSSLESS_FORMATS", "PROMPT_BUNDLES", "FormatError", "ImportResult",
           "UnreadableSource"]

IMPORT_FORMATS = ("json", "text", "sop-text", "journeybench", "dot", "mermaid", "toolspecs",
                  "openai-tools", "prose", "rasa", "flodial", "star")
EXPORT_FORMATS = ("json", "text", "sop-text", "journeybench", "dot", "mermaid", "toolspecs",
                  "openai-tools", "svg", "png", "spa-prompt", "dpa-prompts",
                  "react-prompt", "sop-agent-prompts", "agent-s-prompts", "marco-prompts")
PROMPT_BUNDLES = ("dpa-prompts", "sop-agent-prompts", "agent-s-prompts", "marco-prompts")
LOSSLESS_FORMATS = ("json", "sop-text")
_BY_SUFFIX = {".dot": "dot", ".gv": "dot", ".mmd": "mermaid", ".mermaid": "mermaid"}


class UnreadableSource(FormatError):
    """The file to import cannot be read at all: exit code 2 (DESIGN §9)."""

    exit_code = 2


def guess_format(text: str) -> str:
    """The import format for `text` by its content (see detect.py)."""
    from .detect import guess_format as guess
    return guess(text)


def _importer(fmt: str) -> Callable[[str, str], ImportResult]:
    if fmt == "json":
        from .native import import_json as fn
    elif fmt == "text":
        from .pseudo import import_pseudocode as fn
    elif fmt == "sop-text":
        from .sop_text import import_sop_text as fn
    elif fmt == "journeybench":
        from .journeybench import import_journeybench as fn
    elif fmt == "dot":
        from .dot import import_dot as fn
    elif fmt == "mermaid":
        from .mermaid import import_mermaid as fn
    elif fmt == "toolspecs":
        from .toolspecs import import_toolspecs as fn
    elif fmt == "openai-tools":
        from .toolspecs import import_openai_tools as fn
    elif fmt == "rasa":
        from .rasa import import_rasa as fn
    elif fmt == "flodial":
        from .flodial import import_flodial as fn
    elif fmt == "star":
        from .star import import_star as fn
    else:
        raise FormatError(f"unknown import format '{fmt}' (one of: {', '.join(IMPORT_FORMATS)})")
    return fn


def import_text(text: str, fmt: str | None = None, source: str = "<paste>",
                complete: Callable[[list[dict]], str] | None = None) -> ImportResult:
    """Import `text` as `fmt` (guessed from the content when None)."""
    if fmt == "prose":
        from .prose import import_prose
        return import_prose(text, complete or llm_complete())
    text = strip_bom(text)  # every importer sees text without a byte-order mark
    if not text.strip():
        raise FormatError("nothing to import: the text is empty", 1)
    fmt = fmt or guess_format(text)
    try:
        result = _importer(fmt)(text, source)
    except FormatError as error:
        _add_hint(error, text, fmt)
        raise
    result.format = fmt
    try:  # as strict as the native loader: a duplicate id or a dangling edge is refused here,
        check_references(result.sop, fmt)  # not written to a file `simulate` then refuses
    except LoadError as error:
        raise FormatError(str(error)) from None
    return result


def _add_hint(error: FormatError, text: str, fmt: str) -> None:
    """Name the likely format and the right `--from` in the refusal (detect.py)."""
    from .detect import refusal_hint
    hint = refusal_hint(text, fmt)
    if hint and error.args:
        error.args = (f"{error.args[0]} — {hint}", *error.args[1:])


def import_file(path, fmt: str | None = None,
                complete: Callable[[list[dict]], str] | None = None) -> ImportResult:
    path = Path(path)
    try:
        text = read_text(path)
    except InputError as error:
        raise UnreadableSource(str(error)) from None
    if fmt is None and path.suffix.lower() in _BY_SUFFIX and guess_format(text) == "text":
        fmt = _BY_SUFFIX[path.suffix.lower()]
    try:
        return import_text(text, fmt, str(path), complete)
    except InputError as error:  # a limit of core.inputs (depth, number length): exit 2
        named = error.source == str(path)
        raise UnreadableSource(str(error) if named else f"{path}: {error}") from None
    except FormatError as error:
        if error.source or str(error).startswith(str(path)):
            raise
        raise FormatError(f"{path}: {error}") from None


def llm_complete(base_url: str | None = None,
                 model: str | None = None) -> Callable[[list[dict]], str]:
    """A `complete(messages) -> str` over the engine's LLM client (imported only when needed).

    The endpoint and model come from the arguments, else from SOPSTUDIO_BASE_URL /
    OPENAI_BASE_URL and SOPSTUDIO_MODEL.
    """
    import os
    base_url = base_url or os.environ.get("SOPSTUDIO_BASE_URL") or os.environ.get(
        "OPENAI_BASE_URL")
    model = model or os.environ.get("SOPSTUDIO_MODEL")
    try:
        from ..engine.llm_client import LLMClient, LLMSettings
    except ImportError as error:
        raise FormatError(f"prose import needs the LLM client, which is not available ({error})"
                          ) from None
    if not base_url or not model:
        raise FormatError("prose import needs a model: give --base-url and --model (or set "
                          "SOPSTUDIO_BASE_URL and SOPSTUDIO_MODEL)")
    client = LLMClient(LLMSettings(base_url=base_url, model=model))
    return lambda messages: client.complete(messages).text or ""


def export_sop(sop: SOP, fmt: str) -> str | bytes:
    from . import dot, journeybench, mermaid, native, prompts, pseudo, sop_text, toolspecs
    exporters = {"json": native.export_json, "text": pseudo.export_pseudocode,
                 "sop-text": sop_text.export_sop_text,
                 "journeybench": journeybench.export_journeybench, "dot": dot.export_dot,
                 "mermaid": mermaid.export_mermaid, "toolspecs": toolspecs.export_toolspecs,
                 "openai-tools": toolspecs.export_openai_tools,
                 "spa-prompt": prompts.export_spa_prompt,
                 "react-prompt": prompts.export_react_prompt}
    if fmt in PROMPT_BUNDLES:
        return prompts.export_bundle(sop, fmt)
    if fmt in ("svg", "png"):
        from .graphviz_io import check_drawable, draw
        check_drawable(len(sop.nodes), len(sop.edges), fmt)  # before building a huge graph
        data = draw(dot.export_dot(sop), fmt)
        return data.decode("utf-8") if fmt == "svg" else data
    if fmt not in exporters:
        raise FormatError(f"unknown export format '{fmt}' (one of: {', '.join(EXPORT_FORMATS)})")
    return exporters[fmt](sop)
