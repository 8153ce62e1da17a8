"""Endpoint profiles for model agents: base URL, model, temperature, guidance and context size of
OpenAI-compatible servers.

Profiles are kept in QSettings (JSON, without any key). The key is read from the environment
variable the profile names, or typed for this session only: it lives in `_SESSION_KEYS`, in memory,
and is never written to settings, the store or exported files. "Test connection" lists the
server's models off the GUI thread. A profile also remembers whether its server accepts a named
`tool_choice` (the engine finds out on the first guided call; `save_endpoint_findings` writes it
back after a run), so the next session does not probe again.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, fields

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox, QFormLayout,
                               QHBoxLayout, QLabel, QLineEdit, QPushButton, QSpinBox, QVBoxLayout)

from ...core.errors import SopStudioError
from ...engine.guidance import MODES as GUIDANCE_MODES
from ...engine.llm_client import named_choice_support, remember_named_choice
from ..workers import BackgroundRunner

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
    guidance: str = "auto"      # the DPA's guided function choice: auto | strict | off
    context_tokens: int = 0     # the server's context size (0: unknown, nothing refused early)
    named_choice: bool | None = None  # the server accepts a named tool_choice (None: not tried)

    @classmethod
    def from_dict(cls, data: dict) -> "Profile":
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    def to_dict(self) -> dict:
        return asdict(self)

    def llm_settings(self):
        from ...engine.llm_client import LLMSettings
        if self.named_choice is not None and named_choice_support(self.base_url) is None:
            remember_named_choice(self.base_url, self.named_choice)  # no probe needed
        guidance = self.guidance if self.guidance in GUIDANCE_MODES else "auto"
        return LLMSettings(base_url=self.base_url, model=self.model,
                           temperature=float(self.temperature), api_key_env=self.api_key_env,
                           api_key=_SESSION_KEYS.get(self.name), guidance=guidance,
                           context_tokens=int(self.context_tokens) or None)


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


def save_endpoint_findings(settings) -> bool:
    """Write back what runs found out about the servers (named tool_choice accepted or not);
    True when a profile changed."""
    profiles = load_profiles(settings)
    changed = False
    for profile in profiles:
        found = named_choice_support(profile.base_url)
        if found is not None and found != profile.named_choice:
            profile.named_choice, changed = found, True
    if changed:
        save_profiles(settings, profiles)
    return changed


def named_choice_text(value: bool | None) -> str:
    if value is None:
        return "not tried yet (found out on the first guided call)"
    return "accepted" if value else "refused by this server: guided runs go on without it"


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
    from ...engine.llm_client import LLMClient
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
        self.guidance = QComboBox()
        self.guidance.addItems(list(GUIDANCE_MODES))
        self.guidance.setToolTip("auto: offer only the functions legal now and name one when "
                                 "exactly one is legal (small models need it); strict: always "
                                 "name the expected one; off: offer every function")
        self.context_tokens = QSpinBox()
        self.context_tokens.setRange(0, 10_000_000)
        self.context_tokens.setSingleStep(1024)
        self.context_tokens.setSpecialValueText("unknown")
        self.context_tokens.setToolTip("The server's context size: a prompt that cannot fit is "
                                       "refused before it is sent, with the counts")
        self.named_choice = QLabel()
        self.named_choice.setWordWrap(True)
        self.named_value: bool | None = None
        form = QFormLayout()
        for label, widget in (("Profile", self.chooser), ("Name", self.name),
                              ("Base URL", self.base_url), ("Model", self.model),
                              ("Temperature", self.temperature), ("Guidance", self.guidance),
                              ("Context tokens", self.context_tokens),
                              ("Named tool choice", self.named_choice),
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
        self.guidance.setCurrentText(p.guidance if p.guidance in GUIDANCE_MODES else "auto")
        self.context_tokens.setValue(int(p.context_tokens or 0))
        self.named_value = p.named_choice
        self.named_choice.setText(named_choice_text(p.named_choice))
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
        base_url = self.base_url.text().strip()
        shown = self.profiles[self.shown] if 0 <= self.shown < len(self.profiles) else None
        # what was found out about a server stays with its URL: a new URL is not tried yet
        named = self.named_value if shown is None or shown.base_url == base_url else None
        return Profile(self.name.text().strip() or "unnamed", base_url,
                       self.model.text().strip(), self.temperature.value(),
                       self.key_env.text().strip(), self.guidance.currentText(),
                       self.context_tokens.value(), named)

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
