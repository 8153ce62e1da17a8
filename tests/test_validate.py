"""validate(): every issue code from a small broken SOP, on the right node/edge (DESIGN §4)."""

from __future__ import annotations

import copy

import pytest

from sopstudio.core.model import SOP
from sopstudio.core.validate import CODES, Issue, validate

BASE = {
    "id": "listing", "start": "ask",
    "variables": [{"name": "listing_id", "type": "string", "source": "user"}],
    "tools": [{"name": "check_listing",
               "parameters": {"type": "object", "properties": {"listing_id": {"type": "string"}},
                              "required": ["listing_id"]},
               "outputs": [{"name": "listing_status", "enum": ["active", "blocked"]}],
               "errors": ["invalid_id"]}],
    "nodes": [{"id": "ask", "ask": ["listing_id"], "max_attempts": 2},
              {"id": "check", "tools": ["check_listing"]},
              {"id": "done_active", "kind": "end", "outcome": "resolved"},
              {"id": "done_blocked", "kind": "end", "outcome": "escalated"}],
    "edges": [{"id": "e1", "source": "ask", "target": "check"},
              {"id": "e2", "source": "check", "target": "done_active",
               "when": "listing_status == 'active'"},
              {"id": "e3", "source": "check", "target": "done_blocked", "when": "else"},
              {"id": "e4", "source": "check", "target": "ask", "on": "failure",
               "when": "error == 'invalid_id'"}],
}


def base() -> dict:
    return copy.deepcopy(BASE)


def node(data: dict, ident: str) -> dict:
    return next(n for n in data["nodes"] if n["id"] == ident)


def edge(data: dict, ident: str) -> dict:
    return next(e for e in data["edges"] if e["id"] == ident)


def found(data: dict) -> list[tuple[str, str | None, str | None]]:
    return [(i.code, i.node, i.edge) for i in validate(SOP.model_validate(data))]


def only(data: dict) -> Issue:
    issues = validate(SOP.model_validate(data))
    assert len(issues) == 1, [i.to_dict() for i in issues]
    return issues[0]


def test_clean_sop_has_no_issues():
    assert found(base()) == []


def test_issue_to_dict_and_severities():
    data = base()
    data["start"] = None
    issue = only(data)
    assert issue.to_dict() == {"code": "no-start", "severity": "error",
                               "message": issue.message, "node": None, "edge": None}
    warnings = {c for c, s in CODES.items() if s == "warning"}
    assert {"unreachable", "overlapping-conditions", "unused-tool", "unused-variable",
            "duplicate-edge"} <= warnings
    assert {"no-start", "dead-end", "bad-condition", "missing-default"}.isdisjoint(warnings)


def test_start_naming_a_missing_node_is_no_start():
    data = base()
    data["start"] = "nowhere"
    issue = only(data)
    assert issue.code == "no-start" and "nowhere" in issue.message


def test_edge_to_missing_node_is_unknown_node():
    data = base()
    data["edges"].append({"id": "e9", "source": "check", "target": "ghost", "on": "failure"})
    assert found(data) == [("unknown-node", "check", "e9")]
    assert "ghost" in only(data).message


def test_node_no_path_reaches_is_unreachable_warning():
    data = base()
    data["nodes"].append({"id": "orphan", "kind": "end"})
    issue = only(data)
    assert (issue.code, issue.severity, issue.node) == ("unreachable", "warning", "orphan")


@pytest.mark.parametrize("failure_only", [False, True])
def test_task_without_success_exit_is_dead_end(failure_only):
    data = base()
    edge(data, "e4")["target"] = "stuck"
    data["nodes"].append({"id": "stuck", "kind": "task", "say": "Sorry."})
    if failure_only:
        data["edges"].append({"id": "e5", "source": "stuck", "target": "ask", "on": "failure"})
    assert found(data) == [("dead-end", "stuck", None)]


def test_cycle_with_no_way_to_an_end_is_no_end():
    data = base()
    edge(data, "e4")["target"] = "loop1"
    data["nodes"] += [{"id": "loop1", "say": "a", "max_attempts": 2}, {"id": "loop2", "say": "b"}]
    data["edges"] += [{"id": "e5", "source": "loop1", "target": "loop2"},
                      {"id": "e6", "source": "loop2", "target": "loop1"}]
    assert found(data) == [("no-end", "loop1", None), ("no-end", "loop2", None)]


def test_sop_without_end_nodes_is_one_no_end():
    data = {"id": "x", "start": "a", "nodes": [{"id": "a", "max_attempts": 1}],
            "edges": [{"id": "e1", "source": "a", "target": "a"}]}
    assert found(data) == [("no-end", None, None)]


def test_cycle_without_max_attempts_is_unbounded_cycle():
    data = base()
    del node(data, "ask")["max_attempts"]
    issue = only(data)
    assert (issue.code, issue.node) == ("unbounded-cycle", "ask")
    assert "check" in issue.message


def test_self_loop_without_max_attempts_is_unbounded_cycle():
    data = base()
    data["edges"].append({"id": "e5", "source": "check", "target": "check", "on": "failure"})
    assert found(data) == [("unbounded-cycle", "check", None)]


def test_syntax_error_in_condition_is_bad_condition():
    data = base()
    edge(data, "e2")["when"] = "listing_status == "
    issue = only(data)
    assert (issue.code, issue.node, issue.edge) == ("bad-condition", "check", "e2")
    assert "e2" in issue.message


@pytest.mark.parametrize("site", ["set", "tool_when", "tool_args"])
def test_syntax_error_in_node_expressions_is_bad_condition(site):
    data = base()
    check = node(data, "check")
    if site == "set":
        check["set"] = {"score": "1 +* 2"}
    elif site == "tool_when":
        check["tool_when"] = {"check_listing": "listing_id ==="}
    else:
        check["tool_args"] = {"check_listing": {"listing_id": "upper(listing_id"}}
    assert found(data) == [("bad-condition", "check", None)]


ATTACKS = ["__import__('os').system('id')", "().__class__", "open('x')", "a" * 1_000_000,
           "(" * 5000 + "1" + ")" * 5000, "(" * 150 + "1" + ")" * 150, "not " * 2000 + "x"]


@pytest.mark.parametrize("attack", ATTACKS, ids=["import", "dunder", "open", "1mb", "long-nesting", "nesting", "not-chain"])
@pytest.mark.parametrize("site", ["when", "set", "tool_args"])
def test_attack_strings_are_bad_conditions_and_run_nothing(attack, site, monkeypatch):
    import builtins
    import os
    calls = []
    monkeypatch.setattr(os, "system", lambda *a: calls.append(("system", a)))
    monkeypatch.setattr(builtins, "open", lambda *a, **k: calls.append(("open", a)))
    data = base()
    if site == "when":
        edge(data, "e2")["when"] = attack
    elif site == "set":
        node(data, "check")["set"] = {"x": attack}
    else:
        node(data, "check")["tool_args"] = {"check_listing": {"listing_id": attack}}
    issues = validate(SOP.model_validate(data))
    monkeypatch.undo()
    assert [i.code for i in issues] == ["bad-condition"]
    assert len(issues[0].message) < 300
    assert calls == []


def test_misspelt_name_is_undefined_variable_with_suggestion():
    data = base()
    edge(data, "e2")["when"] = "listing_statu == 'active'"
    issue = only(data)
    assert (issue.code, issue.node, issue.edge) == ("undefined-variable", "check", "e2")
    assert "'listing_statu'" in issue.message and "did you mean 'listing_status'" in issue.message


def test_missing_default_names_uncovered_value():
    data = base()
    edge(data, "e3")["when"] = "listing_status == 'pending'"
    issue = only(data)
    assert (issue.code, issue.node) == ("missing-default", "check")
    assert "'blocked'" in issue.message


def test_unconditional_edge_counts_as_default():
    data = base()
    edge(data, "e3")["when"] = None
    data["edges"].append({"id": "e5", "source": "check", "target": "done_blocked",
                          "when": "listing_status == 'pending'"})
    assert "missing-default" not in [code for code, _, _ in found(data)]


def test_overlapping_conditions_on_first_match_node():
    data = base()
    edge(data, "e3")["when"] = "listing_status in ['active', 'blocked']"
    issue = only(data)
    assert (issue.code, issue.severity, issue.node, issue.edge) == \
        ("overlapping-conditions", "warning", "check", "e3")
    assert "'active'" in issue.message and "e2" in issue.message


def test_overlap_is_fine_when_branching_all():
    data = base()
    edge(data, "e3")["when"] = "listing_status in ['active', 'blocked']"
    node(data, "check")["branching"] = "all"
    assert found(data) == []


def test_boolean_output_must_be_covered():
    data = base()
    data["tools"][0]["outputs"] = [{"name": "ok", "type": "boolean"}]
    edge(data, "e2")["when"] = "ok == true"
    edge(data, "e3")["when"] = "not ok and ok"
    issue = only(data)
    assert (issue.code, issue.node) == ("missing-default", "check")
    assert "false" in issue.message


def test_node_calling_undefined_tool_is_unknown_tool():
    data = base()
    node(data, "check")["tools"].append("check_listng")
    issue = only(data)
    assert (issue.code, issue.node, issue.tool) == ("unknown-tool", "check", "check_listng")
    assert "did you mean 'check_listing'" in issue.message


def test_tool_args_for_a_tool_the_node_does_not_call_is_unknown_tool():
    data = base()
    node(data, "ask")["tool_when"] = {"check_listing": "listing_id != ''"}
    assert found(data) == [("unknown-tool", "ask", None)]


def test_required_parameter_nothing_supplies_is_unobtainable():
    data = base()
    params = data["tools"][0]["parameters"]
    params["properties"]["seller_id"] = {"type": "string"}
    params["required"].append("seller_id")
    issue = only(data)
    assert (issue.code, issue.node, issue.tool, issue.variable) == \
        ("unobtainable-parameter", "check", "check_listing", "seller_id")


def test_declared_user_variable_never_asked_is_unobtainable():
    data = base()
    node(data, "ask")["ask"] = []
    issue = only(data)
    assert (issue.code, issue.node) == ("unobtainable-parameter", "check")
    assert "declared but no ask" in issue.message


def test_mapped_parameter_uses_the_expression_instead():
    data = base()
    data["variables"].append({"name": "raw_id", "source": "user"})
    node(data, "ask")["ask"] = ["raw_id"]
    node(data, "check")["tool_args"] = {"check_listing": {"listing_id": "upper(raw_id)"}}
    data["variables"] = [v for v in data["variables"] if v["name"] != "listing_id"]
    assert found(data) == []


def test_unused_tool_warning():
    data = base()
    data["tools"].append({"name": "refund"})
    issue = only(data)
    assert (issue.code, issue.severity, issue.tool, issue.node) == \
        ("unused-tool", "warning", "refund", None)


def test_unused_variable_warning():
    data = base()
    data["variables"].append({"name": "phone", "source": "user"})
    issue = only(data)
    assert (issue.code, issue.severity, issue.variable) == ("unused-variable", "warning", "phone")


def test_variable_mentioned_in_say_is_used():
    data = base()
    data["variables"].append({"name": "name", "source": "user"})
    node(data, "ask")["ask"].append("name")
    node(data, "done_active")["say"] = "Thanks {name}, your listing is fine."
    assert found(data) == []


def test_same_edge_twice_is_duplicate_edge():
    data = base()
    data["edges"].append({"id": "e5", "source": "ask", "target": "check"})
    issue = only(data)
    assert (issue.code, issue.severity, issue.edge) == ("duplicate-edge", "warning", "e5")


def test_duplicate_node_id_is_reported():
    data = base()
    data["nodes"].append({"id": "done_active", "kind": "end"})
    assert found(data) == [("duplicate-id", "done_active", None)]


def test_end_node_with_exits():
    data = base()
    data["edges"].append({"id": "e5", "source": "done_active", "target": "ask"})
    assert found(data) == [("end-has-exits", "done_active", "e5")]


def test_asking_undeclared_variable_is_unknown_variable():
    data = base()
    node(data, "ask")["ask"].append("listing_idd")
    issue = only(data)
    assert (issue.code, issue.node, issue.variable) == ("unknown-variable", "ask", "listing_idd")


def test_tool_args_mapping_unknown_parameter_warns():
    data = base()
    node(data, "check")["tool_args"] = {"check_listing": {"listingid": "listing_id"}}
    issue = only(data)
    assert (issue.code, issue.severity, issue.node) == ("unknown-parameter", "warning", "check")


def test_edge_behind_an_unconditional_edge_is_never_taken():
    data = base()
    edge(data, "e3")["when"] = None
    data["edges"].insert(1, data["edges"].pop(2))  # e3 (unconditional) before e2
    issue = only(data)
    assert (issue.code, issue.node, issue.edge) == ("overlapping-conditions", "check", "e2")
    assert "e3" in issue.message


def test_second_else_edge_is_never_taken():
    data = base()
    data["nodes"].append({"id": "done_other", "kind": "end"})
    data["edges"].append({"id": "e5", "source": "check", "target": "done_other", "when": "else"})
    issue = only(data)
    assert (issue.code, issue.node, issue.edge) == ("overlapping-conditions", "check", "e5")
