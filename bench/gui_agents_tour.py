"""A look at the simulation GUI with every agent, as a user would take it (not a test).

    xvfb-run -a .venv/bin/python bench/gui_agents_tour.py [OUT_DIR] [SOP ...]

For each SOP (default: a sample and the sub-SOP fixture) and each agent, the script picks the
agent in the simulation dock with an endpoint profile on a local fake OpenAI-compatible server
(tests/fake_llm_server.py, 127.0.0.1 only; a model-like handler answers with the function it is
told to call, or the first one the step still needs), runs a journey, and saves the window;
then runs the covering batch per agent in the batch dialog and saves it, and saves the runs
dock. It prints each PNG it wrote and each run's outcome, event count and time. Settings and
the store live in a temporary folder: the user's are never touched.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
HOME = tempfile.mkdtemp(prefix="sopstudio-tour-")
os.environ["SOPSTUDIO_DB"] = str(Path(HOME) / "store.sqlite")
os.environ["SOPSTUDIO_SETTINGS"] = str(Path(HOME) / "settings.ini")
os.environ.setdefault("OPENAI_API_KEY", "sk-local-fake")

from fake_llm_server import FakeLLMServer, reply, tool  # noqa: E402

CONTROLS = ("ask_user", "finish_step", "stop_conversation", "update_state")
DEFAULT_SOPS = (ROOT / "sample_sops" / "listing_blocked.sop.json",
                ROOT / "tests" / "fixtures" / "subflows" / "refund.sop.json")


def value_for(schema: dict, name: str):
    """A plausible argument for a JSON-Schema property."""
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "array":
        items = schema.get("items") or {}
        return [items["enum"][0]] if items.get("enum") else []
    if kind == "boolean":
        return True
    if kind in ("integer", "number"):
        return 1
    if kind == "object":
        return {}
    return f"{name.upper()}-1"


def arguments(function: dict) -> dict:
    parameters = function.get("parameters") or {}
    properties = parameters.get("properties") or {}
    wanted = parameters.get("required") or list(properties)
    return {n: value_for(properties.get(n) or {}, n) for n in wanted}


def called_since_user(messages: list) -> set:
    names: set = set()
    for message in reversed(messages):
        if message.get("role") == "user":
            break
        for call in message.get("tool_calls") or []:
            names.add(call.get("function", {}).get("name"))
    return names


def model(body: dict) -> dict:
    """Call the named function; else a step tool not yet called since the user spoke, else ask
    (when the user has not just answered), else finish; no functions: a plain reply."""
    functions = {t["function"]["name"]: t["function"] for t in body.get("tools") or []}
    choice = body.get("tool_choice")
    if isinstance(choice, dict):
        name = choice.get("function", {}).get("name")
        return tool(name, arguments(functions.get(name, {})))
    if not functions:
        return reply("Thank you, I have what I need.")
    messages = body.get("messages") or []
    done = called_since_user(messages)
    fresh = [n for n in functions if n not in CONTROLS and n not in done]
    last_user = bool(messages) and messages[-1].get("role") == "user"
    for name in fresh + (["ask_user"] if not last_user else []) + ["finish_step"]:
        if name in functions:
            return tool(name, arguments(functions[name]))
    name = next(iter(functions))
    return tool(name, arguments(functions[name]))


def spin(app, condition, timeout: float = 120.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        app.processEvents()
        time.sleep(0.01)
    app.processEvents()
    return True


def tour(out: Path, sops: list[Path]) -> None:
    from PySide6.QtWidgets import QApplication
    from sopstudio.core.document import Document
    from sopstudio.core.io import load_sop
    from sopstudio.engine.agents import AGENT_KINDS
    from sopstudio.qt.main_window import MainWindow
    from sopstudio.qt.settings import app_settings
    from sopstudio.qt.sim.integration import attach_simulation
    from sopstudio.qt.sim.settings import Profile, save_profiles
    app = QApplication.instance() or QApplication(sys.argv)
    out.mkdir(parents=True, exist_ok=True)
    with FakeLLMServer(handler=model) as server:
        settings = app_settings()
        save_profiles(settings, [Profile("local fake", server.url, "fake-model")])
        for path in sops:
            window = MainWindow(Document(load_sop(path), path), settings, restore=False)
            window.resize(1500, 950)
            window.show()
            sim = attach_simulation(window)
            sim.dock.refresh_profiles()
            sim.sim_dock.show()
            sim.sim_dock.raise_()
            for agent in AGENT_KINDS:
                run_one(app, window, sim, agent, out / f"{path.stem}_{agent}.png")
            sim.dock.tabs.setCurrentWidget(sim.dock.memory)  # the last run's memory
            save(window, out / f"{path.stem}_memory.png")
            sim.dock.tabs.setCurrentWidget(sim.dock.chat)
            sim.runs_dock.show()
            sim.runs_dock.raise_()
            sim.runs.refresh()
            spin(app, lambda: True)
            save(window, out / f"{path.stem}_runs.png")
            for agent in AGENT_KINDS:
                batch_one(app, sim, agent, out / f"{path.stem}_batch_{agent}.png")
            batch_one(app, sim, None, out / f"{path.stem}_batch_compared.png")
            sim.shutdown()
            window.session.mark_saved()
            window.close()


def run_one(app, window, sim, agent: str, png: Path) -> None:
    dock = sim.dock
    dock.select(journey=0, scenario="correct", agent=agent, profile="local fake")
    states: list = []  # this run's states: the last run's "finished" must not count
    dock.state_changed.connect(states.append)
    dock.controller.worker.failed.connect(lambda text: states.append("failed: " + text))
    started = time.monotonic()
    dock.run()
    finished = spin(app, lambda: "running" in states and states[-1] != "running"
                    or any(s.startswith("failed") for s in states))
    dock.state_changed.disconnect(states.append)
    seconds = time.monotonic() - started
    print(f"{png.name}: {'finished' if finished else 'TIMED OUT'} outcome "
          f"{dock.snapshot.get('outcome')} · {len(dock.events)} events · {seconds:.1f} s")
    save(window, png)


def batch_one(app, sim, agent: str | None, png: Path) -> None:
    """A covering batch with `agent`, or (None) with every agent compared."""
    dialog = sim.open_batch()
    dialog.source.setCurrentIndex(dialog.source.findData("covering"))
    for box in dialog.compare_boxes.values():
        box.setChecked(agent is None)
    if agent is not None:
        dialog.agent.setCurrentText(agent)
    dialog.profile.setCurrentText("local fake")
    dialog.workers.setValue(2)
    dialog.show()
    started = time.monotonic()
    if not dialog.start():
        print(f"{png.name}: did not start: {dialog.eta.text()}")
        return
    done = spin(app, lambda: not dialog.running() and not dialog.poll.isActive())
    print(f"{png.name}: {'finished' if done else 'TIMED OUT'} · {len(dialog.rows)} runs · "
          f"{time.monotonic() - started:.1f} s · {dialog.eta.text()}")
    save(dialog, png)


def save(widget, png: Path) -> None:
    if not widget.grab().save(str(png)):
        raise OSError(f"cannot write {png}")
    print(f"  wrote {png}")


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else Path(tempfile.gettempdir()) / "sopstudio-tour"
    sops = [Path(a).resolve() for a in argv[1:]] or list(DEFAULT_SOPS)
    tour(out, sops)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
