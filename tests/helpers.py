"""Test data and small builders shared by several non-Qt test modules.

Test modules import from here (or from conftest fixtures), never from one another.
"""

from __future__ import annotations

from pathlib import Path

from sopstudio.core.io import parse_document

FIXTURES = Path(__file__).resolve().parent / "fixtures"
FORMATS = FIXTURES / "formats"
TAU2_DOT = FIXTURES / "tau2-telecom" / "tech_support_path1_no_service.dot"

# A small JourneyBench graph as a model would return it: check an order, then wait or refund.
JOURNEYBENCH_REFUNDS = {"title": "Refunds", "description": "", "nodes": [
    {"id": "1", "task_name": "Check order", "task_description": "Look the order up.",
     "steps": [], "tools": [{"method": "GET", "url": "https://x/orders", "name": "get_order",
                             "tool_description": "", "condition": None,
                             "extractVars": [{"variableName": "order_id", "type": "string",
                                              "description": ""}],
                             "responseData": [{"name": "state",
                                               "context": "Must be one of: 'shipped', 'lost'"}]}],
     "responsePathways": [
         {"conditions": [{"algebraicExpression": "{state} == 'shipped'"}], "nextNodeId": "2"},
         {"conditions": [{"algebraicExpression": "{state} == 'lost'"}], "nextNodeId": "3"}]},
    {"id": "2", "task_name": "Wait", "task_description": "", "steps": [], "tools": [],
     "responsePathways": []},
    {"id": "3", "task_name": "Refund", "task_description": "", "steps": [], "tools": [],
     "responsePathways": []}], "edges": []}

# The listing-blocked example's user and tool answers for a resolved run.
LISTING_SEED = {"seller_id": "S1", "listing_id": "LST9"}
LISTING_RESPONSES = {"check_user_status": [{"outputs": {"user_status": "active"}}],
                     "check_listing_status": [{"outputs": {"listing_status": "inactive"}}]}


def sop_of(nodes, edges, tools=(), variables=(), start="a"):
    """An SOP from plain node/edge/tool/variable dicts, through the file loader."""
    return parse_document({"format": "sopstudio", "version": 1, "sop": {
        "id": "t", "title": "T", "start": start, "nodes": list(nodes), "edges": list(edges),
        "tools": list(tools), "variables": list(variables)}})


class RecordingModel:
    """A model client that records the messages it is sent and answers with plain text: the
    texts in order, then the last one again and again."""

    def __init__(self, texts):
        self.texts, self.requests = list(texts), []

    def complete(self, messages, tools=None):
        from sopstudio.engine.llm_client import ModelReply
        self.requests.append(messages)
        return ModelReply(self.texts.pop(0) if len(self.texts) > 1 else self.texts[0])


def cli(capsys, *argv) -> tuple[int, str, str]:
    """Run the command line in-process: (exit code, stdout, stderr)."""
    from sopstudio.cli_main import run
    code = run([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def listing_file(folder: Path) -> str:
    """The listing-blocked example saved as a .sop.json in `folder`."""
    from sopstudio.core.io import save_sop
    from sopstudio.engine.examples import listing_blocked
    path = folder / "lb.sop.json"
    save_sop(listing_blocked(), path)
    return str(path)
