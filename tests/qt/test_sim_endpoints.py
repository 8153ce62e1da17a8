"""Endpoint profiles of model agents: edits survive switching between profiles until Save or
Close, and a failed connection test without a key names the variable to set."""

from __future__ import annotations

import socket

import pytest

from sopstudio.qt.settings import app_settings
from sopstudio.qt.sim.settings import (ConnectionFailed, Profile, ProfileDialog, check_connection,
                                       load_profiles)


def test_profile_edits_survive_switching_until_save_or_close(qtbot):
    settings = app_settings()  # the test's own settings file (root conftest)
    dialog = ProfileDialog(settings)
    qtbot.addWidget(dialog)
    first = dialog.model.text()
    dialog._add()  # "New profile"
    new = dialog.chooser.currentIndex()
    dialog.model.setText("llama3")
    dialog.chooser.setCurrentIndex(0)
    assert dialog.model.text() == first
    dialog.model.setText("gpt-4.1")
    dialog.chooser.setCurrentIndex(new)
    assert dialog.model.text() == "llama3"
    dialog.chooser.setCurrentIndex(0)
    assert dialog.model.text() == "gpt-4.1"
    assert len(load_profiles(settings)) == new  # nothing saved yet
    dialog.reject()  # Close drops every edit
    assert [p.model for p in load_profiles(settings)][0] == first
    again = ProfileDialog(settings)
    qtbot.addWidget(again)
    again._add()
    again.model.setText("llama3")
    again.chooser.setCurrentIndex(0)
    again.save()  # Save keeps the edits of every profile, not only the one on show
    saved = load_profiles(settings)
    assert [p.model for p in saved][-1] == "llama3" and len(saved) == new + 1


def test_connection_without_key_names_the_variable(monkeypatch):
    monkeypatch.delenv("SOPSTUDIO_TEST_NO_KEY", raising=False)
    with socket.socket() as sock:  # a port on 127.0.0.1 where nothing listens
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    profile = Profile("p", f"http://127.0.0.1:{port}/v1", "m", api_key_env="SOPSTUDIO_TEST_NO_KEY")
    with pytest.raises(ConnectionFailed) as caught:
        check_connection(profile)
    assert str(caught.value).startswith("no key: SOPSTUDIO_TEST_NO_KEY is not set; "
                                        "connection error: ")


def test_profile_carries_guidance_context_size_and_what_the_server_refused(qtbot):
    from sopstudio.engine.llm_client import (forget_named_choice, named_choice_support,
                                             remember_named_choice)
    from sopstudio.qt.sim.settings import save_endpoint_findings

    settings = app_settings()
    dialog = ProfileDialog(settings)
    qtbot.addWidget(dialog)
    dialog.base_url.setText("http://127.0.0.1:9/v1")
    qtbot.keyClicks(dialog.guidance, "strict")
    dialog.context_tokens.setValue(2048)
    assert "not tried yet" in dialog.named_choice.text()
    dialog.save()
    profile = load_profiles(settings)[0]
    assert (profile.guidance, profile.context_tokens, profile.named_choice) == \
        ("strict", 2048, None)
    llm = profile.llm_settings()
    assert (llm.guidance, llm.context_tokens) == ("strict", 2048)
    try:
        remember_named_choice("http://127.0.0.1:9/v1", False)  # a run found the server refuses
        assert save_endpoint_findings(settings)
        assert load_profiles(settings)[0].named_choice is False
        again = ProfileDialog(settings)
        qtbot.addWidget(again)
        assert again.named_choice.text().startswith("refused by this server")
        again.base_url.setText("http://127.0.0.1:10/v1")  # another server: not tried yet
        again.save()
        assert load_profiles(settings)[0].named_choice is None
        forget_named_choice()
        remember_named_choice("http://127.0.0.1:10/v1", True)
        Profile.from_dict({**load_profiles(settings)[0].to_dict(),
                           "named_choice": False}).llm_settings()  # known: no overwrite
        assert named_choice_support("http://127.0.0.1:10/v1") is True
    finally:
        forget_named_choice()
