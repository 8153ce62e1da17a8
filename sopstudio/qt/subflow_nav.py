"""Going into sub-SOPs on the canvas: double-click a subflow node to open its child file, and a
breadcrumb bar above the canvas ("Parent title › Child title") to climb back.

The trail is the chain of files opened this way; opening any other document (File ▸ Open, New,
Import) ends it. Leaving a document asks about unsaved changes exactly as File ▸ Open does
(`FileOps.open_path`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget

ARROW = "›"


@dataclass
class Crumb:
    path: Path
    title: str


class BreadcrumbBar(QWidget):
    """The trail of parents (buttons) and the open child (bold label); hidden when empty."""

    def __init__(self, navigator, parent=None):
        super().__init__(parent)
        self.navigator = navigator
        self.row = QHBoxLayout(self)
        self.row.setContentsMargins(6, 2, 6, 2)
        self.buttons: list[QToolButton] = []
        self.current = QLabel()
        self.current.setTextFormat(Qt.PlainText)
        self.hide()

    def show_trail(self, trail: list[Crumb], current_title: str) -> None:
        while self.row.count():
            item = self.row.takeAt(0)
            if item.widget() is not None and item.widget() is not self.current:
                item.widget().deleteLater()
        self.buttons = []
        for index, crumb in enumerate(trail):
            button = QToolButton()
            button.setText(crumb.title)
            button.setAutoRaise(True)
            button.setStyleSheet("color: palette(link); text-decoration: underline;")
            button.setToolTip(f"Back to {crumb.path}")
            button.clicked.connect(lambda _=False, i=index: self.navigator.back_to(i))
            self.buttons.append(button)
            self.row.addWidget(button)
            self.row.addWidget(QLabel(ARROW))
        self.current.setText(current_title)
        font = self.current.font()
        font.setBold(True)
        self.current.setFont(font)
        self.row.addWidget(self.current)
        self.row.addStretch(1)
        self.setVisible(bool(trail))

    def text(self) -> str:
        """What the bar reads, e.g. "Refund an order › Verify identity"."""
        return f" {ARROW} ".join([b.text() for b in self.buttons] + [self.current.text()])


class SubflowNavigator:
    """Opens a subflow node's child file in the window and keeps the way back."""

    def __init__(self, window):
        self.window = window
        self.trail: list[Crumb] = []
        self._moving = False
        self.bar = BreadcrumbBar(self)
        window.scene.node_activated.connect(self.enter)
        window.session.replaced.connect(self._on_replaced)

    def enter(self, node_id: str) -> bool:
        """Open the child of subflow node `node_id`; False when it is not one or cannot be."""
        document = self.window.session.document
        node = document.sop.node(node_id)
        if node is None or node.kind != "subflow" or not node.subflow:
            return False
        if document.path is None:
            self._say("Save this SOP first: its sub-SOP is found next to its file.")
            return False
        child = (document.path.parent / node.subflow).resolve()
        if not child.is_file():
            self._say(f"Sub-SOP file not found: {child}")
            return False
        crumb = Crumb(document.path, self._title())
        if not self._open(child):
            return False
        self.trail.append(crumb)
        self._refresh()
        return True

    def back_to(self, index: int) -> bool:
        """Open the parent at `index` of the trail (0 = the top SOP) and drop what follows."""
        crumb = self.trail[index]
        if not self._open(crumb.path):
            return False
        del self.trail[index:]
        self._refresh()
        return True

    def _open(self, path: Path) -> bool:
        self._moving = True
        try:
            return self.window.files.open_path(str(path))
        finally:
            self._moving = False

    def _on_replaced(self) -> None:
        if not self._moving:  # another document was opened: the trail no longer applies
            self.trail = []
        self._refresh()

    def _refresh(self) -> None:
        self.bar.show_trail(self.trail, self._title())

    def _title(self) -> str:
        sop = self.window.session.sop
        return sop.title or sop.id

    def _say(self, text: str) -> None:
        self.window.statusBar().showMessage(text, 8000)
