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

Guided function choice (agents/dpa.py) may name one function in `tool_choice`. Some servers
reject that (HTTP 4xx/5xx naming tool_choice, or any 500 to a named-choice request): the first
such answer is remembered for the endpoint (`named_choice_support`, in-process; a GUI profile can
store it and seed it back with `remember_named_choice`), the request is sent again without the
named choice, and the reply carries a `note` saying so. Later named requests to that endpoint go
without it from the start.

Errors say what the server said: the error body's `error.message` (OpenAI error JSON) or its text
is part of the LLMError message (`server_message`). A 400 about the context length gets code
"context-too-long". With `settings.context_tokens`, a prompt whose estimate (`estimate_tokens`:
characters / 4 rounded up, plus 4 per message, plus the tool definitions' JSON / 4) exceeds the
context is refused before sending, with both counts (code "context-too-long").

The API key is session-only: it is read from `settings.api_key` or the environment variable
named by `settings.api_key_env`, is never serialised (`LLMSettings.to_dict` omits it) and never
appears in a reply, a log or an error message.
"""

from __future__ import annotations

import json
import math
import os
import threading
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
    return str(base_url)


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
    guidance: str = "auto"  # guided function choice of the DPA: auto | strict | off
    context_tokens: int | None = None  # the model's context size, when known: refuse bigger prompts

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
    note: str | None = None  # e.g. the endpoint refused a named tool_choice: sent without it

    def to_dict(self) -> dict:
        data = {"text": self.text, "tool_calls": [c.to_dict() for c in self.tool_calls],
                "finish_reason": self.finish_reason, "raw": self.raw}
        if self.note:
            data["note"] = self.note
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "ModelReply":
        return cls(data.get("text"), [ToolCall(**c) for c in data.get("tool_calls") or []],
                   data.get("finish_reason"), dict(data.get("raw") or {}), data.get("note"))

    def usage(self) -> dict:
        """The server's token counts (prompt_tokens, completion_tokens), when it sent them."""
        return dict(self.raw.get("usage") or {})


# -- what each endpoint accepts (in-process; the GUI stores it in the endpoint profile) ----------
_NAMED_CHOICE: dict[str, bool] = {}
_NAMED_LOCK = threading.Lock()


def endpoint_key(base_url: str | None) -> str:
    return (base_url or "").strip().rstrip("/").lower()


def named_choice_support(base_url: str | None) -> bool | None:
    """Whether the endpoint accepts a named `tool_choice` (None: not tried yet)."""
    with _NAMED_LOCK:
        return _NAMED_CHOICE.get(endpoint_key(base_url))


def remember_named_choice(base_url: str | None, supported: bool) -> None:
    """Record (or seed, e.g. from a stored profile) what the endpoint does with named choice."""
    with _NAMED_LOCK:
        _NAMED_CHOICE[endpoint_key(base_url)] = bool(supported)


def forget_named_choice(base_url: str | None = None) -> None:
    """Forget one endpoint (or all): the next named request probes again."""
    with _NAMED_LOCK:
        if base_url is None:
            _NAMED_CHOICE.clear()
        else:
            _NAMED_CHOICE.pop(endpoint_key(base_url), None)


def is_named(tool_choice: Any) -> bool:
    return isinstance(tool_choice, dict)


def estimate_tokens(messages: list[dict], tools: list[dict] | None = None) -> int:
    """A prompt's size in tokens, estimated (no tokenizer needed, errs on the large side for
    English): characters / 4 rounded up per message plus 4 for its framing, plus the tool
    definitions as JSON / 4, plus 3 for the reply's start."""
    total = 3
    for message in messages:
        content = message.get("content")
        text = content if isinstance(content, str) else json.dumps(content or "")
        if message.get("tool_calls"):
            text += json.dumps(message["tool_calls"])
        total += math.ceil(len(text) / 4) + 4
    if tools:
        total += math.ceil(len(json.dumps(tools)) / 4)
    return total


def server_message(error: Exception) -> str:
    """What the server said in an error answer: `error.message` of an OpenAI error JSON, else
    the body's text (shortened)."""
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        message = inner.get("message") if isinstance(inner, dict) else inner
        if isinstance(message, str) and message.strip():
            return _short(message)
        if isinstance(body.get("detail"), str):
            return _short(body["detail"])
    if isinstance(body, str) and body.strip():
        return _short(body)
    response = getattr(error, "response", None)
    try:
        return _short(response.text) if response is not None else ""
    except Exception:  # noqa: BLE001 - a body we cannot read says nothing
        return ""


def _short(text: str, limit: int = 400) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _rejects_named_choice(error: Exception) -> bool:
    status = getattr(error, "status_code", 0) or 0
    return status == 500 or (status >= 400 and "tool_choice" in server_message(error).lower())


def _is_context_error(status: int, message: str) -> bool:
    lowered = message.lower()
    return status == 400 and "context" in lowered and ("length" in lowered or "token" in lowered)


class _NamedChoiceRejected(Exception):
    def __init__(self, detail: str):
        super().__init__(detail)
        self.detail = detail


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

    def complete(self, messages: list[dict], tools: list[dict] | None = None,
                 tool_choice: Any = None) -> ModelReply:
        try:
            self._check_fits(messages, tools)
            reply = self._complete_guided(messages, tools, tool_choice)
        except LLMError as error:
            self.log.append({"error": str(error), "code": error.code})
            raise
        self.log.append({"reply": reply.to_dict()})
        return reply

    def _check_fits(self, messages: list[dict], tools: list[dict] | None) -> None:
        limit = self.settings.context_tokens
        if limit:
            needed = estimate_tokens(messages, tools)
            if needed > limit:
                raise LLMError(f"the prompt needs about {needed} tokens but the model's context "
                               f"holds {limit} (not sent)", "context-too-long")

    def _complete_guided(self, messages: list[dict], tools: list[dict] | None,
                         tool_choice: Any) -> ModelReply:
        """Sends a named tool_choice unless the endpoint is known to refuse it; on a refusal,
        remembers that and sends the request again without it (the reply's note says so)."""
        endpoint = self.settings.base_url
        if is_named(tool_choice) and named_choice_support(endpoint) is False:
            tool_choice = None
        try:
            reply = self._complete_with_retries(messages, tools, tool_choice)
        except _NamedChoiceRejected as rejected:
            remember_named_choice(endpoint, False)
            reply = self._complete_with_retries(messages, tools, None)
            reply.note = (f"The endpoint refused a named tool_choice ({rejected.detail}); guided "
                          f"function choice goes on without naming the function (only the "
                          f"functions legal now are offered).")
            return reply
        if is_named(tool_choice):
            remember_named_choice(endpoint, True)
        return reply

    def _complete_with_retries(self, messages: list[dict], tools: list[dict] | None,
                               tool_choice: Any = None) -> ModelReply:
        attempt = 0
        while True:
            try:
                return _reply_from(self._request(messages, tools, tool_choice))
            except openai.APIStatusError as error:
                said = server_message(error)
                if is_named(tool_choice) and _rejects_named_choice(error):
                    raise _NamedChoiceRejected(f"HTTP {error.status_code}: {said}") from None
                if not isinstance(error, _RETRYABLE) or attempt >= self.settings.retries:
                    raise self._status_error(error, said, attempt) from None
            except _RETRYABLE as error:
                if attempt >= self.settings.retries:
                    if _error_code(error) == "connection":
                        raise ModelUnreachable(self.settings.base_url,
                                               f"connection failed after {attempt + 1} "
                                               f"attempt(s)") from None
                    raise LLMError(f"model call failed after {attempt + 1} attempt(s): "
                                   f"{type(error).__name__}", _error_code(error)) from None
            except (ValueError, TypeError, AttributeError, openai.OpenAIError) as error:
                # an unparseable body (not JSON, wrong shape): the server is not usable as is
                raise LLMError(f"unusable model response: {type(error).__name__}",
                               "malformed-output") from None
            self.sleep(self.settings.backoff * (2 ** attempt))
            attempt += 1

    @staticmethod
    def _status_error(error: Any, said: str, attempt: int) -> LLMError:
        status = error.status_code
        tries = f" after {attempt + 1} attempt(s)" if attempt else ""
        text = f"model endpoint answered HTTP {status}{tries}" + (f": {said}" if said else "")
        code = "context-too-long" if _is_context_error(status, said) else _error_code(error)
        return LLMError(text, code)

    def _request(self, messages: list[dict], tools: list[dict] | None,
                 tool_choice: Any = None) -> Any:
        extra: dict = {"tools": tools} if tools else {}
        if tools and tool_choice is not None:
            extra["tool_choice"] = tool_choice
        return self._client.chat.completions.create(
            model=self.settings.model, messages=messages,  # type: ignore[arg-type]
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

    def complete(self, messages: list[dict], tools: list[dict] | None = None,
                 tool_choice: Any = None) -> ModelReply:
        if self.position >= len(self.entries):
            raise LLMError("replay ran past the recorded model outputs", "replay-exhausted")
        entry = self.entries[self.position]
        self.position += 1
        self.log.append(entry)
        if "error" in entry:
            raise LLMError(entry["error"], entry.get("code", "llm-error"))
        return ModelReply.from_dict(entry["reply"])
