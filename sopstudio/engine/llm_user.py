"""An LLM-simulated user driven by the JourneyBench Appendix F prompt and a scenario's user seed.

The model plays the customer: the agent's messages are sent to it as `user` messages and its own
earlier replies as `assistant` messages. It only knows the seed values (minus what the scenario
withholds). It answers asks and plain agent messages alike (turn-taking as in a chat). Its
reply is free text; for the metrics, a `UserTurn` also lists the asked values the
text verifiably contains (`values`) and the asked names the user does not have (`missing`).
A "<quit>" reply (Appendix F) is kept as text and ends the run (the orchestrator
checks `users.is_quit`: outcome stopped, end text "user-quit"). Transport failures raise `LLMError`.
"""

from __future__ import annotations

import json
from typing import Any

from .llm_client import LLMError
from .users import QUIT, UserTurn  # noqa: F401 - QUIT is part of this module's interface
OPENING_REQUEST = "[Start the conversation: tell the agent what you want.]"

PROMPT = """Goal:{user_seed}

In each turn of the chat, explicitly mention what you want to achieve or ask for. The agent will not know what you want. You must drive the conversation.

Do not repeat information that is already provided in the chat. If you need to refer to something, you can use the context provided in the chat.

Give the parameter value listed in the seed along with your request in every message.

If the agent asks to proceed with a task or action after all steps in the goal are completed, Strictly say "No" and do not proceed with the task. End the conversation naturally.

User Information:

Following are the user parameters that you can use in your responses:{user_info}

If you notice some parameters missing, it means you do not have them. DO NOT create your own values. Explain to the assistant that you do not have that information.

Warning: Never provide user information that is not present in user information section. Do not create your own values. Do not collude with the assistant to create values.

The user journey can move in one or more steps at a time. You can only move on to the next task once you have completed the current one or if agent is unable to finish it due to error.

Guidelines:

1. Stay focused on your goal but be natural in conversation. Do not veer off-topic.
2. Only information available in your user seed can be used in the conversation. If there are parameters missing it means you do not have them.
3. If asked for information not specified in your context, politely mention you don't have that information
3. Keep responses concise and to the point

4. End the conversation naturally once your goal is achieved or if it's clear it cannot be achieved.
5. Send a special token "<quit>" after you and the assistant have exchanged goodbyes at end of conversation. Do not send the message along with other text. It must be a separate message.
6. Ensure the user journey is done before sending the "<quit>" token. Do not end prematurely.
7. Before sending the "<quit>" token, mention all the tasks you were supposed to complete to the agent by referencing the user seed. Ask the agent to confirm that all tasks are done. Complete the incomplete tasks before sending the "<quit>" token.

Remember: You are simulating a real user . Make your responses sound natural and human-like."""


def user_prompt(goal: str, info: dict) -> str:
    lines = "".join(f"\n- {k}: {json.dumps(v, default=str)}" for k, v in info.items())
    return PROMPT.format(user_seed=" " + goal, user_info=lines or " (none)")


class LLMUser:
    def __init__(self, client: Any, goal: str, seed: dict, withheld: list[str] | None = None):
        self.client = client
        self.goal = goal
        self.withheld = set(withheld or [])
        self.info = {k: v for k, v in seed.items() if k not in self.withheld}
        self.system = user_prompt(goal, self.info)

    @classmethod
    def from_scenario(cls, scenario: Any, client: Any, sop: Any = None) -> "LLMUser":
        user = scenario.user
        goal = user.get("goal") or (f"Get help with: {sop.title or sop.id}" if sop is not None
                                    else "Get your request handled.")
        withheld = [scenario.withheld] if getattr(scenario, "withheld", None) else []
        return cls(client, goal, dict(user.get("seed") or {}), withheld)

    def opening(self, sop: Any) -> UserTurn | None:
        text = self._ask([{"role": "user", "content": OPENING_REQUEST}])
        return UserTurn(text, values=self._found(list(self.info), text))

    def reply(self, variables: list[str], text: str | None, ctx: Any) -> UserTurn:
        """Answers in persona; to a plain agent message (no variables) any seed value the
        reply verifiably holds counts as given."""
        said = self._ask(self._messages(getattr(ctx, "transcript", [])))
        return UserTurn(said, values=self._found(variables or list(self.info), said),
                        missing=[v for v in variables if v not in self.info])

    def _messages(self, transcript: list[dict]) -> list[dict]:
        # roles are mirrored: for the user-model, the agent is the one it talks to
        messages = [{"role": "user" if t["role"] == "agent" else "assistant",
                     "content": t.get("text") or ""} for t in transcript]
        if not messages or messages[0]["role"] != "user":
            messages.insert(0, {"role": "user", "content": OPENING_REQUEST})
        return messages

    def _ask(self, messages: list[dict]) -> str:
        reply = self.client.complete([{"role": "system", "content": self.system}, *messages])
        text = (reply.text or "").strip()
        if not text:
            raise LLMError("the simulated user's model returned an empty message",
                           "malformed-output")
        return text

    def _found(self, variables: list[str], text: str) -> dict:
        lowered = text.lower()
        return {v: self.info[v] for v in variables
                if v in self.info and not isinstance(self.info[v], (dict, list))
                and str(self.info[v]).lower() in lowered}
