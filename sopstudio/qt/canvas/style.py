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


def small_font() -> QFont:
    font = QFont()
    font.setPointSizeF(8.0)
    return font


def label_font() -> QFont:
    font = QFont()
    font.setPointSizeF(8.5)
    return font
