"""The simulation dock: pick a journey, scenario and agent, then step, run, pause or step back.

It shows the chat (agent, user, tool calls with mocked results, guardrail notes), the current
node's dynamic prompt, the execution memory; the canvas marks follow through `SimOverlay`. The
operator may answer as the user and edit a tool result (or force its error) before it returns.
The engine's `SimulationSession` runs on `SimController`'s worker thread; this widget composes
the parts in `panes.py` and shows what the worker reports.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QLabel, QTabWidget, QVBoxLayout, QWidget

from ...core.subflows import SubflowError, expand_file
from ...engine.render import EventRenderer
from ...engine.session import (SimulationSession, accepted_values, agent_extras,
                               journey_choices)
from ..store_link import STORE_ERRORS
from .panes import ChatView, ChoicesForm, ControlsBar, InputRow, MemoryView, PromptView
from .runs import save_gui_run
from .settings import load_profiles
from .subsops import children_text, children_tooltip, runnable
from .tool_edit import ToolResultEditor
from .worker import SimController

log = logging.getLogger(__name__)

FOLLOW_DELAY_MS = 300  # edits come in bursts (a drag, a typed title): re-list once they settle
REPLAY_END = 1_000_000  # "every event" for a replay opened at its end
SOP_CHANGED_NOTE = "The SOP changed; press Reset to start again."
FIRST_STATUS = "Pick a journey and press Step or Run."


class SimulationDock(QWidget):
    snapshot_changed = Signal(dict)
    run_finished = Signal(object)        # trace dict of a finished live run
    state_changed = Signal(str)
    operator_needed = Signal(str)        # "user" (answer as the user) | "tool" (edit a result)

    def __init__(self, session, settings=None, store_link=None, parent=None):
        super().__init__(parent)
        self.session, self.settings, self.store_link = session, settings, store_link
        self.controller = SimController(self)
        self.events: list[dict] = []
        self.snapshot: dict = {}
        self.state = "idle"
        self.waiting_for: str | None = None  # what the worker waits for from the operator
        self.choices: list = []
        self.profiles: list = []
        self.loaded = False
        self.replay_title = ""
        self.scenario = None
        self.save_runs = True
        self.last_run_id: int | None = None
        self.sop_for_run = None
        self.children: list = []  # the sub-SOP files the loaded run inlined (as saved)
        self._note_when_stopped = ""
        self.follow_timer = QTimer(self)
        self.follow_timer.setSingleShot(True)
        self.follow_timer.setInterval(FOLLOW_DELAY_MS)
        self.follow_timer.timeout.connect(self.follow_document)
        self._build()
        self.refresh_profiles()
        self._connect()
        self.refresh_journeys()

    def _build(self) -> None:
        self.choices_form = ChoicesForm()
        self.controls = ControlsBar()
        self.status = QLabel(FIRST_STATUS)
        self.status.setWordWrap(True)
        self.chat, self.prompt, self.memory = ChatView(), PromptView(), MemoryView()
        self.tabs = QTabWidget()
        self.tabs.addTab(self.chat, "Chat")
        self.tabs.addTab(self.prompt, "Prompt")
        self.tabs.addTab(self.memory, "Memory")
        self.tool_editor = ToolResultEditor()
        self.tool_editor.hide()
        self.input_row = InputRow()
        layout = QVBoxLayout(self)
        for widget, stretch in ((self.choices_form, 0), (self.controls, 0), (self.status, 0),
                                (self.tabs, 1), (self.tool_editor, 0), (self.input_row, 0)):
            layout.addWidget(widget, stretch)

    def _connect(self) -> None:
        self.controls.requested.connect(self._on_control)
        worker = self.controller.worker
        self.controls.answer_as_user.connect(lambda on: setattr(worker, "answer_as_user", on))
        self.controls.edit_tool_results.connect(
            lambda on: setattr(worker, "edit_tool_results", on))
        self.choices_form.changed.connect(self._invalidate)
        self.input_row.sent.connect(self.send_user_text)
        self.tool_editor.returned.connect(self.return_tool_result)
        # Moving nodes cannot change journeys: only structural edits re-list them.
        self.session.changed.connect(
            lambda change: change.kind != "positions" and self.follow_timer.start())
        self.session.replaced.connect(self.follow_timer.start)
        worker.stepped.connect(self._on_stepped)
        worker.rewound.connect(self._on_rewound)
        worker.state_changed.connect(self._on_state)
        worker.run_done.connect(self._on_run_done)
        worker.failed.connect(self._on_failed)
        worker.user_input_needed.connect(self._on_input_needed)
        worker.tool_result_needed.connect(self._on_tool_needed)

    def _on_control(self, key: str) -> None:
        {"step": self.step, "run": self.run, "pause": self.pause, "stop": self.stop,
         "back": self.step_back, "reset": self.reset}[key]()

    @property
    def chat_lines(self) -> list[str]:
        """The chat as plain text lines (events and notes)."""
        return self.chat.lines

    # -- following the document ---------------------------------------------------------------
    def follow_document(self) -> None:
        """The document changed: re-list journeys and stop a live run made on the old SOP."""
        self.follow_timer.stop()
        live = self.loaded and not self.replay_title
        if live and self.events and not self.snapshot.get("done"):
            self._note_when_stopped = SOP_CHANGED_NOTE
            self.tool_editor.hide()
            self.waiting_for = None
            self.controller.stop()
            self.status.setText(SOP_CHANGED_NOTE)
        self.refresh_journeys()

    # -- choices ------------------------------------------------------------------------------
    def refresh_journeys(self) -> None:
        """Re-list journeys of the current document (covering set first), keeping the selected
        journey when the new document still has it."""
        index = self.choices_form.journey_box.currentIndex()
        kept = self.choices[index].journey if 0 <= index < len(self.choices) else None
        sop = self.session.sop
        try:  # journeys of the SOP as it runs (sub-SOPs inlined)
            sop = expand_file(sop, self.session.document.path)
        except SubflowError:
            pass  # the problems dock says why; the parent's own journeys are listed meanwhile
        count, self.choices = journey_choices(sop) if sop.start else (0, [])
        same = [n for n, c in enumerate(self.choices) if c.journey == kept]
        self.choices_form.set_journeys(count, self.choices, same[0] if same else -1)
        if not (self.loaded and self.replay_title):  # a stored run replays its own version
            self._invalidate()

    def refresh_profiles(self) -> None:
        self.profiles = load_profiles(self.settings)
        self.choices_form.set_profiles([p.name for p in self.profiles])

    def _invalidate(self) -> None:
        self.loaded = False

    def select(self, journey: int | None = None, scenario: str | None = None,
               agent: str | None = None, profile: str | None = None) -> None:
        self.choices_form.select(journey, scenario, agent, profile)
        self._invalidate()

    # -- driving ------------------------------------------------------------------------------
    def start(self) -> bool:
        """Load a fresh session for the current choices into the worker."""
        if self.follow_timer.isActive():  # an edit not yet followed: list its journeys first
            self.follow_document()
        index = self.choices_form.journey_box.currentIndex()
        if not 0 <= index < len(self.choices):
            self.status.setText("This SOP has no journey to simulate.")
            return False
        try:  # the worker gets its own copy, its sub-SOPs inlined as the CLI runs it
            sop, children = runnable(self.session.sop.model_copy(deep=True),
                                     self.session.document.path)
        except SubflowError as problem:
            self.status.setText(f"Cannot run: {problem}")
            return False
        journey, kind = self.choices[index].journey, self.choices_form.scenario_type()
        agent, profile = self.choices_form.agent(), self.current_profile()
        settings = profile.llm_settings if profile is not None else None
        extras = agent_extras(agent, self.library_reader())  # here: the store is this thread's
        self.replay_title, self.sop_for_run = "", sop
        self.children = children
        self.status.setToolTip(children_tooltip(children))

        def make_session():  # on the worker thread: compiling and generating take time
            session = SimulationSession.start(sop, journey, index, kind, agent, settings,
                                              extras=extras)
            self.scenario = session.scenario
            return session
        self.controller.load(make_session)
        self.loaded = True
        return True

    def step(self, count: int = 1) -> None:
        if self.loaded or self.start():
            self.controller.step(count)

    def run(self) -> None:
        if self.loaded or self.start():
            self.controller.run()

    def step_back(self) -> None:
        if self.loaded:
            self.controller.step_back()

    def reset(self) -> None:
        """Back to the start: the same session, or a fresh one when the choices or the SOP
        changed since it was loaded."""
        if self.loaded:
            self.controller.reset()
        else:
            self.start()

    def pause(self) -> None:
        self.controller.pause()

    def stop(self) -> None:
        self.controller.stop()

    def open_replay(self, trace, sop, scenario=None, title: str = "",
                    to_end: bool = False) -> None:
        """Replay a stored trace (no model call); `sop` is the version it ran. `to_end` shows the
        whole run at once (Step back / Reset then walk it); else it starts at the beginning."""
        sop = sop or self.session.sop.model_copy(deep=True)
        self.follow_timer.stop()
        self.replay_title, self.scenario, self.sop_for_run = title, scenario, sop
        self.children = []  # a stored run carries its children inlined: no files were read
        self.status.setToolTip("")
        self.controller.load(lambda: SimulationSession.replay(sop, trace, scenario))
        if to_end:
            self.controller.rewind(REPLAY_END)
        self.loaded = True
        self.status.setText(f"Replaying {title}" if title else "Replaying a stored run")

    # -- what the worker reports ----------------------------------------------------------------
    def _on_stepped(self, events: list, snapshot: dict) -> None:
        self.events.extend(events)
        self.chat.add_events(events, EventRenderer.for_sop(self.sop_for_run or self.session.sop))
        self._show_snapshot(snapshot)

    def _on_rewound(self, events: list, snapshot: dict) -> None:
        self.events = []
        self.chat.clear_all()
        self._on_stepped(events, snapshot)

    def _show_snapshot(self, snapshot: dict) -> None:
        self.snapshot = snapshot
        self.prompt.show_prompt(snapshot.get("prompt") or "")
        titles = EventRenderer.for_sop(self.sop_for_run or self.session.sop).titles
        self.memory.show_memory(snapshot.get("memory", []), titles)
        where = titles.get(snapshot.get("node"), snapshot.get("node"))
        outcome = f" — outcome {snapshot['outcome']}{self._expected(snapshot, titles)}" \
            f"{snapshot.get('end_reason') or ''}" if snapshot.get("outcome") else ""
        review = " · Step back or Reset to walk through it" \
            if self.replay_title and snapshot.get("done") else ""
        children = children_text(self.children, self.session.document.path)
        self.status.setText(f"{self.replay_title + ': ' if self.replay_title else ''}"
                            f"at {where} · {snapshot.get('events', 0)} events{outcome}{review}"
                            f"{' · ' + children if children else ''}")
        self.snapshot_changed.emit(snapshot)

    def _expected(self, snapshot: dict, titles: dict) -> str:
        """" (as expected)" or " (expected denied at Denied)": the scenario's outcome and end
        beside the run's (as `sopstudio simulate` prints them); empty without a scenario."""
        expected = (self.scenario.expected or {}) if self.scenario else {}
        outcome, end = expected.get("outcome"), expected.get("end_node")
        if not outcome:
            return ""
        if outcome == snapshot.get("outcome") and end in (None, snapshot.get("node")):
            return " (as expected)"
        return f" (expected {outcome}{' at ' + titles.get(end, end) if end else ''})"

    def _on_failed(self, text: str) -> None:
        """An engine error, already one plain line: in the chat and the status."""
        self.chat.add_note(text)
        self.status.setText(text)

    def _on_state(self, state: str) -> None:
        self.state = state
        if state == "finished" and self._note_when_stopped:
            self.chat.add_note(self._note_when_stopped)
            self.status.setText(self._note_when_stopped)
            self._note_when_stopped = ""
        self.state_changed.emit(state)

    # -- operator input -----------------------------------------------------------------------
    def send_user_text(self, text: str) -> None:
        """Answer the waiting question, or queue the text for the next one."""
        self.controller.answer(text)  # answers a waiting question, else the next one
        if self.waiting_for == "user":
            self.waiting_for = None
        self.input_row.reset_hint()

    def return_tool_result(self, result: dict | None) -> None:
        self.tool_editor.hide()
        self.waiting_for = None
        self.controller.return_result(result)

    def _on_input_needed(self, variables: list, text: str) -> None:
        node_id = self.controller.worker.asking_node
        accepted = {name: accepted_values(self.sop_for_run or self.session.sop, node_id, name) for name in variables}
        self.input_row.ask(variables, text, accepted)
        self.status.setText("Waiting for your answer as the user…")
        self.waiting_for = "user"
        self.operator_needed.emit("user")

    def _on_tool_needed(self, tool: str, arguments: dict, result: dict) -> None:
        spec = next((t for t in (self.sop_for_run or self.session.sop).tools if t.name == tool), None)
        self.tool_editor.ask(tool, arguments, result, list(spec.errors) if spec else [])
        self.status.setText(f"Edit the result of {tool}, then Return it.")
        self.waiting_for = "tool"
        self.operator_needed.emit("tool")

    def _on_run_done(self, trace) -> None:
        """A live run ended: keep it in the store (when there is one) and tell listeners."""
        link = self.store_link if self.save_runs else None
        store = link.store() if link is not None else None
        if store is not None:
            try:
                self.last_run_id = save_gui_run(store, self.sop_for_run, trace, self.scenario,
                                                model=_model_name(self.current_profile()))
            except STORE_ERRORS as problem:  # a run that cannot be saved is shown, not lost
                log.warning("storing the run failed: %s", problem)
                self.status.setText(f"Run not stored: {problem}")
        self.run_finished.emit(trace)

    def library_reader(self):
        """Reads the store's tool library (Agent-S's action repository); None without a store."""
        return self.store_link.library_tools if self.store_link is not None else None

    def current_profile(self):
        if self.choices_form.agent() == "scripted":
            return None
        name = self.choices_form.profile_box.currentText()
        return next((p for p in self.profiles if p.name == name), None)

    def shutdown(self) -> None:
        self.controller.shutdown()


def _model_name(profile) -> str | None:
    return profile.model if profile is not None else None
