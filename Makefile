# Two entry points (see README): `make run` and `make test`. Each one alone does the whole set-up.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SAMPLE ?= sample_sops/listing_blocked.sop.json

.PHONY: run test setup system-deps bench clean

run: setup
	@bash resources/system_deps.sh gui
	@if [ -z "$$DISPLAY" ] && [ -z "$$WAYLAND_DISPLAY" ]; then \
		echo "No display found: run 'xvfb-run -a $(BIN)/sopstudio gui $(SAMPLE)' (apt-get install xvfb xauth) or use a desktop session."; \
		exit 1; fi
	$(BIN)/sopstudio gui $(SAMPLE)

# Lint, import contracts (pyproject.toml), then the suite; the first failure stops the target.
# No caches: the checks leave nothing behind in the checkout. Two pytest-xdist workers: many
# tests wait on subprocesses, servers and worker threads, and two overlap those waits.
test: setup
	@bash resources/system_deps.sh test
	$(BIN)/ruff check --no-cache .
	$(BIN)/lint-imports --no-cache --no-logo
	$(BIN)/mypy --cache-dir /dev/null sopstudio/core sopstudio/engine sopstudio/store
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -n 2

bench: setup
	@for f in bench/*_bench.py; do echo "== $$f"; QT_QPA_PLATFORM=offscreen $(BIN)/python $$f || exit 1; done

# The real-model benchmark (not a test): its own venv with llama-cpp-python + SmolLM2-135M.
bench-llm: setup
	SOPSTUDIO_BENCH_LLM=1 $(BIN)/python bench/real_model_bench.py

setup: $(STAMP)

$(STAMP): pyproject.toml
	@bash resources/system_deps.sh python
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

clean:
	rm -rf $(VENV) build *.egg-info
