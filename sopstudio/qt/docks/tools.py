"""The tool library dock: the SOP's own tools and the shared library from the store.

Click a tool to edit it in the inspector; drag a tool onto a node on the canvas to bind it
(a library tool is copied into the SOP at that moment).
"""

from __future__ import annotations

from PySide6.QtCore import QMimeData, Signal
from PySide6.QtWidgets import (QLabel, QLineEdit, QListWidget, QPushButton, QVBoxLayout,
                               QWidget)

from ...core import edits
from ...core.model import Tool
from ..canvas.scene import TOOL_MIME


class ToolList(QListWidget):
    """A list whose items drag as tool names onto the canvas."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setDragEnabled(True)
        self.setDragDropMode(QListWidget.DragOnly)

    def mimeData(self, items):
        mime = QMimeData()
        if items:
            name = items[0].text().split("  ")[0]
            mime.setData(TOOL_MIME, name.encode("utf-8"))
            mime.setText(name)
        return mime


class ToolLibraryDock(QWidget):
    tool_chosen = Signal(str)

    def __init__(self, session, editor, store_link, parent=None):
        super().__init__(parent)
        self.session, self.editor, self.store_link = session, editor, store_link
        self.sop_tools = ToolList()
        self.sop_tools.itemClicked.connect(lambda item: self.tool_chosen.emit(
            item.text().split("  ")[0]))
        new_button = QPushButton("New tool")
        new_button.clicked.connect(self.new_tool)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search the library…")
        self.search.textChanged.connect(self.refresh_library)
        self.library = ToolList()
        self.status = QLabel()
        self.status.setWordWrap(True)
        layout = QVBoxLayout(self)
        for widget in (QLabel("<b>In this SOP</b>"), self.sop_tools, new_button,
                       QLabel("<b>Library</b> (drag onto a node)"), self.search, self.library,
                       self.status):
            layout.addWidget(widget)
        self.refresh_library()

    def refresh_sop_tools(self) -> None:
        self.sop_tools.clear()
        for tool in self.session.sop.tools:
            self.sop_tools.addItem(f"{tool.name}  ({tool.method})")

    def refresh_library(self) -> None:
        self.library.clear()
        tools = self.store_link.library_tools(self.search.text().strip())
        for tool in tools:
            self.library.addItem(f"{tool.name}  — {tool.description[:60]}")
        if self.store_link.store() is None:
            self.status.setText(f"Library unavailable: {self.store_link.last_error}")
        else:
            self.status.setText("" if tools else "The shared library is empty.")

    def new_tool(self) -> None:
        names = {t.name for t in self.session.sop.tools}
        index = 1
        while f"tool_{index}" in names:
            index += 1
        if self.session.push(edits.AddTool(Tool(name=f"tool_{index}"))):
            self.tool_chosen.emit(f"tool_{index}")
