"""Options and helpers shared by the commands that run simulations (`simulate`, `bench`) and
`journeys`: argument types, model and store options, run settings, the invalid-SOP warning."""

from __future__ import annotations

import argparse
import contextlib
import sys
from datetime import datetime, timezone

from ._store import add_db_argument, open_from_args

from ..engine.guidance import MODES as GUIDANCE_CHOICES

DEFAULT_MAX_TURNS = 40  # JourneyBench's turn limit (the orchestrator's default)


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {value}")
    return value


def http_url(text: str) -> str:
    """argparse type: an http:// or https:// URL with a host."""
    scheme, _, rest = text.partition("://")
    if scheme.lower() not in ("http", "https") or not rest.strip("/"):
        raise argparse.ArgumentTypeError(f"not an http(s) URL: {text!r} "
                                         "(e.g. http://127.0.0.1:8000/v1)")
    return text


def add_model_arguments(parser) -> None:
    parser.add_argument("--model", help="model name for the LLM agents")
    parser.add_argument("--base-url", dest="base_url", type=http_url,
                        help="OpenAI-compatible endpoint (http:// or https://)")
    parser.add_argument("--guidance", choices=GUIDANCE_CHOICES, default="auto",
                        help="DPA-based agents (dpa, sop-agent, marco, agent-s): offer only "
                             "the functions legal now and name one in "
                             "tool_choice when exactly one is legal (auto, default), always "
                             "(strict), or offer all and name none (off)")
    parser.add_argument("--context-tokens", dest="context_tokens", type=positive_int,
                        help="the model's context size: a prompt estimated larger is refused "
                             "before it is sent")


def add_turn_limit(parser) -> None:
    parser.add_argument("--max-turns", dest="max_turns", type=positive_int,
                        default=DEFAULT_MAX_TURNS,
                        help=f"stop a run after N messages (default {DEFAULT_MAX_TURNS})")


def agent_options(args, agent: str | None = None) -> dict:
    """Constructor options of `agent` (default: the `--agent` chosen) from the arguments."""
    agent = agent or args.agent
    if agent == "scripted":
        return {}
    pairs = (("model", args.model), ("base_url", args.base_url),
             ("context_tokens", getattr(args, "context_tokens", None)))
    options = {k: v for k, v in pairs if v}
    if agent in ("dpa", "sop-agent", "marco", "agent-s"):  # the DPA and its subclasses
        options["guidance"] = getattr(args, "guidance", None) or "auto"
    return options


def add_store_arguments(parser) -> None:
    add_db_argument(parser)
    parser.add_argument("--no-store", dest="no_store", action="store_true",
                        help="do not store the run(s) in the database")


def run_settings(args, agent: str | None = None, **extra) -> dict:
    """What the store keeps about how a run was made (secrets are stripped by the store)."""
    agent = agent or args.agent
    return {"agent": agent, **agent_options(args, agent), **extra}


def now() -> datetime:
    return datetime.now(timezone.utc)


def runnable(sop, path: str):
    """The SOP as it runs: its sub-SOPs (read next to `path`) inlined (core/subflows.py)."""
    from ..core.subflows import SubflowError, expand_file
    from ._common import UnreadableFile
    try:
        return expand_file(sop, path)
    except SubflowError as error:
        raise UnreadableFile(f"{path}: {error}") from None


def warn_if_invalid(sop, path: str, max_turns: int = DEFAULT_MAX_TURNS) -> None:
    """One stderr line when the SOP has validation errors: its results may mean little; one
    when a journey needs more turns than the runs are allowed (`long-journey`)."""
    from ..core.subflows import SubflowLoader
    from ..core.validate import ERROR, has_errors, validate
    issues = validate(sop, SubflowLoader(path), max_turns)
    for issue in issues:
        if issue.code == "long-journey":
            print(f"warning: {path}: {issue.message}", file=sys.stderr)
    if has_errors(issues):
        errors = sum(1 for issue in issues if issue.severity == ERROR)
        print(f"warning: {path} has {errors} validation error{'s' * (errors != 1)} (run "
              f"`sopstudio validate {path}`); results may not be meaningful", file=sys.stderr)


def open_store_unless(args):
    """The store named by --db / $SOPSTUDIO_DB, or a context giving None with --no-store."""
    return contextlib.nullcontext(None) if args.no_store else open_from_args(args)
