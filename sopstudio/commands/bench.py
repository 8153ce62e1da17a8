"""`sopstudio bench`: run generated scenarios (3 types x edge-covering journeys) and print metrics.

Every run of the batch is stored (DESIGN §6) unless `--no-store`; `--db` picks the database.
Scenarios whose journey the SOP cannot follow (`realized: false`) are listed and counted as failed
runs (see engine/metrics.py); `metrics.by_type` always holds the three scenario types. An SOP with
validation errors gets a warning on stderr; a model that cannot be reached stops the batch with one
error line and no metrics.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from ..core.atomic import write_atomic
from ..core.inputs import InputError, read_text
from ..core.journeys import JourneyGraph
from ..engine.agents import AGENT_KINDS
from ..engine.batch import run_batch
from ..engine.compiled import CompiledSop
from ..engine.comparison import branch_agreement, comparison_rows
from ..engine.metrics import RATES
from ..engine.scenarios import generate
from ..engine.scenarios_csv import csv_columns, load_mapping, propose_mapping, read_rows
from ..engine.scenarios_rasa import load_tests_path, scenarios_from_rasa_tests
from ..engine.scenarios_rasa import summary as rasa_summary
from ..engine.session import agent_extras
from ._common import UnreadableFile, UsageError, load_or_exit, print_json
from ._options import (runnable, add_model_arguments, add_store_arguments, add_turn_limit,
                       agent_options, now, open_store_unless, positive_int, run_settings,
                       warn_if_invalid)

NAME = "bench"
HELP = "batch-run generated scenarios with an agent and print the metrics"
# Table columns: (heading, metrics key); the JSON keeps the long names.
COLUMNS = tuple(zip(("ujcs", "tta", "tca", "path", "leaf", "ecr", "c_tsr", "tsr"), RATES))
CSV_HELP = """CSV test sets (SOP-Bench style): one test per row, columns named in a JSON mapping:

  {"id": "case",
   "inputs": ["seller_id", "listing_id"],
   "tool_outputs": {"user_status": "check_user_status.user_status"},
   "expected": {"final_outcome": "outcome"}}

  inputs        columns the user gives (column = variable, or {"column": "variable"})
  tool_outputs  "column": "tool.output" -- what each tool returns in that row
  expected      "column": "outcome" | "end_node" | a variable whose final value is checked
  id            the column naming each test (default row1, row2, ...)

Blank cells are values the row does not give; list cells may be JSON or Python-style
(['A', 'B']). A cell that does not fit fails its row only (row, column and value are
reported) and the other rows run. `--mapping auto` proposes a mapping from column names
matching variables, tool parameters and outputs, writes it beside the CSV as
NAME.mapping.json for editing (an existing one is used, never overwritten) and runs it:

  sopstudio bench sample_sops/listing_blocked.sop.json --csv tests.csv --mapping auto
"""


def add_arguments(parser) -> None:
    parser.add_argument("file", help="the .sop.json file")
    parser.add_argument("--agent", default="scripted", choices=AGENT_KINDS,
                        help="the agent (default scripted)")
    parser.add_argument("--agents", type=agent_list,
                        help="compare agents on the same scenarios: a comma-separated list "
                             f"of {', '.join(AGENT_KINDS)} (one table; --json: one metrics "
                             "object per agent)")
    add_model_arguments(parser)
    add_turn_limit(parser)
    parser.add_argument("--limit", type=positive_int, help="run at most N scenarios")
    parser.add_argument("--csv", help="run a SOP-Bench style CSV test set (one scenario per row) "
                                      "instead of generated scenarios; needs --mapping")
    parser.add_argument("--mapping", metavar="MAP.json|auto",
                        help="JSON column mapping of the CSV (see below), or 'auto' to propose "
                             "one from the column names and write it beside the CSV")
    parser.add_argument("--rasa-tests", metavar="TESTS.yml",
                        help="run Rasa e2e test cases (a file or a tests folder; those of this "
                             "flow, others are listed as not applicable) instead of generated "
                             "scenarios")
    parser.epilog = CSV_HELP
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("--workers", type=positive_int, default=min(8, os.cpu_count() or 1))
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    add_store_arguments(parser)


def agent_list(text: str) -> list[str]:
    """argparse type: comma-separated agent names, each known, none twice."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in AGENT_KINDS]
    if not names or unknown:
        raise argparse.ArgumentTypeError(f"unknown agent(s) {', '.join(unknown) or '(none)'}; "
                                         f"choose from {', '.join(AGENT_KINDS)}")
    return list(dict.fromkeys(names))


def run(args) -> int:
    sop = load_or_exit(args.file)
    warn_if_invalid(sop, args.file, args.max_turns)
    sop = runnable(sop, args.file)
    cs = CompiledSop(sop)
    problems: list = []
    rasa_tests = _rasa_tests(args, cs) if args.rasa_tests else None
    if rasa_tests is not None:
        scenarios = rasa_tests.scenarios
    else:
        scenarios = _csv_scenarios(args, cs, problems) if args.csv or args.mapping \
            else generate(cs)
    if args.limit is not None:
        scenarios = scenarios[:args.limit]
    agents = args.agents or [args.agent]
    from ..engine.agents import make_agent
    for agent in agents:  # fail fast, one clear line, before any thread starts
        make_agent(agent, cs, **agent_options(args, agent))
    # The store opens before the batch: a bad --db fails now, not after a long LLM batch.
    # A model that cannot be reached raises out of run_batch: nothing is stored or printed.
    reports = {}
    with open_store_unless(args) as store:
        for agent in agents:
            reports[agent] = _bench_one(store, args, agent, sop, cs, scenarios)
    for report in reports.values():
        if args.csv:
            report["csv_problems"] = [p.to_dict() for p in problems]
    if rasa_tests is not None:
        for report in reports.values():
            report["rasa_tests"] = rasa_summary(rasa_tests, report["runs"])
    if args.agents:
        _print_comparison(args, scenarios, reports)
    elif args.json:
        print_json(reports[args.agent])
    else:
        _print_report(args, reports[args.agent])
    return 0


def _bench_one(store, args, agent: str, sop, cs, scenarios) -> dict:
    from ..engine.agents import make_agent
    # Agent-S's action repository is the store's tool library (engine.session.agent_extras).
    options = {**agent_options(args, agent),
               **agent_extras(agent, store.library.list if store is not None else None)}
    started = now()
    result = run_batch(cs, scenarios, lambda c: make_agent(agent, c, **options),
                       workers=args.workers, max_turns=args.max_turns)
    run_ids = _store_batch(store, args, agent, sop, result, started)
    return _report(cs, scenarios, result, run_ids)


def _print_comparison(args, scenarios, reports: dict) -> None:
    """One table: per scenario type, one row per agent (DESIGN §9 `--agents`)."""
    if args.json:
        print_json({"scenarios": len(scenarios),
                    "agents": [{"agent": agent, "metrics": report["metrics"],
                                "coverage": report["coverage"], "errors": report["errors"],
                                "run_ids": report["run_ids"],
                                **({"rasa_tests": report["rasa_tests"]}
                                   if "rasa_tests" in report else {})}
                               for agent, report in reports.items()]})
        return
    print(f"{len(scenarios)} scenarios, agents {', '.join(reports)}")
    for line in comparison_table({a: r["metrics"] for a, r in reports.items()}):
        print(line)
    for agent, report in reports.items():
        _print_branches(agent, report["metrics"]["overall"])
        for error in report["errors"]:
            print(f"{agent}: failed run {error}")
        if report["run_ids"]:
            ids = report["run_ids"]
            print(f"{agent}: stored {len(ids)} runs (ids {ids[0]}-{ids[-1]})")


def comparison_table(by_agent: dict[str, dict]) -> list[str]:
    """Rows `type agent metrics...`, types in the order overall, correct, missing, failing."""
    rows = comparison_rows(by_agent)
    return _table([(kind, agent) for kind, agent, _ in rows], [m for _, _, m in rows],
                  ("type", "agent"))


def _csv_scenarios(args, cs, problems: list) -> list:
    """The CSV's scenarios; rows that do not fit go to `problems` (reported, not run)."""
    if not (args.csv and args.mapping):
        raise UsageError("--csv and --mapping go together")
    try:  # bounded and UTF-8 checked like every input (core/inputs.py)
        text = read_text(args.csv)
    except InputError as error:
        raise UnreadableFile(f"{args.csv}: {error.detail}") from None
    mapping = _auto_mapping(args.csv, cs, text) if args.mapping == "auto" \
        else load_mapping(args.mapping)
    rows = read_rows(cs, text, mapping)
    problems += rows.problems
    return rows.scenarios


def _auto_mapping(csv_path: str, cs, text: str) -> dict:
    """Propose a mapping and write it beside the CSV (an existing file is used as it is)."""
    path = Path(csv_path).with_suffix(".mapping.json")
    if path.exists():
        print(f"note: using the existing mapping {path} (delete it to propose a new one)",
              file=sys.stderr)
        return load_mapping(path)
    mapping, left = propose_mapping(cs, csv_columns(text))
    try:
        write_atomic(path, json.dumps(mapping, indent=2) + "\n")
    except OSError as error:
        raise UnreadableFile(f"{path}: cannot write the proposed mapping ({error.strerror})"
                             ) from None
    unmapped = f"; columns not mapped: {', '.join(left)}" if left else ""
    print(f"note: proposed a column mapping in {path} — edit it and rerun with --mapping "
          f"{path}{unmapped}", file=sys.stderr)
    return mapping


def _rasa_tests(args, cs):
    if args.csv or args.mapping:
        raise UsageError("--rasa-tests and --csv are alternatives: give one")
    return scenarios_from_rasa_tests(cs, load_tests_path(args.rasa_tests))


def _report(cs, scenarios, result, run_ids) -> dict:
    covered = {e for r in result.results if r.trace for e in r.trace.edges}
    on_journeys = JourneyGraph(cs.sop).journey_edges()
    return {"scenarios": len(scenarios), "metrics": result.metrics,
            "coverage": {"edges": len(on_journeys),
                         "covered": sum(1 for e in on_journeys if e in covered),
                         "missing": [e for e in on_journeys if e not in covered]},
            "unrealized": [s.id for s in scenarios if not s.realized],
            "errors": [f"{r.scenario.id}: {r.error}" for r in result.results if r.error],
            "runs": [r.metrics for r in result.results if r.metrics],
            "run_ids": run_ids}


def _print_report(args, data: dict) -> None:
    coverage = data["coverage"]
    print(f"{data['scenarios']} scenarios, agent {args.agent}; edges covered "
          f"{coverage['covered']}/{coverage['edges']}")
    for line in metrics_table(data["metrics"]):
        print(line)
    _print_branches(args.agent, data["metrics"]["overall"])
    if data["unrealized"]:
        print(f"unrealized: {len(data['unrealized'])} scenario(s) whose journey the SOP cannot "
              f"follow, counted as failures: {', '.join(data['unrealized'])}")
    for error in data["errors"]:
        print(f"failed run {error}")
    for problem in data.get("csv_problems", []):
        print(f"CSV row {problem['row']} (line {problem['line']}) not run: {problem['message']}")
    if "rasa_tests" in data:
        tests = data["rasa_tests"]
        print(f"Rasa test cases: {tests['passed']} passed, {tests['failed']} failed, "
              f"{tests['not_applicable']} not applicable")
        for case in tests["cases"]:
            if case["result"] != "passed":
                print(f"  {case['result']}: {case['test_case']} ({case.get('reason', '')})")
    if data["run_ids"]:
        ids = data["run_ids"]
        print(f"stored {len(ids)} runs (ids {ids[0]}-{ids[-1]})")


def _print_branches(agent: str, overall: dict) -> None:
    line = branch_agreement(agent, overall)
    if line:
        print(line)


def metrics_table(metrics: dict) -> list[str]:
    """The overall and per-type metrics as aligned text rows (a heading first)."""
    rows = [("overall", metrics["overall"]), *metrics["by_type"].items()]
    return _table([(name,) for name, _ in rows], [m for _, m in rows], ("type",))


def _table(labels: list[tuple], rows: list[dict], heads: tuple) -> list[str]:
    widths = [max(len(head), *(len(label[i]) for label in labels))
              for i, head in enumerate(heads)]
    headings = [h for h, _ in COLUMNS] + ["runs", "unrealized", "warnings"]
    cells = [max(5, len(h)) for h in headings]

    def line(first: tuple, values: list[str]) -> str:
        return " ".join([f"{text:<{w}}" for text, w in zip(first, widths)]
                        + [f"{v:>{c}}" for v, c in zip(values, cells)])
    lines = [line(heads, headings)]
    for label, m in zip(labels, rows):
        values = [_rate(m.get(key)) for _, key in COLUMNS]
        values += [str(m.get(key, 0)) for key in ("runs", "unrealized", "warnings")]
        lines.append(line(label, values))
    return lines


def _rate(value) -> str:
    return "-" if value is None else f"{value:.3f}"


def _store_batch(store, args, agent: str, sop, result, started) -> list[int]:
    if store is None:
        return []
    from ..store.traces import save_batch
    return save_batch(store, sop, result, agent, model=args.model,
                      settings=run_settings(args, agent, workers=args.workers,
                                            max_turns=args.max_turns),
                      started=started, finished=now())
