"""Mermaid flowchart import and export.

Reads `flowchart TD` / `graph LR` (any direction), node shapes (`[ ]`, `( )`, `([ ])`, `(( ))`,
`{ }` = decision, `{{ }}`, `[/ /]`, `>text]`, ...), links `-->`, `---`, `-.->`, `==>`, with labels
written `-->|label|` or `-- label -->`, chains `a --> b --> c`, `a & b --> c`; subgraphs are
flattened and styling lines ignored. Import follows the flowchart rules of `flowgraph`.
Our export shows the author's edge labels (the condition when there is none) and carries the
exact data in comments Mermaid ignores (`%% @sop {...}`, `%% @node id {...}` with the node's
real id, `%% @edge {...}` before its link; see `flowmeta`), so export -> import is identical.
"""

from __future__ import annotations

import re

from ..core.inputs import strip_bom
from ..core.model import SOP
from ..core.index import SopIndex
from .base import FormatError, ImportResult
from .dot import is_decision
from .flowgraph import build_flow_sop
from .flowmeta import decode, edge_meta, encode, node_meta, sop_meta

HEADER = re.compile(r"^\s*(?:flowchart|graph)(?:\s+(TD|TB|BT|LR|RL))?\s*;?\s*$", re.IGNORECASE)
_IGNORED = re.compile(r"^\s*(?:%%|classDef\b|class\b|style\b|linkStyle\b|click\b|direction\b|"
                      r"accTitle\b|accDescr\b)")
_SUBGRAPH = re.compile(r"^\s*subgraph\b|^\s*end\s*;?\s*$")
_ID = re.compile(r"\s*([A-Za-z0-9_][\w.\-]*)")
# (open, close, is_decision) — longest openers first so `((` wins over `(`.
_SHAPES = [("(((", ")))", False), ("([", "])", False), ("[[", "]]", False), ("[(", ")]", False),
           ("((", "))", False), ("{{", "}}", False), ("[/", "/]", False), ("[\\", "\\]", False),
           ("[/", "\\]", False), ("[\\", "/]", False), ("[", "]", False), ("(", ")", False),
           (">", "]", False), ("{", "}", True)]
_ARROW = re.compile(r"\s*(<?(?:-{2,}>|={2,}>|-\.+->|-{3,}|={3,}|-\.+-|--[ox]|~~~))\s*"
                    r"(?:\|([^|]*)\|)?")
_TEXT_ARROW = re.compile(r"\s*(?:--|==|-\.)\s+(.+?)\s+(?:-{2,}>|={2,}>|\.-+>|-{3,}|={3,}|\.-)")


def import_mermaid(text: str, source: str = "<paste>") -> ImportResult:
    text = strip_bom(text)  # a byte-order mark is no content (e.g. not part of a title)
    lines = text.splitlines()
    first = next((i for i, s in enumerate(lines) if s.strip() and not s.strip().startswith("%%")),
                 None)
    if first is None or not HEADER.match(lines[first].split("%%")[0]):
        raise FormatError("Mermaid: expected 'flowchart TD' or 'graph TD' as the first line",
                          (first or 0) + 1)
    state = _State()
    for lineno, line in enumerate(lines[first + 1:], first + 2):
        if _exact_line(line, lineno, state):
            continue
        meta = _META.match(line)
        if meta:  # our older export's `%% @node id tools=a,b ask=x max_attempts=3`
            state.meta[meta.group(1)] = dict(re.findall(r"(\w+)=(\S*)", meta.group(2)))
            continue
        for statement in _split_statements(line):
            if statement.strip() and not _IGNORED.match(statement) \
                    and not _SUBGRAPH.match(statement):
                _statement(statement, lineno, state)
    if not state.names:
        raise FormatError("Mermaid: the flowchart has no nodes", first + 1)
    if state.exact is not None:
        _use_real_ids(state)
    sources = {edge[0] for edge in state.edges}
    return build_flow_sop(state.names, state.titles, state.diamonds, state.edges, "flowchart",
                          "Imported flowchart", "mermaid", failures=state.failures,
                          node_meta=state.meta, exact=state.exact,
                          references=state.subroutines - sources)


_META = re.compile(r"^\s*%%\s*@node\s+(\S+)\s*(.*)$")
_EXACT = re.compile(r"^\s*%%\s*@(sop|node|edge)\s+(?:(\S+)\s+)?(\{.*\})\s*$")


def _exact_line(line: str, lineno: int, state: "_State") -> bool:
    """Our export's exact data: `%% @sop {...}`, `%% @node id {...}`, `%% @edge {...}`."""
    match = _EXACT.match(line)
    if not match:
        return False
    kind, name, text = match.groups()
    data = decode(text, f"line {lineno}", percent=False)
    if not isinstance(data, dict):
        raise FormatError("Mermaid: expected a JSON object after @" + kind, lineno)
    if kind == "sop":
        state.exact = {"sop": data, "nodes": {}, "edges": {}}
    elif state.exact is None:
        return False  # node/edge data without the @sop line: not ours, read as a comment
    elif kind == "node" and name:
        state.exact["nodes"][name] = data
    elif kind == "edge":
        state.exact["edges"][len(state.edges)] = data  # the link on the next line
    return True


def _use_real_ids(state: "_State") -> None:
    """Mermaid ids are our export's sanitised node ids; the @node data has the real ones."""
    exact = state.exact or {}
    real = {m: str(d.pop("id", m)) for m, d in exact["nodes"].items()}
    rename = lambda name: real.get(name, name)  # noqa: E731
    state.names = [rename(n) for n in state.names]
    state.titles = {rename(n): t for n, t in state.titles.items()}
    state.diamonds = {rename(n) for n in state.diamonds}
    state.edges = [(rename(a), rename(b), label) for a, b, label in state.edges]
    exact["nodes"] = {rename(m): d for m, d in exact["nodes"].items()}


def _split_statements(line: str) -> list[str]:
    """Split on `;` outside double quotes and not ending an entity such as `#quot;`."""
    parts, start, quoted = [], 0, False
    for index, char in enumerate(line):
        if char == '"':
            quoted = not quoted
        elif char == ";" and not quoted and not re.search(r"#\w+$", line[start:index]):
            parts.append(line[start:index])
            start = index + 1
    return parts + [line[start:]]


class _State:
    def __init__(self):
        self.names: list[str] = []
        self.titles: dict[str, str] = {}
        self.diamonds: set[str] = set()
        self.edges: list[tuple[str, str, str]] = []
        self.failures: set[int] = set()  # indexes of dotted links (`-.->`): failure edges
        self.meta: dict[str, dict[str, str]] = {}
        self.exact: dict | None = None  # our export's exact data (see _exact_line)
        self.subroutines: set[str] = set()  # `[[ ]]` nodes: a reference to another procedure

    def add(self, name: str, title: str | None, diamond: bool,
            subroutine: bool = False) -> None:
        if name not in self.titles:
            self.names.append(name)
            self.titles[name] = name
        if title is not None:
            self.titles[name] = title
            if diamond:
                self.diamonds.add(name)
            if subroutine:
                self.subroutines.add(name)


def _statement(text: str, lineno: int, state: _State) -> None:
    pos, groups, labels = 0, [], []
    group, pos = _node_group(text, pos, lineno, state)
    groups.append(group)
    while pos < len(text.rstrip()):
        label, dotted, pos = _link(text, pos, lineno)
        group, pos = _node_group(text, pos, lineno, state)
        groups.append(group)
        labels.append((label, dotted))
    for (sources, targets), (label, dotted) in zip(zip(groups, groups[1:]), labels):
        for source in sources:
            for target in targets:
                if dotted:
                    state.failures.add(len(state.edges))
                state.edges.append((source, target, label))


def _node_group(text: str, pos: int, lineno: int, state: _State) -> tuple[list[str], int]:
    """`a[Text] & b` -> ([a, b], position after it)."""
    names = []
    while True:
        match = _ID.match(text, pos)
        if not match:
            raise FormatError(f"Mermaid: expected a node id {_at(text, pos)}", lineno)
        name, pos = match.group(1), match.end()
        start = pos
        title, diamond, pos = _shape(text, pos, lineno)
        state.add(name, title, diamond, text.startswith("[[", start))
        names.append(name)
        amp = re.compile(r"\s*&").match(text, pos)
        if not amp:
            return names, pos
        pos = amp.end()


def _shape(text: str, pos: int, lineno: int) -> tuple[str | None, bool, int]:
    for opener, closer, diamond in _SHAPES:
        if text.startswith(opener, pos):
            end = text.find(closer, pos + len(opener))
            if end < 0:
                raise FormatError(f"Mermaid: '{opener}' is not closed by '{closer}'", lineno)
            return _clean(text[pos + len(opener):end]), diamond, end + len(closer)
    return None, False, pos


def _clean(label: str) -> str:
    label = label.strip()
    if len(label) >= 2 and label[0] == label[-1] == '"':
        label = label[1:-1]
    label = re.sub(r"<br\s*/?>", " ", label, flags=re.IGNORECASE).replace("#quot;", '"')
    return " ".join(label.split())


def _at(text: str, pos: int) -> str:
    rest = text[pos:pos + 20].strip()
    return f"at '{rest}'" if rest else "at the end of the line"


def _link(text: str, pos: int, lineno: int) -> tuple[str, bool, int]:
    """(label, dotted, position after the link)."""
    match = _ARROW.match(text, pos)
    if match:
        return _clean(match.group(2) or ""), "." in match.group(1), match.end()
    match = _TEXT_ARROW.match(text, pos)
    if match:
        return _clean(match.group(1)), match.group(0).lstrip().startswith("-."), match.end()
    raise FormatError(f"Mermaid: expected a link such as '-->' {_at(text, pos)}", lineno)


# ---------------------------------------------------------------- export

def _text(label: str) -> str:
    return '"' + label.replace('"', "#quot;").replace("\n", "<br>") + '"'


def _mermaid_id(node_id: str) -> str:
    return re.sub(r"[^\w]", "_", node_id) or "node"


def export_mermaid(sop: SOP) -> str:
    ids = _safe_ids(sop)
    lines = ["flowchart TD", f"    %% @sop {encode(sop_meta(sop), percent=False)}"]
    index = SopIndex(sop)
    for node in sop.nodes:
        label = _text(node.title or node.id)
        if is_decision(index, node):  # a decision stays a diamond even at the start
            shape = f"{{{label}}}"
        elif node.kind == "end" or node.id == sop.start:
            shape = f"([{label}])"
        else:
            shape = f"[{label}]"
        lines.append(f"    {ids[node.id]}{shape}")
        exact = {**node_meta(node), "id": node.id}
        lines.append(f"    %% @node {ids[node.id]} {encode(exact, percent=False)}")
    for edge in sop.edges:
        label = edge.label or edge.when  # the author's wording; @edge has both exactly
        arrow = "-.->" if edge.on == "failure" else "-->"
        text = f"|{_text(label)}|" if label else ""
        lines.append(f"    %% @edge {encode(edge_meta(edge), percent=False)}")
        lines.append(f"    {ids[edge.source]} {arrow}{text} {ids[edge.target]}")
    return "\n".join(lines) + "\n"


def _safe_ids(sop: SOP) -> dict[str, str]:
    ids, taken = {}, set()
    for node in sop.nodes:
        candidate, count = _mermaid_id(node.id), 1
        while candidate in taken or candidate.lower() == "end":  # `end` closes a subgraph
            count += 1
            candidate = f"{_mermaid_id(node.id)}_{count}"
        taken.add(candidate)
        ids[node.id] = candidate
    return ids
