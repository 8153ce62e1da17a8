"""Endpoint profiles for model agents: base URL, model and temperature of OpenAI-compatible servers.

Profiles are kept in QSettings (JSON, without any key). The key is read from the environment
variable the profile names, or typed for this session only: it lives in `_SESSION_KEYS`, in memory,
and is never written to settings, the store or exported files. "Test connection" lists the
server's models off the GUI thread.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, fields

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox, QFormLayout,
                               QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout)

from ..core.errors import SopStudioError
from .workers import BackgroundRunner

SETTINGS_KEY = "simulation/profiles"
_SESSION_KEYS: dict[str, str] = {}  # profile name -> key typed this session (memory only)

DEFAULT_PROFILES = [
    {"name": "OpenAI", "base_url": "https://api.openai.com/v1", "model": "gpt-4o-mini",
     "temperature": 0.0, "api_key_env": "OPENAI_API_KEY"},
    {"name": "Local (Ollama)", "base_url": "http://127.0.0.1:11434/v1", "model": "llama3.1",
     "temperature": 0.0, "api_key_env": ""},
]


@dataclass
class Profile:
    name: str
    base_url: str
    model: str
    temperature: float = 0.0
    api_key_env: str = ""

    @classmethod
    def from_dict(cls, data: dict) -> "Profile":
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    def to_dict(self) -> dict:
        return asdict(self)

    def llm_settings(self):
        from ..engine.llm_client import LLMSettings
        return LLMSettings(base_url=self.base_url, model=self.model,
                           temperature=float(self.temperature), api_key_env=self.api_key_env,
                           api_key=_SESSION_KEYS.get(self.name))


def set_session_key(name: str, key: str | None) -> None:
    if key:
        _SESSION_KEYS[name] = key
    else:
        _SESSION_KEYS.pop(name, None)


def load_profiles(settings) -> list[Profile]:
    raw = settings.value(SETTINGS_KEY) if settings is not None else None
    try:
        data = json.loads(raw) if raw else DEFAULT_PROFILES
    except (TypeError, ValueError):
        data = DEFAULT_PROFILES
    return [Profile.from_dict(d) for d in data if isinstance(d, dict) and d.get("name")]


def save_profiles(settings, profiles: list[Profile]) -> None:
    settings.setValue(SETTINGS_KEY, json.dumps([p.to_dict() for p in profiles]))
    settings.sync()


class ConnectionFailed(SopStudioError):
    """The endpoint test failed; the message says which key variable was missing, if any."""


def missing_key_note(settings) -> str:
    """ "no key: OPENAI_API_KEY is not set" when the profile wants a key from an environment
    variable that is unset and none was typed; "" otherwise (local servers need none)."""
    env = (settings.api_key_env or "").strip()
    if settings.api_key or not env or os.environ.get(env):
        return ""
    return f"no key: {env} is not set"


def check_connection(profile: Profile, key: str | None = None) -> str:
    """One line saying what the server answered (raises on failure, naming the key variable it
    looked for when that is unset); `key` is one typed in the dialog and not yet kept."""
    from ..engine.llm_client import LLMClient
    settings = profile.llm_settings()
    settings.retries, settings.timeout = 0, 10.0
    if key:
        settings.api_key = key
    try:
        models = LLMClient(settings).models()
    except Exception as error:  # reworded with the key hint, then re-raised
        note = missing_key_note(settings)
        if not note:
            raise
        raise ConnectionFailed(f"{note}; connection error: {error}") from None
    return f"Connected: {len(models)} model(s)" + (f", e.g. {models[0]}" if models else "")


class ProfileDialog(QDialog):
    """Edit endpoint profiles; emits `profiles_changed` after a save. Edits to every profile are
    kept while switching between them, and saved together (Save) or dropped (Close)."""

    profiles_changed = Signal()

    def __init__(self, settings, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Model endpoints")
        self.settings = settings
        self.profiles = load_profiles(settings)
        self.keys = [_SESSION_KEYS.get(p.name, "") for p in self.profiles]  # typed, not kept yet
        self.shown = -1  # the profile the form shows (its edits go back on a switch)
        self.runner = BackgroundRunner(self)
        self.runner.done.connect(lambda text: self.status.setText(text))
        self.runner.failed.connect(lambda text: self.status.setText("Failed: " + text))
        self._build()
        self._show(0)

    def _build(self) -> None:
        self.chooser = QComboBox()
        self.chooser.addItems([p.name for p in self.profiles])
        self.chooser.currentIndexChanged.connect(self._show)
        self.name, self.base_url, self.model = QLineEdit(), QLineEdit(), QLineEdit()
        self.key_env, self.key = QLineEdit(), QLineEdit()
        self.key.setEchoMode(QLineEdit.Password)
        self.key.setPlaceholderText("session only — never saved")
        self.temperature = QDoubleSpinBox()
        self.temperature.setRange(0.0, 2.0)
        self.temperature.setSingleStep(0.1)
        form = QFormLayout()
        for label, widget in (("Profile", self.chooser), ("Name", self.name),
                              ("Base URL", self.base_url), ("Model", self.model),
                              ("Temperature", self.temperature),
                              ("Key variable", self.key_env), ("Key (session)", self.key)):
            form.addRow(label, widget)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.test_button = QPushButton("Test connection")
        self.test_button.clicked.connect(self.test)
        add = QPushButton("New profile")
        add.clicked.connect(self._add)
        buttons = QDialogButtonBox(QDialogButtonBox.Save | QDialogButtonBox.Close)
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        row = QHBoxLayout()
        row.addWidget(add)
        row.addWidget(self.test_button)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addLayout(row)
        layout.addWidget(self.status)
        layout.addWidget(buttons)

    def _show(self, index: int) -> None:
        self._keep_form()
        if not 0 <= index < len(self.profiles):
            return
        p, self.shown = self.profiles[index], index
        self.name.setText(p.name)
        self.base_url.setText(p.base_url)
        self.model.setText(p.model)
        self.temperature.setValue(float(p.temperature))
        self.key_env.setText(p.api_key_env)
        self.key.setText(self.keys[index])

    def _keep_form(self) -> None:
        """Put the form's edits back into the profile it shows (nothing is saved yet)."""
        if 0 <= self.shown < len(self.profiles):
            self.profiles[self.shown] = self.current()
            self.keys[self.shown] = self.key.text()
            self.chooser.setItemText(self.shown, self.profiles[self.shown].name)

    def current(self) -> Profile:
        """The profile as the form shows it."""
        return Profile(self.name.text().strip() or "unnamed", self.base_url.text().strip(),
                       self.model.text().strip(), self.temperature.value(),
                       self.key_env.text().strip())

    def _add(self) -> None:
        self.profiles.append(Profile(f"Profile {len(self.profiles) + 1}",
                                     "http://127.0.0.1:8000/v1", "model"))
        self.keys.append("")
        self.chooser.addItem(self.profiles[-1].name)
        self.chooser.setCurrentIndex(len(self.profiles) - 1)

    def save(self) -> None:
        """Save every profile's edits (and keep typed keys for this session only)."""
        self._keep_form()
        for profile, key in zip(self.profiles, self.keys):
            set_session_key(profile.name, key)
        save_profiles(self.settings, self.profiles)
        self.status.setText("Saved.")
        self.profiles_changed.emit()

    def test(self) -> None:
        self.status.setText("Testing…")
        self.runner.submit(check_connection, self.current(), self.key.text())
