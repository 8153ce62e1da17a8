"""The simulation dock: pick a journey, scenario and agent, then step, run, pause or step back.

It shows the chat (agent, user, tool calls with mocked results, guardrail notes), the current
node's dynamic prompt, the execution memory; the canvas marks follow through `SimOverlay`. The
operator may answer as the user and edit a tool result (or force its error) before it returns.
The engine runs on `SimController`'s worker thread; this widget only shows what it reports.
"""

from __future__ import annotations

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QWidget

from . import store_link
from .sim_accepted import accepted_values
from .sim_dock_build import INPUT_HINT, asked_hint, build_dock
from .sim_dock_view import SOP_CHANGED_NOTE, DockView
from .sim_history import save_gui_run
from .sim_run import SimulationSession, agent_factory, journey_choices
from .sim_settings import load_profiles
from .sim_worker import SimController

FOLLOW_DELAY_MS = 300  # edits come in bursts (a drag, a typed title): re-list once they settle
REPLAY_END = 1_000_000  # "every event" for a replay opened at its end


class SimulationDock(DockView, QWidget):
    snapshot_changed = Signal(dict)
    run_finished = Signal(object)        # trace dict of a finished live run
    state_changed = Signal(str)
    operator_needed = Signal(str)        # "user" (answer as the user) | "tool" (edit a result)

    def __init__(self, session, settings=None, parent=None):
        super().__init__(parent)
        self.session, self.settings = session, settings
        self.controller = SimController(self)
        self.events: list[dict] = []
        self.chat_lines: list[str] = []
        self.snapshot: dict = {}
        self.state = "idle"
        self.waiting_for: str | None = None  # what the worker waits for from the operator
        self.choices: list = []
        self.loaded = False
        self.replay_title = ""
        self.scenario = None
        self.save_runs = True
        self.last_run_id: int | None = None
        self.sop_for_run = None
        self._note_when_stopped = ""
        self.follow_timer = QTimer(self)
        self.follow_timer.setSingleShot(True)
        self.follow_timer.setInterval(FOLLOW_DELAY_MS)
        self.follow_timer.timeout.connect(self.follow_document)
        build_dock(self)
        self.refresh_profiles()
        self._on_agent_changed()
        self._connect()
        self.refresh_journeys()

    def _connect(self) -> None:
        b = self.buttons
        b["step"].clicked.connect(lambda: self.step())
        b["run"].clicked.connect(self.run)
        b["pause"].clicked.connect(self.controller.pause)
        b["stop"].clicked.connect(self.controller.stop)
        b["back"].clicked.connect(self.step_back)
        b["reset"].clicked.connect(self.reset)
        for box in (self.journey_box, self.scenario_box, self.profile_box):
            box.currentIndexChanged.connect(self._invalidate)
        self.agent_box.currentIndexChanged.connect(self._on_agent_changed)
        self.as_user.toggled.connect(lambda on: setattr(self.controller.worker,
                                                        "answer_as_user", on))
        self.edit_results.toggled.connect(lambda on: setattr(self.controller.worker,
                                                             "edit_tool_results", on))
        self.send_button.clicked.connect(self._send)
        self.user_input.returnPressed.connect(self._send)
        self.tool_editor.returned.connect(self.return_tool_result)
        # Moving nodes cannot change journeys: only structural edits re-list them.
        self.session.changed.connect(
            lambda change: change.kind != "positions" and self.follow_timer.start())
        self.session.replaced.connect(self.follow_timer.start)
        w = self.controller.worker
        w.stepped.connect(self._on_stepped)
        w.rewound.connect(self._on_rewound)
        w.state_changed.connect(self._on_state)
        w.run_done.connect(self._on_run_done)
        w.failed.connect(self._on_failed)
        w.user_input_needed.connect(self._on_input_needed)
        w.tool_result_needed.connect(self._on_tool_needed)

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
        index = self.journey_box.currentIndex()
        kept = self.choices[index].journey if 0 <= index < len(self.choices) else None
        sop = self.session.sop
        count, self.choices = journey_choices(sop) if sop.start else (0, [])
        self.journey_box.blockSignals(True)
        self.journey_box.clear()
        for number, choice in enumerate(self.choices):
            mark = "★ " if choice.covering else ""
            self.journey_box.addItem(f"{number}: {mark}{choice.label}")
            self.journey_box.setItemData(number, choice.label, 3)  # tooltip role
        same = [n for n, c in enumerate(self.choices) if c.journey == kept]
        self.journey_box.setCurrentIndex(same[0] if same else (0 if self.choices else -1))
        self.journey_box.blockSignals(False)
        covering = sum(1 for c in self.choices if c.covering)
        self.journey_label.setText(f"Journey ({count} in all, ★ {covering} cover every edge)")
        if not (self.loaded and self.replay_title):  # a stored run replays its own version
            self._invalidate()

    def refresh_profiles(self) -> None:
        self.profiles = load_profiles(self.settings)
        self.profile_box.clear()
        self.profile_box.addItems([p.name for p in self.profiles])

    def _on_agent_changed(self) -> None:
        self.profile_box.setEnabled(self.agent_box.currentText() != "scripted")
        self._invalidate()

    def _invalidate(self) -> None:
        self.loaded = False

    def select(self, journey: int | None = None, scenario: str | None = None,
               agent: str | None = None, profile: str | None = None) -> None:
        if journey is not None:
            self.journey_box.setCurrentIndex(journey)
        if scenario is not None:
            self.scenario_box.setCurrentText(scenario)
        if agent is not None:
            self.agent_box.setCurrentText(agent)
        if profile is not None:
            self.profile_box.setCurrentText(profile)
        self._invalidate()

    # -- driving ------------------------------------------------------------------------------
    def start(self) -> bool:
        """Load a fresh session for the current choices into the worker."""
        if self.follow_timer.isActive():  # an edit not yet followed: list its journeys first
            self.follow_document()
        index = self.journey_box.currentIndex()
        if not 0 <= index < len(self.choices):
            self.status.setText("This SOP has no journey to simulate.")
            return False
        sop = self.session.sop.model_copy(deep=True)  # the worker gets its own copy
        choice, kind = self.choices[index], self.scenario_box.currentText()
        agent, profile = self.agent_box.currentText(), self.current_profile()
        self.replay_title, self.sop_for_run = "", sop
        self.controller.load(lambda: _live_session(sop, choice.journey, index, kind, agent,
                                                   profile, self))
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
        from ..engine.compiled import CompiledSop
        sop = sop or self.session.sop.model_copy(deep=True)
        self.follow_timer.stop()
        self.replay_title, self.scenario, self.sop_for_run = title, scenario, sop
        self.controller.load(lambda: SimulationSession(CompiledSop(sop), scenario, lambda: None,
                                                       recorded=trace))
        if to_end:
            self.controller.rewind(REPLAY_END)
        self.loaded = True
        self.status.setText(f"Replaying {title}" if title else "Replaying a stored run")

    # -- operator input -----------------------------------------------------------------------
    def _send(self) -> None:
        text = self.user_input.text().strip()
        if text:
            self.send_user_text(text)
            self.user_input.clear()

    def send_user_text(self, text: str) -> None:
        """Answer the waiting question, or queue the text for the next one."""
        self.controller.answer(text)  # answers a waiting question, else the next one
        if self.waiting_for == "user":
            self.waiting_for = None
        self.user_input.setPlaceholderText(INPUT_HINT)

    def return_tool_result(self, result: dict | None) -> None:
        self.tool_editor.hide()
        self.waiting_for = None
        self.controller.return_result(result)

    def _on_input_needed(self, variables: list, text: str) -> None:
        node_id = self.controller.worker.asking_node
        accepted = {name: accepted_values(self.session.sop, node_id, name) for name in variables}
        self.user_input.setPlaceholderText(asked_hint(variables, text, accepted))
        self.user_input.setFocus()
        self.status.setText("Waiting for your answer as the user…")
        self.waiting_for = "user"
        self.operator_needed.emit("user")

    def _on_tool_needed(self, tool: str, arguments: dict, result: dict) -> None:
        spec = next((t for t in self.session.sop.tools if t.name == tool), None)
        self.tool_editor.ask(tool, arguments, result, list(spec.errors) if spec else [])
        self.status.setText(f"Edit the result of {tool}, then Return it.")
        self.waiting_for = "tool"
        self.operator_needed.emit("tool")

    def _on_run_done(self, trace) -> None:
        """A live run ended: keep it in the store (when there is one) and tell listeners."""
        store = store_link.store() if self.save_runs else None
        if store is not None:
            try:
                self.last_run_id = save_gui_run(store, self.sop_for_run, trace, self.scenario,
                                                model=_model_name(self.current_profile()))
            except Exception as problem:  # noqa: BLE001 - a run that cannot be saved is shown
                self.status.setText(f"Run not stored: {problem}")
        self.run_finished.emit(trace)

    def current_profile(self):
        if self.agent_box.currentText() == "scripted":
            return None
        return next((p for p in self.profiles if p.name == self.profile_box.currentText()), None)

    def shutdown(self) -> None:
        self.controller.shutdown()


def _model_name(profile) -> str | None:
    return profile.model if profile is not None else None


def _live_session(sop, journey, index: int, kind: str, agent: str, profile, dock):
    """Build the session on the worker thread (compiling and scenario generation take time)."""
    from ..engine.compiled import CompiledSop, EngineError
    from ..engine.scenarios import scenarios_for
    compiled = CompiledSop(sop)
    found = scenarios_for(compiled, journey, index, (kind,))
    if not found:
        raise EngineError(f"journey {index} has no {kind} scenario (nothing to withhold or fail)")
    dock.scenario = found[0]
    return SimulationSession(compiled, found[0], agent_factory(agent, compiled, profile))
