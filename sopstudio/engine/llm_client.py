"""The one door to chat-completion models: any OpenAI-compatible endpoint through `openai`.

This is the ONLY module that imports `openai` (DESIGN §1). It turns a request (messages, function
tools) into a `ModelReply` of plain data (text, tool calls with their raw argument strings, and the
raw response as a dict for the trace) and hides the client's exceptions behind `LLMError`.

Retries are ours, not the client's (`max_retries=0`): timeouts, connection errors, 5xx and 429
are retried `settings.retries` times with exponential backoff; anything else fails at once.
Every reply or failure is appended to `log` (plain dicts) so a run can be replayed with
`RecordedLLM`, which serves the log back without any HTTP call.

A connection failure (nothing answers at `base_url`, after the retries) or a `base_url` that is not
http(s) raises `ModelUnreachable` (an LLMError, code "connection"): the agents let it through
instead of turning it into a guardrail retry, so a run stops (status "error") and a batch stops
early. A timeout of one call is not that: it stays an ordinary LLMError (code "timeout").

The API key is session-only: it is read from `settings.api_key` or the environment variable
named by `settings.api_key_env`, is never serialised (`LLMSettings.to_dict` omits it) and never
appears in a reply, a log or an error message.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field, fields
from typing import Any, Callable

import openai

from ..core.errors import SopStudioError

NO_KEY = "sk-no-key"  # local servers ignore the key, but the client insists on having one


class LLMError(SopStudioError):
    """The model could not be reached or answered with something unusable."""

    def __init__(self, message: str, code: str = "llm-error"):
        super().__init__(message)
        self.code = code


class ModelUnreachable(LLMError):
    """Nothing usable answers at the endpoint: no run can go on, so none should be scored."""

    def __init__(self, base_url: str | None, detail: str):
        super().__init__(f"cannot reach the model at {base_url}: {detail}", "connection")
        self.base_url = base_url


def check_base_url(base_url: str | None) -> str:
    """`base_url` if it is an http(s) URL with a host; else ModelUnreachable."""
    scheme, _, rest = (base_url or "").partition("://")
    if scheme.lower() not in ("http", "https") or not rest.strip("/"):
        raise ModelUnreachable(base_url, "the URL must start with http:// or https:// "
                                         "and name a host")
    return base_url


@dataclass
class LLMSettings:
    base_url: str
    model: str
    temperature: float = 0.0
    api_key_env: str = "OPENAI_API_KEY"
    api_key: str | None = field(default=None, repr=False)  # session only, never serialised
    timeout: float = 30.0
    retries: int = 2
    backoff: float = 0.5  # first wait between retries, doubled each time

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "api_key"}

    @classmethod
    def from_dict(cls, data: dict) -> "LLMSettings":
        known = {f.name for f in fields(cls)} - {"api_key"}
        return cls(**{k: v for k, v in data.items() if k in known})

    def key(self) -> str:
        return self.api_key or os.environ.get(self.api_key_env or "", "") or NO_KEY


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: str  # as the model wrote it: may be malformed JSON, the guardrails judge

    def parsed(self) -> tuple[dict | None, str | None]:
        """(arguments dict, None) or (None, why they are unusable)."""
        try:
            value = json.loads(self.arguments or "{}")
        except json.JSONDecodeError as error:
            return None, f"arguments are not valid JSON ({error.msg})"
        except TypeError:
            return None, "arguments are not valid JSON"
        if not isinstance(value, dict):
            return None, "arguments must be a JSON object"
        return value, None

    def to_dict(self) -> dict:
        return {"id": self.id, "name": self.name, "arguments": self.arguments}


@dataclass
class ModelReply:
    text: str | None
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str | None = None
    raw: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"text": self.text, "tool_calls": [c.to_dict() for c in self.tool_calls],
                "finish_reason": self.finish_reason, "raw": self.raw}

    @classmethod
    def from_dict(cls, data: dict) -> "ModelReply":
        return cls(data.get("text"), [ToolCall(**c) for c in data.get("tool_calls") or []],
                   data.get("finish_reason"), dict(data.get("raw") or {}))


_RETRYABLE = (openai.APITimeoutError, openai.APIConnectionError, openai.InternalServerError,
              openai.RateLimitError)


def _error_code(error: Exception) -> str:
    if isinstance(error, openai.APITimeoutError):
        return "timeout"
    if isinstance(error, openai.APIConnectionError):
        return "connection"
    if isinstance(error, openai.APIStatusError):
        return f"http-{error.status_code}"
    return "malformed-output"


def _reply_from(response: Any) -> ModelReply:
    raw = response.model_dump(mode="json", exclude_none=True)
    if not response.choices:
        raise LLMError("the model returned no choices", "malformed-output")
    choice = response.choices[0]
    message = choice.message
    calls = [ToolCall(c.id, c.function.name, c.function.arguments or "")
             for c in (message.tool_calls or []) if getattr(c, "function", None) is not None]
    return ModelReply(message.content, calls, choice.finish_reason, raw)


class LLMClient:
    """A chat-completions client with our own retry policy and a log of every outcome."""

    def __init__(self, settings: LLMSettings, sleep: Callable[[float], None] = time.sleep):
        self.settings = settings
        self.sleep = sleep
        self.log: list[dict] = []
        check_base_url(settings.base_url)
        self._client = openai.OpenAI(base_url=settings.base_url, api_key=settings.key(),
                                     timeout=settings.timeout, max_retries=0)

    def complete(self, messages: list[dict], tools: list[dict] | None = None) -> ModelReply:
        try:
            reply = self._complete_with_retries(messages, tools)
        except LLMError as error:
            self.log.append({"error": str(error), "code": error.code})
            raise
        self.log.append({"reply": reply.to_dict()})
        return reply

    def _complete_with_retries(self, messages: list[dict], tools: list[dict] | None) -> ModelReply:
        attempt = 0
        while True:
            try:
                return _reply_from(self._request(messages, tools))
            except _RETRYABLE as error:
                if attempt >= self.settings.retries:
                    if _error_code(error) == "connection":
                        raise ModelUnreachable(self.settings.base_url,
                                               f"connection failed after {attempt + 1} "
                                               f"attempt(s)") from None
                    raise LLMError(f"model call failed after {attempt + 1} attempt(s): "
                                   f"{type(error).__name__}", _error_code(error)) from None
            except openai.APIStatusError as error:
                raise LLMError(f"model endpoint answered HTTP {error.status_code}",
                               _error_code(error)) from None
            except (ValueError, TypeError, AttributeError, openai.OpenAIError) as error:
                # an unparseable body (not JSON, wrong shape): the server is not usable as is
                raise LLMError(f"unusable model response: {type(error).__name__}",
                               "malformed-output") from None
            self.sleep(self.settings.backoff * (2 ** attempt))
            attempt += 1

    def _request(self, messages: list[dict], tools: list[dict] | None) -> Any:
        extra = {"tools": tools} if tools else {}
        return self._client.chat.completions.create(
            model=self.settings.model, messages=messages,
            temperature=self.settings.temperature, **extra)

    def models(self) -> list[str]:
        """Model ids the endpoint offers (for the settings dialog's model list)."""
        try:
            return [m.id for m in self._client.models.list().data]
        except (openai.OpenAIError, ValueError) as error:
            raise LLMError(f"cannot list models: {type(error).__name__}", _error_code(error)) \
                from None


class RecordedLLM:
    """Serves a recorded `log` back in order: a replay that makes no HTTP call."""

    def __init__(self, log: list[dict], settings: LLMSettings | None = None):
        self.settings = settings
        self.entries = list(log)
        self.log: list[dict] = []
        self.position = 0

    def complete(self, messages: list[dict], tools: list[dict] | None = None) -> ModelReply:
        if self.position >= len(self.entries):
            raise LLMError("replay ran past the recorded model outputs", "replay-exhausted")
        entry = self.entries[self.position]
        self.position += 1
        self.log.append(entry)
        if "error" in entry:
            raise LLMError(entry["error"], entry.get("code", "llm-error"))
        return ModelReply.from_dict(entry["reply"])
