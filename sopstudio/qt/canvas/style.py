"""Colours, fonts and sizes of the canvas, in one place so items and the legend agree."""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont

TASK_FILL = QColor("#eef4fb")
TASK_BORDER = QColor("#4a76a8")
DECISION_FILL = QColor("#fff6dc")
DECISION_BORDER = QColor("#c08a00")
END_BORDER = QColor("#555555")
SELECTED = QColor("#ff8c1a")
TEXT = QColor("#1d2733")
MUTED = QColor("#5c6b7a")
CHIP_FILL = QColor("#d9e6f5")
CHIP_TEXT = QColor("#234a73")
START_COLOR = QColor("#2e9d4f")
EDGE = QColor("#56606b")
FAILURE_EDGE = QColor("#c0392b")
LABEL_FILL = QColor(255, 255, 255, 235)
ERROR = QColor("#d93025")
WARNING = QColor("#e8a200")
BACKGROUND = QColor("#fafbfc")
GRID = QColor("#eef0f3")
# Below this zoom, items draw shapes only (10 pt text is under ~2 px tall there).
TEXT_DETAIL = 0.2
# Below this zoom, secondary text (markers, tool chips, edge labels) is hidden and titles are
# drawn larger, so that they stay at least MIN_TITLE_PX tall on screen (level of detail).
SECONDARY_DETAIL = 0.55
MIN_TITLE_PX = 10.0

# End node fill by outcome, matched by word stem so "approved", "resolved_ok" etc. all work.
OUTCOME_FILLS = (  # checked in order: "unresolved" is red, not green
    (("unresolv", "reject", "declin", "fail", "block", "denied", "invalid", "error"),
     QColor("#f9dcdc")),
    (("escalat", "handoff", "hand-off", "transfer", "pending", "unavailab", "technical",
      "referr", "review", "counter"), QColor("#fde9d2")),
    (("resolv", "success", "done", "complet", "approv", "register", "updat"),
     QColor("#dff3e3")),
)
END_FILL_DEFAULT = QColor("#ececec")


# The canvas colours of each theme; `use_palette` swaps them in (items read this module's names
# whenever they paint, so a repaint is all a change needs).
LIGHT = {name: globals()[name] for name in (
    "TASK_FILL", "TASK_BORDER", "DECISION_FILL", "DECISION_BORDER", "END_BORDER", "TEXT",
    "MUTED", "CHIP_FILL", "CHIP_TEXT", "EDGE", "LABEL_FILL", "BACKGROUND", "GRID")}
LIGHT_OUTCOMES = OUTCOME_FILLS, END_FILL_DEFAULT
DARK = {"TASK_FILL": QColor("#243447"), "TASK_BORDER": QColor("#6f9fd6"),
        "DECISION_FILL": QColor("#3d3320"), "DECISION_BORDER": QColor("#d9a520"),
        "END_BORDER": QColor("#a0a7b0"), "TEXT": QColor("#e6ebf0"), "MUTED": QColor("#a9b4c0"),
        "CHIP_FILL": QColor("#34506e"), "CHIP_TEXT": QColor("#d7e6f7"),
        "EDGE": QColor("#9aa5b1"), "LABEL_FILL": QColor(40, 44, 52, 235),
        "BACKGROUND": QColor("#1e2228"), "GRID": QColor("#2a2f36")}
DARK_OUTCOMES = (tuple((stems, colour) for stems, colour in zip(
    (stems for stems, _ in OUTCOME_FILLS),
    (QColor("#5a2a2a"), QColor("#5a4020"), QColor("#24492f")))), QColor("#3a3d42"))


def use_palette(dark: bool) -> None:
    """Switch the canvas colours to the dark or the light set."""
    global OUTCOME_FILLS, END_FILL_DEFAULT
    globals().update(DARK if dark else LIGHT)
    OUTCOME_FILLS, END_FILL_DEFAULT = DARK_OUTCOMES if dark else LIGHT_OUTCOMES


def outcome_fill(outcome: str | None) -> QColor:
    text = (outcome or "").lower()
    for stems, colour in OUTCOME_FILLS:
        if any(stem in text for stem in stems):
            return colour
    return END_FILL_DEFAULT


def title_font() -> QFont:
    font = QFont()
    font.setPointSizeF(10.0)
    font.setBold(True)
    return font


def title_font_at(detail: float, max_px: float) -> QFont:
    """The title font at zoom `detail`: never under MIN_TITLE_PX screen pixels tall, nor
    taller than `max_px` scene units (two lines must fit in the node)."""
    font = title_font()
    if detail < SECONDARY_DETAIL:
        wanted = MIN_TITLE_PX / max(detail, TEXT_DETAIL)
        font.setPixelSize(int(max(13, min(wanted, max_px))))
    return font


def small_font() -> QFont:
    font = QFont()
    font.setPointSizeF(8.0)
    return font


def label_font() -> QFont:
    font = QFont()
    font.setPointSizeF(8.5)
    return font
