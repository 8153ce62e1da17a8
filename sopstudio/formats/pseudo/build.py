"""Statement tree -> SOP graph: one node per action, branches as conditional edges.

A chain of `if` branches leaves from the node just before it (the check whose output it tests);
a chain with no node before it gets a decision node (a task with no actions). Every derived
variable and tool name is reported in the notes for the author to confirm.
"""

from __future__ import annotations

import re

from ...core.inputs import InputError, strip_bom
from ...core.model import SOP, Edge, Node, Tool, ToolOutput, Variable
from .. import _expr
from ..base import FormatError, ImportResult, outcome_name, snake, unique
from . import words
from .conditions import (Condition, failure_when, literals, needs_default, translate,
                         unify_phrases, widen)
from .lines import Action, Chain, clean_lines, statements, tree
from .shape import check_shape

_TITLE = re.compile(r"^\s*(?:#+\s*|title:\s*)(.+)$", re.IGNORECASE)
Pending = tuple[str, "str | None", str, str]  # (source node id, when, label, on)


def import_pseudocode(text: str, source: str = "<paste>") -> ImportResult:
    text = strip_bom(text)  # a byte-order mark is no content (e.g. not part of a title)
    title, text = _split_title(text)
    lines = clean_lines(text)
    if not lines:
        raise FormatError("no SOP lines found (the text is empty)", 1)
    check_shape(text, lines)
    items = tree(lines)
    _check_nesting(items)
    builder = _Builder()
    loose = builder.sequence(statements(items)[0], [], [], None)
    builder.close(loose)
    sop = SOP(id=snake(title, "sop").replace("_", "-") if title else "imported-sop",
              title=title or "Imported SOP", start=builder.nodes[0].id if builder.nodes else None,
              variables=list(builder.variables.values()), tools=list(builder.tools.values()),
              nodes=builder.nodes, edges=builder.edges)
    return ImportResult(sop, builder.notes, "text")


MAX_NESTING = 100  # indentation levels; the statement parser recurses once per level


def _check_nesting(items: list) -> None:
    """Refuse deeper indentation than MAX_NESTING (one clear line, exit 2), found iteratively."""
    stack = [(item, 1) for item in items]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_NESTING:
            raise InputError(f"line {item.lineno}",
                             f"nested too deeply (more than {MAX_NESTING} levels of indentation)")
        stack.extend((child, depth + 1) for child in item.children)


def _split_title(text: str) -> tuple[str, str]:
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if line.strip():
            match = _TITLE.match(line)
            if match and not match.group(1).strip().startswith("|"):
                return match.group(1).strip(), "\n".join(lines[:index] + [""] + lines[index + 1:])
            break
    return "", text


class _Builder:
    def __init__(self):
        # Nodes and edges are appended to a draft SOP's lists so that its lookups
        # (`node`, `out_edges`) serve the builder too.
        self.draft = SOP(id="draft")
        self.nodes: list[Node] = self.draft.nodes
        self.edges: list[Edge] = self.draft.edges
        self.tools: dict[str, Tool] = {}
        self.variables: dict[str, Variable] = {}
        self.notes: list[str] = []
        self.ids: set[str] = set()
        self.by_id: dict[str, Node] = {}        # indexes kept as nodes and edges are added:
        self.leaving: set[str] = set()          # scans of the lists made long texts quadratic
        self.subjects: dict[str, tuple[str, str]] = {}  # node id -> (variable, producer kind)
        self.orphans: list[str] = []  # notes seen before any node exists
        self.jumps: dict[str, int] = {}  # `go to [id]` target -> line, checked at the end

    # ------------------------------------------------------------ statements
    def sequence(self, stmts: list, pending: list[Pending], asked: list[str],
                 last_tool: str | None) -> list[Pending]:
        asked, ended = list(asked), None
        for stmt in stmts:
            if ended is not None:
                self._note_lines(ended, stmt, "after the flow ended")
                continue
            if isinstance(stmt, Chain):
                pending = self.chain(stmt, pending, asked, last_tool)
                continue
            target = words.goto_target(stmt.text)
            if target is not None:  # a loop back (or jump) to a step marked [id]
                self.jumps.setdefault(target, stmt.lineno)
                self.connect(pending, target)
                pending, ended = [], self.nearest()
                continue
            text, node_id, attempts = words.split_annotation(stmt.text)
            # a marked line (our export) is one step; otherwise each action is its own step
            groups = [words.split_compound(text)] if node_id else \
                [[part] for part in words.split_compound(text)]
            for parts in groups:
                node = self.action(stmt.lineno, parts, asked, pending, node_id)
                node.max_attempts = attempts
                self.connect(pending, node.id)
                last_tool = node.tools[-1] if node.tools else last_tool
                asked += node.ask
                pending = [] if node.kind == "end" else [(node.id, None, "", "success")]
                if node.kind == "end":
                    ended = node
                    break
        return pending

    def chain(self, chain: Chain, pending: list[Pending], asked: list[str],
              last_tool: str | None) -> list[Pending]:
        success = [b for b in chain.branches if b.on == "success"]
        failure = [b for b in chain.branches if b.on == "failure"]
        if success and success[0].condition == "else":
            self._note_lines(self.nearest(), chain, "an 'else' with no 'if' before it")
            return pending
        if not success:  # failure branches only: the step's success path goes on below them
            if len(pending) != 1 or pending[0][1] is not None:
                self._note_lines(self.nearest(), chain, "an 'on failure' with no step before it")
                return pending
            source = self.node_by_id(pending[0][0])
            return pending + self.failures(failure, source, asked, last_tool)
        source = self._chain_source(success[0], pending)
        subject = self.subjects.get(source.id, (None, ""))[0]
        conds = unify_phrases([translate(b.condition, subject) for b in success], subject)
        loose: list[Pending] = []
        for branch, cond in zip(success, conds):
            self.declare(cond, source, last_tool, branch.lineno, branch.condition)
            start = [(source.id, cond.expr, branch.condition, "success")]
            loose += self.sequence(branch.body, start, asked, last_tool)
        if not any(c.kind == "else" for c in conds) and needs_default(conds):
            loose.append((source.id, "else", "otherwise", "success"))
        return loose + self.failures(failure, source, asked, last_tool)

    def failures(self, branches: list, source: Node, asked: list[str],
                 last_tool: str | None) -> list[Pending]:
        """`on failure [if error == 'x']:` branches: failure edges; the values become the
        errors of the step's tools."""
        loose: list[Pending] = []
        for branch in branches:
            when = failure_when(branch.condition)
            for name in source.tools:
                tool = self.tools[name]
                tool.errors = list(dict.fromkeys([*tool.errors, *literals(when)]))
            start = [(source.id, when, branch.condition or "failure", "failure")]
            loose += self.sequence(branch.body, start, asked, last_tool)
        return loose

    def _chain_source(self, first, pending: list[Pending]) -> Node:
        if len(pending) == 1 and pending[0][1] is None:
            node = self.node_by_id(pending[0][0])
            if node.id not in self.leaving:
                return node
        node = self.add_node(first.lineno, f"Decide: {first.condition}",
                             id_hint="decide_" + words.name_from(first.condition, "branch"))
        self.connect(pending, node.id)
        return node

    # ------------------------------------------------------------ nodes
    def action(self, lineno: int, parts: list[str], asked: list[str], pending: list[Pending],
               node_id: str | None = None) -> Node:
        """One step doing every action in `parts` (several only on a marked line)."""
        text = " and ".join(parts)
        kinds = [words.kind_of(part) for part in parts]
        node = self.add_node(lineno, text, "end" if "end" in kinds else "task", node_id or "")
        if node_id and node.id != node_id:
            raise FormatError(f"step [{node_id}] is marked twice", lineno)
        for part, kind in zip(parts, kinds):
            self._act(node, lineno, part, kind, asked + node.ask, pending)
        return node

    def _act(self, node: Node, lineno: int, text: str, kind: str, asked: list[str],
             pending: list[Pending]) -> None:
        if kind == "end":
            outcome = re.search(r"\(([\w\-]+)\)$", text)
            node.outcome = outcome.group(1) if outcome else self._outcome(pending)
        elif kind == "ask":
            known = {p for t in self.tools.values() for p in t.parameter_names()}
            for name in words.asked_variables(text, known):
                node.ask = [*node.ask, self.variable(name, "user", lineno, text)]
                self.subjects[node.id] = (name, "user")
        elif kind == "message":
            node.say = words.message_text(text)
        elif kind == "tool":
            node.tools = [*node.tools, self.tool(words.tool_name(text), text, asked)]
            self.subjects[node.id] = (words.tool_subject(text), node.tools[-1])
        elif kind == "set":
            name, expr = words.set_assignment(text)
            node.set = {**node.set, name: expr}
            self.variable(name, "set", lineno, text)
            self.inputs_of(node, expr, lineno)
        elif kind != "step":
            node.notes.append(f"line {lineno}: not recognised as ask / tool / message / end; "
                              f"kept as an instruction ({kind})")
            self.notes.append(f"line {lineno}: '{text}' kept as an instruction-only step")

    def add_node(self, lineno: int, text: str, kind: str = "task", id_hint: str = "") -> Node:
        if id_hint and kind != "end" and id_hint not in self.ids and id_hint == id_hint.strip():
            node_id = unique(id_hint, self.ids)  # a marked id (our export) is kept whole
        else:
            node_id = unique((id_hint or words.name_from(text, "step"))[:40].strip("_"), self.ids)
        text = re.sub(r"^step\s*:\s*", "", text, flags=re.IGNORECASE) or text  # our export's marker
        title = text[:1].upper() + text[1:]
        node = Node(id=node_id, title=title, kind=kind, instructions=text,
                    notes=self.orphans[:] if not self.nodes else [])
        self.orphans.clear()
        self.nodes.append(node)
        self.by_id[node_id] = node
        return node

    def tool(self, name: str, text: str, asked: list[str]) -> str:
        if name not in self.tools:
            params = [v for v in dict.fromkeys(asked) if v in name]
            schema = {"type": "object", "required": params,
                      "properties": {p: {"type": self.variables[p].type} for p in params}}
            self.tools[name] = Tool(name=name, description=text, parameters=schema)
            self.notes.append(f"tool '{name}' (from '{text}'; parameters: "
                              f"{', '.join(params) or 'none'}) — confirm the name")
        return name

    def inputs_of(self, node: Node, expr: str, lineno: int) -> None:
        """Names an assignment reads that nothing supplies yet: outputs of the step's tool."""
        outputs = {o.name for t in self.tools.values() for o in t.outputs}
        tool = self.tools.get(node.tools[-1]) if node.tools else None
        for name in _expr.names_read(expr):
            if name in self.variables or name in outputs:
                continue
            if tool is None:
                self.variable(name, "user", lineno, f"read by: {expr}")
                continue
            tool.outputs = [*tool.outputs, ToolOutput(name=name, type="number" if re.search(
                r"[-+*/]", expr) else "string")]
            self.notes.append(f"line {lineno}: '{name}' taken as an output of tool "
                              f"'{tool.name}' — confirm the name")

    def variable(self, name: str, source: str, lineno: int, text: str) -> str:
        if name not in self.variables:
            self.variables[name] = Variable(name=name, source=source, description=text)
            self.notes.append(f"line {lineno}: variable '{name}' (from '{text}') — confirm "
                              "the name")
        return name

    def declare(self, cond: Condition, source: Node, last_tool: str | None, lineno: int,
                wording: str) -> None:
        """Make sure something supplies the variable a condition reads, with its values."""
        if cond.var is None:
            return
        self.notes.append(f"line {lineno}: 'if {wording}' -> `{cond.expr}`")
        subject, producer = self.subjects.get(source.id, (None, ""))
        if cond.var in self.variables:
            widen(self.variables[cond.var], cond)
            return
        tool_name = producer if cond.var == subject and producer != "user" else last_tool
        tool = self.tools.get(tool_name or "")
        if tool is None:
            self.variable(cond.var, "user", lineno, f"answer to: {wording}")
            widen(self.variables[cond.var], cond)
            if cond.var not in source.ask:
                source.ask = [*source.ask, cond.var]
            return
        output = next((o for o in tool.outputs if o.name == cond.var), None)
        if output is None:
            output = ToolOutput(name=cond.var, type="string")
            tool.outputs = [*tool.outputs, output]
            self.notes.append(f"line {lineno}: '{cond.var}' taken as an output of tool "
                              f"'{tool.name}' — confirm the name")
        widen(output, cond)

    # ------------------------------------------------------------ edges, notes
    def connect(self, pending: list[Pending], target: str) -> None:
        for source, when, label, on in pending:
            self.edges.append(Edge(id=f"e{len(self.edges) + 1}", source=source, target=target,
                                   when=when, label=label, on=on))
            if on == "success":
                self.leaving.add(source)

    def close(self, loose: list[Pending]) -> None:
        if loose:
            end = self.add_node(0, "End", kind="end", id_hint="end")
            end.outcome = "completed"
            self.connect(loose, end.id)
            self.notes.append("added an end node 'end' where the text stops without one")
        if self.orphans and self.nodes:
            self.nodes[0].notes += self.orphans
        for target, lineno in self.jumps.items():
            if target not in self.ids:
                raise FormatError(f"'go to [{target}]': no step is marked [{target}]", lineno)

    def nearest(self) -> Node | None:
        return self.nodes[-1] if self.nodes else None

    def _note_lines(self, node: Node | None, stmt, why: str) -> None:
        for lineno, text in _flatten(stmt):
            note = f"line {lineno}: {text} ({why})"
            (node.notes.append(note) if node else self.orphans.append(note))
            self.notes.append(f"line {lineno}: kept as a note: '{text}' ({why})")

    def _outcome(self, pending: list[Pending]) -> str:
        if len(pending) == 1:
            prev = self.node_by_id(pending[0][0])
            if prev.say:
                return outcome_name(prev.say, "completed")
            if prev.tools:
                return prev.tools[0]
        return "completed"

    def node_by_id(self, node_id: str) -> Node:
        return self.by_id[node_id]  # pending edges name added nodes


def _flatten(stmt) -> list[tuple[int, str]]:
    if isinstance(stmt, Action):
        return [(stmt.lineno, stmt.text)]
    out = []
    for branch in stmt.branches:
        out.append((branch.lineno, "if " + branch.condition if branch.condition != "else"
                    else "else"))
        for inner in branch.body:
            out += _flatten(inner)
    return out
