"""How trace events read in the simulation dock: one chat line (HTML and plain text) per event.

Agent and user messages are chat bubbles; tool calls show their arguments and the mocked result;
guardrail rejections show the reflection fed back to the model; transitions and the end are
system notes. Operator input (typed as the user, an edited tool result) is tagged as such.
"""

from __future__ import annotations

import html
import json

COLOURS = {"agent": "#e8f0fb", "user": "#e9f6ec", "tool": "#f4f1fb", "guard": "#fdecea",
           "note": "#f2f3f5", "end": "#fff4e0"}


def _short(value, limit: int = 160) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True) if not isinstance(value, str) \
        else value
    return text if len(text) <= limit else text[:limit - 1] + "…"


def plain_line(event: dict, titles: dict) -> str:
    """The event as one line of plain text (also what the tests read)."""
    kind = event.get("type")
    node = titles.get(event.get("node"), event.get("node"))
    operator = " (operator)" if event.get("operator") else ""
    if kind in ("say", "ask"):
        return f"Agent: {event.get('text') or ''}"
    if kind == "user":
        return f"User{operator}: {event.get('text') or ''}"
    if kind == "tool_call":
        return f"Tool call {event.get('tool')}({_short(event.get('arguments') or {})})"
    if kind == "tool_result":
        result = event.get("result") or {}
        shown = f"error {result['error']}" if "error" in result else \
            _short(result.get("outputs", {}))
        edited = " (edited by operator)" if event.get("operator") else ""
        return f"Result {event.get('tool')} → {shown}{edited}"
    if kind == "transition":
        return f"→ {node}"
    if kind == "guardrail":
        return f"Guardrail [{event.get('code')}]: {event.get('text') or ''}"
    if kind == "end":
        return f"End: {event.get('outcome')} at {node}{end_reason(event)}"
    return f"{kind}: {event.get('text') or ''}"


def end_reason(event: dict) -> str:
    """Why the run ended, when the engine says (e.g. " [no-matching-edge] no branch of …")."""
    code, text = event.get("code"), event.get("text")
    shown = " ".join(part for part in (f"[{code}]" if code else "", text or "") if part)
    return f" — {shown}" if shown else ""


def _style(kind: str) -> str:
    if kind in ("say", "ask"):
        return "agent"
    if kind == "user":
        return "user"
    if kind in ("tool_call", "tool_result"):
        return "tool"
    if kind == "guardrail":
        return "guard"
    return "end" if kind == "end" else "note"


def html_line(event: dict, titles: dict) -> str:
    """The event as a small coloured block for the chat view."""
    kind = event.get("type")
    style = _style(kind)
    text = html.escape(plain_line(event, titles))
    head, _, rest = text.partition(": ") if style in ("agent", "user", "guard") else ("", "", text)
    body = f"<b>{head}</b>: {rest}" if head else rest
    if style == "note":
        return f"<p style='margin:2px 0; color:#5c6b7a; font-size:small'><i>{body}</i></p>"
    align = "right" if style == "user" else "left"
    return (f"<table width='100%' cellspacing='0' cellpadding='4' style='margin:2px 0'>"
            f"<tr><td align='{align}' style='background:{COLOURS[style]}'>{body}</td></tr>"
            f"</table>")


def note_html(text: str) -> str:
    """A plain note from the dock itself (an error, "the SOP changed"), not from the run."""
    return (f"<p style='margin:4px 0; color:#8a4b00'><b>Note:</b> "
            f"{html.escape(text)}</p>")
