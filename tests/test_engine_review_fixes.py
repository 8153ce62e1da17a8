"""Regression tests for the engine review fixes (bounded tool calls, branching all in bench,
finish values, dotted conditions, one SPA prompt, replay setup, user QUIT, live tools)."""

from __future__ import annotations

import json

from sopstudio.core.io import parse_document
from sopstudio.engine.agents.base import Action, call, finish
from sopstudio.engine.agents.scripted import ScriptedAgent
from sopstudio.engine.compiled import CompiledSop
from sopstudio.engine.examples import listing_blocked
from sopstudio.engine.metrics import run_metrics, summarize
from sopstudio.engine.orchestrator import GRACE_MESSAGE, Orchestrator, static_tool_cap
from sopstudio.engine.runner import run_scenario
from sopstudio.engine.scenarios import generate
from sopstudio.engine.tools import MockTools
from sopstudio.engine.users import ScriptedUser

SEED = {"seller_id": "S1", "listing_id": "LST9"}
OK = {"check_user_status": [{"outputs": {"user_status": "active"}}],
      "check_listing_status": [{"outputs": {"listing_status": "inactive"}}]}


class Repeater:
    """A fake model-driven agent: always the same action (a runaway LLM)."""

    name, checks = "fake", []

    def __init__(self, action: Action, static: bool = False):
        self.action, self.static = action, static

    def next_action(self, ctx):
        return self.action


def sop_of(nodes, edges, tools=(), variables=(), start="a"):
    return parse_document({"format": "sopstudio", "version": 1, "sop": {
        "id": "t", "title": "T", "start": start, "nodes": list(nodes), "edges": list(edges),
        "tools": list(tools), "variables": list(variables)}})


def orchestrate(agent, responses=None, sop=None, **kwargs):
    cs = CompiledSop(sop or listing_blocked())
    return Orchestrator(cs, agent, ScriptedUser(SEED), MockTools(cs.tools, responses or OK),
                        **kwargs)


# -- 1. bounded tool calls ---------------------------------------------------------------------
def test_repeated_successful_call_ends_after_max_attempts():
    orch = orchestrate(Repeater(call("check_user_status", {"seller_id": "S1"})))
    trace = orch.run()
    node = orch.compiled.nodes[orch.sop.start].node
    assert len(trace.tool_trace) == node.attempts
    assert trace.outcome == "technical-issue"
    end = trace.events[-1]
    assert end.type == "end" and end.code == "attempts-exhausted"
    assert trace.events[-2].type == "say" and trace.events[-2].text == GRACE_MESSAGE


def test_failing_then_succeeding_calls_share_one_bound():
    responses = {"check_user_status": [{"error": "api_error"}, {"outputs": {"user_status":
                                                                            "active"}}]}
    orch = orchestrate(Repeater(call("check_user_status", {"seller_id": "S1"})), responses)
    trace = orch.run()
    results = [e for e in trace.events if e.type == "tool_result"]
    assert [e.attempt for e in results] == list(range(1, len(results) + 1))
    assert len(results) == orch.compiled.nodes["check_user"].node.attempts
    assert trace.outcome == "technical-issue"


def test_static_agent_has_a_per_run_tool_call_cap():
    agent = Repeater(call("check_user_status", {"seller_id": "S1"}), static=True)
    failing = {"check_user_status": [{"error": "api_error"}]}
    orch = orchestrate(agent, failing)
    trace = orch.run()
    cap = static_tool_cap(orch.sop)
    assert cap == 3 * len(orch.sop.tools) + 10
    assert len(trace.tool_trace) == cap
    assert trace.outcome == "technical-issue" and trace.events[-1].code == "tool-call-cap"
    assert len(trace.events) < 200  # far below max_events: the cap, not max_events, stopped it


def test_scripted_agent_unaffected_by_the_bound():
    trace = orchestrate(ScriptedAgent(CompiledSop(listing_blocked()))).run()
    assert trace.outcome == "resolved"


# -- 2. branching all in bench -----------------------------------------------------------------
def branching_all_sop():
    return sop_of(
        [{"id": "a", "kind": "task", "ask": ["name"], "branching": "all"},
         {"id": "b", "kind": "end", "say": "B done", "outcome": "resolved"},
         {"id": "c", "kind": "end", "say": "C done", "outcome": "notified"}],
        [{"id": "e1", "source": "a", "target": "b", "when": "name != ''"},
         {"id": "e2", "source": "a", "target": "c", "when": "name != ''"}],
        variables=[{"name": "name", "type": "string", "source": "user"}])


def test_branching_all_scenarios_are_realised_and_scripted_scores_one():
    cs = CompiledSop(branching_all_sop())
    scenarios = generate(cs)
    assert scenarios and all(s.realized for s in scenarios)
    rows = [run_metrics(run_scenario(cs, s), s) for s in scenarios]
    overall = summarize(rows)["overall"]
    assert overall["tsr"] == 1.0 and overall["path_accuracy"] == 1.0 and overall["tta"] == 1.0
    correct = [s for s in scenarios if s.type == "correct"]
    assert {s.expected["end_node"] for s in correct} == {"c"}  # the last end reached
    assert all(s.expected["edges"] == ["e1", "e2"] for s in correct)


def test_branching_all_journey_not_taken_is_still_unrealised():
    sop = sop_of(
        [{"id": "a", "kind": "task", "ask": ["name"], "branching": "all"},
         {"id": "b", "kind": "end"}, {"id": "c", "kind": "end"}],
        [{"id": "e1", "source": "a", "target": "b", "when": "name == 'x'"},
         {"id": "e2", "source": "a", "target": "c", "when": "nmae == 'y'"}],  # misspelt name
        variables=[{"name": "name", "type": "string", "source": "user"}])
    cs = CompiledSop(sop)
    by_end = {s.journey["nodes"][-1]: s for s in generate(cs, types=("correct",))}
    assert by_end["b"].realized and not by_end["c"].realized


# -- 3. finish values ------------------------------------------------------------------------
class FinishRouter:
    """Asks nothing, calls nothing: claims the tool's output on finish to route itself."""

    name, static, checks = "fake", False, []

    def next_action(self, ctx):
        return finish({"user_status": "active"})


def test_finish_values_outside_the_nodes_ask_are_rejected():
    orch = orchestrate(FinishRouter())
    trace = orch.run()
    guards = [e for e in trace.events if e.type == "guardrail"]
    assert guards and all(g.code == "value-not-askable" for g in guards)
    assert "user_status" in guards[0].text
    assert not trace.tool_trace and trace.outcome == "technical-issue"
    assert "user_status" not in trace.variables
    assert trace.path == ["check_user"]


class FinishAsked:
    name, static, checks = "fake", False, []

    def next_action(self, ctx):
        if ctx.last_result is None:
            return call("check_user_status", {"seller_id": "S1"})
        return finish({"seller_id": "S1"})


def test_finish_values_the_node_asks_are_accepted():
    trace = orchestrate(FinishAsked()).run()
    assert not [e for e in trace.events if e.type == "guardrail" and e.node == "check_user"]
    assert trace.path[:2] == ["check_user", "ask_listing"]


# -- 4. dotted-path conditions -----------------------------------------------------------------
def dotted_sop():
    return sop_of(
        [{"id": "a", "kind": "task", "ask": ["client"], "tools": ["assess"]},
         {"id": "low", "kind": "end", "outcome": "approved"},
         {"id": "high", "kind": "end", "outcome": "rejected"}],
        [{"id": "e1", "source": "a", "target": "low", "when": "response.riskLevel == 'low'"},
         {"id": "e2", "source": "a", "target": "high", "when": "else"}],
        tools=[{"name": "assess", "parameters": {"type": "object", "properties": {
            "client": {"type": "string"}}, "required": ["client"]},
            "outputs": [{"name": "response", "type": "object"}]}],
        variables=[{"name": "client", "type": "string", "source": "user"}])


def test_satisfy_nests_dotted_names_under_the_root():
    from sopstudio.core.expr import parse
    from sopstudio.engine.values_solve import satisfy
    found = satisfy(parse("response.riskLevel == 'low' and response.score > 3").node, True,
                    lambda n: None)
    assert found == {"response": {"riskLevel": "low", "score": 4}}
    assert satisfy(parse("a.b == 1 and a.b == 2").node, True, lambda n: None) is None


def test_dotted_condition_journeys_are_realised():
    cs = CompiledSop(dotted_sop())
    scenarios = generate(cs, types=("correct",))
    by_end = {s.journey["nodes"][-1]: s for s in scenarios}
    assert set(by_end) == {"low", "high"} and all(s.realized for s in scenarios)
    low = by_end["low"].responses["assess"][0]["outputs"]["response"]
    assert low["riskLevel"] == "low"
    high = by_end["high"].responses["assess"][0]["outputs"]["response"]
    assert high.get("riskLevel") != "low"
    for s in scenarios:
        trace = run_scenario(cs, s)
        assert run_metrics(trace, s)["correct"] and trace.end_node == s.journey["nodes"][-1]


# -- 5. one SPA prompt -------------------------------------------------------------------------
class Capture:
    """A model client that records the messages and answers with plain text."""

    def __init__(self, texts):
        self.texts, self.requests = list(texts), []

    def complete(self, messages, tools=None):
        from sopstudio.engine.llm_client import ModelReply
        self.requests.append(messages)
        return ModelReply(self.texts.pop(0) if len(self.texts) > 1 else self.texts[0])


def test_spa_system_prompt_starts_with_the_exported_prompt():
    from sopstudio.engine.agents.spa import SpaAgent
    from sopstudio.formats import export_sop
    sop = listing_blocked()
    client = Capture(["Hello."])
    agent = SpaAgent(client=client)
    orch = Orchestrator(CompiledSop(sop), agent, ScriptedUser(SEED), max_turns=1)
    orch.run()
    system = client.requests[0][0]["content"]
    exported = export_sop(sop, "spa-prompt").rstrip("\n")
    # one prompt: the export is the agent's template, its placeholder filled at run time
    assert system == exported.replace("{known_information}", "(nothing yet)")
    assert "finish_conversation" in exported


# -- 6. one replay setup -----------------------------------------------------------------------
def test_replay_orchestrator_reproduces_a_run_step_by_step():
    from sopstudio.engine.orchestrator_replay import replay_orchestrator
    from sopstudio.qt.sim_run import replay_session
    cs = CompiledSop(listing_blocked())
    original = orchestrate(ScriptedAgent(cs), seed=7).run()
    again = replay_orchestrator(cs, original.to_dict())
    events = []
    while (event := again.step()) is not None:
        events.append(event)
    assert [e.to_dict() for e in events] == [e.to_dict() for e in original.events]
    assert again.trace.meta["seed"] == 7
    assert replay_session(cs, original).run().outcome == original.outcome


# -- 7. the LLM user's quit token; agent choices -------------------------------------------------
def test_llm_user_quit_token_ends_the_run_stopped():
    from sopstudio.engine.llm_user import QUIT, LLMUser
    cs = CompiledSop(listing_blocked())
    user = LLMUser(Capture(["My listing is blocked.", QUIT]), "unblock my listing", SEED)
    trace = Orchestrator(cs, ScriptedAgent(cs), user, MockTools(cs.tools, OK)).run()
    assert trace.outcome == "stopped"
    end = trace.events[-1]
    assert end.type == "end" and end.text == "user-quit"
    assert trace.events[-2].type == "user" and trace.events[-2].text == QUIT
    assert not trace.tool_trace


def test_unknown_agent_is_a_usage_error(tmp_path, capsys):
    import pytest
    from sopstudio.cli_main import run as cli
    from sopstudio.core.io import save_sop
    path = tmp_path / "lb.sop.json"
    save_sop(listing_blocked(), path)
    with pytest.raises(SystemExit) as exited:
        cli(["simulate", str(path), "--agent", "bogus"])
    assert exited.value.code == 2 and "invalid choice" in capsys.readouterr().err


# -- 8. live tools -----------------------------------------------------------------------------
def live_sop(url):
    return sop_of(
        [{"id": "a", "kind": "task", "ask": ["order_id"], "tools": ["lookup", "refund"]},
         {"id": "b", "kind": "end"}],
        [{"id": "e1", "source": "a", "target": "b"}],
        tools=[{"name": "lookup", "method": "GET", "url": url + "/orders/{order_id}",
                "live": True, "parameters": {"type": "object", "properties": {
                    "order_id": {"type": "string"}}},
                "outputs": [{"name": "status", "type": "string"}]},
               {"name": "refund", "method": "POST", "url": url + "/refunds", "live": True,
                "parameters": {"type": "object", "properties": {
                    "order_id": {"type": "string"}, "status": {"type": "string"}}},
                "outputs": [{"name": "refund_id", "type": "string"}]}],
        variables=[{"name": "order_id", "type": "string", "source": "user"}])


class Endpoint:
    """A stdlib HTTP server on 127.0.0.1 recording requests; GET /orders/<id>, POST /refunds."""

    def __enter__(self):
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        seen = self.seen = []

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, code, body):
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                seen.append(("GET", self.path, None))
                if self.path == "/orders/A%2F1":
                    self._send(200, {"status": "shipped", "extra": 1})
                else:
                    self._send(404, {"error": "not found"})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                seen.append(("POST", self.path, body))
                self._send(200, {"refund_id": "R9"})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def run_live(sop, order_id, allow_live):
    cs = CompiledSop(sop)
    tools = MockTools(cs.tools, {}, allow_live=allow_live)
    return Orchestrator(cs, ScriptedAgent(cs), ScriptedUser({"order_id": order_id}), tools).run()


def test_live_tools_call_the_endpoint_only_when_allowed():
    with Endpoint() as server:
        trace = run_live(live_sop(server.url), "A/1", allow_live=True)
        assert server.seen == [("GET", "/orders/A%2F1", None),
                               ("POST", "/refunds", {"order_id": "A/1", "status": "shipped"})]
        results = [e.result for e in trace.events if e.type == "tool_result"]
        assert results == [{"outputs": {"status": "shipped"}}, {"outputs": {"refund_id": "R9"}}]
        assert not [e for e in trace.events if e.type == "note"]
        server.seen.clear()
        off = run_live(live_sop(server.url), "A/1", allow_live=False)
        assert server.seen == []  # mocked
        notes = [e for e in off.events if e.type == "note"]
        assert [n.tool for n in notes] == ["lookup", "refund"]
        assert "live calls are off" in notes[0].text
        from sopstudio.engine.orchestrator_replay import replay
        assert [e.to_dict() for e in replay(CompiledSop(live_sop(server.url)), off).events] == \
            [e.to_dict() for e in off.events]


def test_live_http_error_is_api_error():
    with Endpoint() as server:
        trace = run_live(live_sop(server.url), "nosuch", allow_live=True)
    results = [e.result for e in trace.events if e.type == "tool_result"]
    assert results and all(r == {"error": "api_error"} for r in results)
    assert trace.outcome == "technical-issue"
