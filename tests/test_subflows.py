"""Sub-SOPs (DESIGN §2): a subflow node runs its child in the same conversation and memory, the
parent leaves by its own edges testing `<node>.outcome`; journeys, simulation, bench and
validation see through it; recursion and a missing child are validation errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from sopstudio.cli_main import run as cli
from sopstudio.core.io import load_sop
from sopstudio.core.journeys import JourneyGraph
from sopstudio.core.model import SOP, Edge, Node
from sopstudio.core.subflows import MAX_DEPTH, SubflowLoader, expand, subflow_problem
from sopstudio.core.validate import validate

HERE = Path(__file__).resolve().parent / "fixtures" / "subflows"
PARENT = str(HERE / "refund.sop.json")


def run_json(capsys, *argv):
    assert cli(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_expansion_qualifies_child_nodes_and_keeps_journeys_feasible():
    sop = expand(load_sop(PARENT), SubflowLoader(PARENT))
    child = {n.id: n for n in sop.nodes if n.id.startswith("verify/")}
    assert set(child) == {"verify/ask_customer", "verify/verified", "verify/rejected"}
    assert all(n.level == 1 and n.kind == "task" for n in child.values())
    assert child["verify/verified"].set == {"verify.outcome": '"verified"'}
    journeys = [j.nodes for j in JourneyGraph(sop).iter_journeys(10)]
    # The rejected outcome cannot take the `verify.outcome == 'verified'` exit: no such journey.
    assert sorted(journeys) == sorted([
        ("ask_order", "verify/ask_customer", "verify/rejected", "denied"),
        ("ask_order", "verify/ask_customer", "verify/verified", "refund", "refunded")])
    assert sop.tool("check_customer") is not None and sop.variable("customer_id") is not None


def test_simulate_events_inside_the_child_carry_level(capsys):
    data = run_json(capsys, "simulate", PARENT, "--journey", "1", "--no-store", "--json")
    assert data["outcome"] == "refunded"
    inside = [e for e in data["events"] if (e["node"] or "").startswith("verify/")]
    assert inside and all(e["level"] == 1 for e in inside)
    assert all("level" not in e for e in data["events"] if e["node"] in ("ask_order", "refund"))
    calls = [e["tool"] for e in data["events"] if e["type"] == "tool_call"]
    assert calls == ["check_customer", "refund_order"]


def test_bench_on_a_parent_scores_one_with_the_scripted_agent(capsys):
    data = run_json(capsys, "bench", PARENT, "--no-store", "--json", "--workers", "1")
    assert data["scenarios"] == 6 and not data["unrealized"]
    assert data["metrics"]["overall"]["tsr"] == 1.0
    assert data["coverage"]["covered"] == data["coverage"]["edges"]


def test_journeys_count_expands_through_the_subflow(capsys):
    assert run_json(capsys, "journeys", PARENT, "--json")["count"] == 2


def test_recursion_and_missing_child_are_validation_errors(capsys):
    for name, code in (("loop_a", "subflow-recursion"), ("missing_child", "missing-subflow")):
        path = str(HERE / f"{name}.sop.json")
        assert cli(["validate", path, "--json"]) == 1
        codes = [i["code"] for i in json.loads(capsys.readouterr().out)["issues"]]
        assert code in codes
    assert cli(["validate", PARENT]) == 0


def test_running_a_recursive_sop_is_one_clear_error(capsys):
    assert cli(["simulate", str(HERE / "loop_a.sop.json"), "--no-store"]) == 2
    err = capsys.readouterr().err
    assert "includes itself" in err and "Traceback" not in err


def test_nesting_is_bounded(tmp_path):
    def chain(i: int) -> SOP:
        nodes = [Node(id="go", kind="subflow", subflow=f"c{i + 1}.sop.json"),
                 Node(id="done", kind="end")]
        return SOP(id=f"c{i}", start="go", nodes=nodes,
                   edges=[Edge(id="e", source="go", target="done")])
    sops = {tmp_path / f"c{i}.sop.json": chain(i) for i in range(MAX_DEPTH + 2)}
    loader = SubflowLoader(tmp_path / "c0.sop.json", read=lambda path: sops[path])
    problem = subflow_problem(sops[tmp_path / "c0.sop.json"], loader)
    assert problem is not None and problem.code == "subflow-too-deep"


def test_child_resolves_relative_to_its_own_file(tmp_path):
    shutil.copy(PARENT, tmp_path / "refund.sop.json")
    (tmp_path / "sub").mkdir()
    shutil.copy(HERE / "verify.sop.json", tmp_path / "sub" / "verify.sop.json")
    data = json.loads((tmp_path / "refund.sop.json").read_text())
    data["sop"]["nodes"][1]["subflow"] = "sub/verify.sop.json"
    (tmp_path / "refund.sop.json").write_text(json.dumps(data))
    path = tmp_path / "refund.sop.json"
    assert not validate(load_sop(path), SubflowLoader(path))


def test_exits_reading_other_values_stay_and_a_true_exit_drops_the_else():
    from sopstudio.core.subflows import _possible
    exits = [Edge(id="a", source="s", target="x", when="s.outcome == 'ok' and amount > 3"),
             Edge(id="b", source="s", target="y", when="s.outcome == 'ok'"),
             Edge(id="c", source="s", target="z", when="else")]
    assert [e.id for e in _possible(exits, "s.outcome", "ok")] == ["a", "b"]
    assert [e.id for e in _possible(exits, "s.outcome", "no")] == ["c"]
