"""What a text to import looks like, by its content: the format to read it with when none is
named, and the hint added to an importer's refusal ("this looks like YAML ...", "try --from
journeybench", "for a procedure written in sentences, try --from prose").

JSON is told apart by shape (a `.sop.json` document, a JourneyBench graph, a `toolSpec` list,
an OpenAI function-tool list, a FloDial or STAR graph); Rasa flows, DOT and Mermaid by their
first statements; our `sop-text` by its header. Other YAML, XML/HTML and CSV are recognised only
to be named: no importer reads them.
"""

from __future__ import annotations

import re

from .base import FormatError

DOT = re.compile(r"^\s*(?:strict\s+)?(?:di)?graph\b[^{\n]*\{", re.IGNORECASE)
MERMAID = re.compile(r"^\s*(?:flowchart|graph)(?:\s+(?:TD|TB|BT|LR|RL))?\s*;?\s*$", re.I)
_YAML_KEY = re.compile(r"^[A-Za-z_][\w\-]*:(?:\s+\S.*)?$")
_YAML_ITEM = re.compile(r"^\s*- \S")
_MARKUP = re.compile(r"^\s*<[!?A-Za-z]")

# How each importable format is named in messages.
NAMES = {"json": "a SOP Studio document", "journeybench": "a JourneyBench graph",
         "toolspecs": "a toolSpec list (SOP-Bench / Bedrock)",
         "openai-tools": "an OpenAI function-tool list", "dot": "a Graphviz DOT graph",
         "mermaid": "a Mermaid flowchart", "sop-text": "SOP Studio text (sop-text)",
         "rasa": "a Rasa CALM flow (YAML)", "flodial": "a FloDial flowchart",
         "star": "a STAR task graph", "text": "pseudocode"}


def strip_comments(text: str) -> str:
    """Drop leading blank and comment lines (DOT `//`, Mermaid `%%`)."""
    lines = text.lstrip("\ufeff").splitlines()
    while lines and (not lines[0].strip() or lines[0].lstrip().startswith(("//", "%%"))):
        lines.pop(0)
    return "\n".join(lines)


_BUNDLE_AGENTS = ("dpa", "sop-agent", "agent-s", "marco")  # formats/prompts.py's JSON bundles


def prompt_bundle_format(data: dict) -> str | None:
    """Our prompt-bundle exports ({sop, agent, nodes: [{prompt | state, transitions, ...}]}):
    the format that wrote it (`marco-prompts`...; no `agent` key: an older `dpa-prompts`)."""
    nodes = data.get("nodes")
    if not ("sop" in data and isinstance(nodes, list) and any(
            isinstance(n, dict) and ("transitions" in n or "prompt" in n) for n in nodes)):
        return None
    agent = data.get("agent")
    return f"{agent}-prompts" if agent in _BUNDLE_AGENTS else "dpa-prompts"


def _is_journeybench(data: dict) -> bool:
    """Its own marker keys: `task_name` / `responsePathways` on the graph or on its nodes."""
    marks = ("task_name", "responsePathways", "task_description")
    nodes = data.get("nodes")
    return any(k in data for k in marks) or (isinstance(nodes, list) and (not nodes or any(
        isinstance(n, dict) and any(k in n for k in marks) for n in nodes)))


def is_toolspec(item: object) -> bool:
    """A Bedrock / SOP-Bench `{"toolSpec": {...}}` item."""
    return isinstance(item, dict) and isinstance(item.get("toolSpec"), dict)


def is_function_tool(item: object) -> bool:
    """An OpenAI function tool: nested `{"type": "function", "function": {...}}`, or the flat
    form with a name and a JSON-Schema `parameters` object."""
    if not isinstance(item, dict):
        return False
    if isinstance(item.get("function"), dict) or item.get("type") == "function":
        return True
    return bool(item.get("name")) and isinstance(item.get("parameters"), dict)


def guess_json(data: object) -> str:
    """The import format of parsed JSON, or FormatError saying why none fits."""
    if isinstance(data, dict):
        if data.get("format") == "sopstudio":
            return "json"
        if "format" in data and "sop" in data:
            raise FormatError(f"format: unknown format {data['format']!r} (expected "
                              "'sopstudio')", 1)
        bundle = prompt_bundle_format(data)
        if bundle:
            raise FormatError(f"this is a {bundle} export (prompts for an agent), which "
                              "cannot be imported; import the .sop.json it came from", 1)
        if "toolSpec" in data or "toolConfig" in data:
            return "toolspecs"
        if _is_journeybench(data):
            return "journeybench"
        from . import flodial, star
        if flodial.looks_like(data):
            return "flodial"
        if star.looks_like(data):
            return "star"
        if is_function_tool(data):
            return "openai-tools"
        tools = data.get("tools")
        data = tools if isinstance(tools, list) else [data]
    if data == []:
        raise FormatError("the JSON list is empty: there is nothing to import", 1)
    if isinstance(data, list) and data and all(isinstance(i, dict) for i in data):
        if all(is_toolspec(i) for i in data):
            return "toolspecs"
        if all(is_function_tool(i) for i in data):
            return "openai-tools"
    raise FormatError("JSON input is none of: a .sop.json document, a JourneyBench graph, a "
                      "toolSpec list or an OpenAI function-tool list", 1)


def guess_format(text: str) -> str:
    """The import format for `text` by its content ("text" when nothing else fits)."""
    from .jsonutil import read_json
    from .sop_text import HEADER_RE
    body = strip_comments(text)
    if body.lstrip().startswith(("{", "[")):
        return guess_json(read_json(body, "JSON"))
    if HEADER_RE.match(text.lstrip("\ufeff")):
        return "sop-text"
    from .rasa import looks_like_text
    if looks_like_text(body):
        return "rasa"
    first = body.splitlines()[0] if body.strip() else ""
    if MERMAID.match(first):
        return "mermaid"
    if DOT.match(body):
        return "dot"
    return "text"


def looks_like(text: str) -> tuple[str, str | None]:
    """(what the text looks like, the `--from` that reads it, or None if nothing does)."""
    try:
        fmt = guess_format(text)
    except FormatError:
        body = strip_comments(text).lstrip()
        return ("JSON", None) if body.startswith(("{", "[")) else ("text", "text")
    if fmt != "text":
        return NAMES[fmt], fmt
    body = strip_comments(text)
    if _MARKUP.match(body):
        return "XML or HTML markup", None
    if _is_yaml(body):
        return "YAML", None
    if _is_csv(body):
        return "CSV (a test set? run it with `sopstudio bench --csv`)", None
    return "text", "text"


def _is_yaml(body: str) -> bool:
    lines = [ln for ln in body.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines:
        return False
    if lines[0].strip() == "---":
        return True
    shaped = sum(1 for ln in lines if _YAML_KEY.match(ln.rstrip()) or _YAML_ITEM.match(ln)
                 or (ln[:1] == " " and _YAML_KEY.match(ln.strip())))
    return bool(_YAML_KEY.match(lines[0].rstrip())) and shaped * 10 >= len(lines) * 8


def _is_csv(body: str) -> bool:
    lines = [ln for ln in body.splitlines()[:20] if ln.strip()]
    commas = {ln.count(",") for ln in lines}
    return len(lines) >= 2 and len(commas) == 1 and commas.pop() >= 2


def refusal_hint(text: str, fmt: str) -> str:
    """What to add to an importer's refusal of `text` read as `fmt`: the likely format and the
    right `--from`; for text, the pointer to `--from prose`."""
    what, reader = looks_like(text)
    hints = []
    if reader is not None and reader != fmt:
        hints.append(f"this looks like {what}: try --from {reader}")
    elif reader is None:
        hints.append(f"this looks like {what}, which SOP Studio does not import")
    if fmt == "text" and reader in ("text", None):
        hints.append("for a procedure written in sentences, try --from prose (needs a model)")
    return "; ".join(hints)
