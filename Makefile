# trackerkit: two commands on a fresh machine, `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
HOST   ?= 127.0.0.1
PORT   ?= 2718

# The lock. pyproject.toml keeps ranges for people who install trackerkit as a library; `make
# setup` and CI install requirements.lock: every package of ".[test,dask,sql]" and the build backend,
# pinned with sha256 hashes, so a fresh machine gets the versions the tests passed on. It is
# written by uv's `pip compile` (pinned in the lock itself, as a test extra), not pip-tools: uv
# makes one universal lock (any OS, Python >= 3.11, markers where a package is platform-only)
# instead of one for this machine, in a second, and the same tool gives `make floors` its
# lowest-direct resolution. The lock stays a plain requirements file that pip installs with
# --require-hashes. `make lock` keeps the current pins and only resolves what pyproject.toml
# changed; `make lock LOCK_FLAGS=--upgrade` (or `--upgrade-package NAME`) moves pins forward.
LOCK        := requirements.lock
PIP_VERSION := 26.3
LOCK_FLAGS  ?=
# The floors check: the lowest versions pyproject.toml allows, in their own venv (build/ is
# git-ignored), running the core tests (not the browser, nbval, ruff or mypy runs), each property
# test drawing at most ten examples there (TRACKERKIT_FLOORS=1, tests/floor_examples.py): the floors check
# the versions; `make test` draws the properties in full.
FLOORS := build/venv-floors
# The tests run on WORKERS processes (pytest-xdist), each test file on one of them (nbval runs a
# notebook's cells in order, and a file's fixtures are set up once), the files handed out in the
# order the root conftest.py gives them, the longest first (browser journeys, notebooks, the
# rest), not xdist's own (the files of most tests first, which left the journeys to the end with
# one worker idle: 15 min instead of 22 here): `make test WORKERS=1` runs them in one process,
# `WORKERS=auto` on every core.
WORKERS ?= 2
XDIST   := -n $(WORKERS) --dist loadfile --no-loadscope-reorder

.PHONY: setup lock floors run edit test lint types pytest bench notebooks docs days clean

$(STAMP): $(LOCK) pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet "pip==$(PIP_VERSION)"
	$(BIN)/python -m pip install --quiet --require-hashes -r $(LOCK)
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

setup: $(STAMP)

# setuptools (the build backend, for the editable install without build isolation) is locked too.
lock: $(STAMP)
	echo "setuptools>=77" | $(BIN)/uv pip compile pyproject.toml - --extra test --extra dask --extra sql \
		--universal --python-version 3.11 --generate-hashes --custom-compile-command "make lock" \
		--quiet $(LOCK_FLAGS) -o $(LOCK)

floors: $(STAMP)
	rm -rf $(FLOORS)
	$(BIN)/uv venv --quiet --no-python-downloads --python $(PYTHON) $(FLOORS)
	$(BIN)/uv pip install --quiet --python $(FLOORS)/bin/python --resolution lowest-direct -e ".[test,dask,sql]"
	@echo "The floors venv:"; $(BIN)/uv pip freeze --python $(FLOORS)/bin/python 2>/dev/null | paste -sd " "
	TRACKERKIT_FLOORS=1 $(FLOORS)/bin/python -m pytest tests -q -p no:cacheprovider -o addopts="--strict-markers -ra" -m "not browser" $(XDIST)

# `make run` serves the five apps as marimo serves apps (`marimo run notebooks/`: a gallery of
# them, each computed on opening, code hidden, as the README's pictures show them); `make edit`
# opens the same notebooks in marimo's editor, code beside the outputs (pyproject.toml's
# [tool.marimo.runtime] auto_instantiate runs their cells on opening there too). The designer,
# the simulator and the library read and save the data folder trackerkit.workspace chooses:
# `DATA=DIR` points them at DIR (used in place); without it they read the bundled data/ and the
# first save copies it into the per-user workspace.
DATA ?=
run: $(STAMP)
	@echo "Opening the apps on http://$(HOST):$(PORT) (Ctrl-C stops)"
	@echo "marimo's banner below (\"Create or edit notebooks\") is its generic wording: these apps are read-only, code hidden; \`make edit\` is the editor."
	@echo "The documentation notebooks (notebooks/*.ipynb): \`make docs\` writes them as pages to docs/notebooks/index.html"
	$(BIN)/marimo run notebooks/ --host $(HOST) --port $(PORT) --headless --no-token $(if $(DATA),-- --data "$(DATA)")

edit: $(STAMP)
	@echo "Opening the notebooks in marimo's editor on http://$(HOST):$(PORT) (Ctrl-C stops)"
	$(BIN)/marimo edit notebooks/ --host $(HOST) --port $(PORT) --headless --no-token $(if $(DATA),-- --data "$(DATA)")

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

types: $(STAMP)
	$(BIN)/mypy --strict trackerkit benchmarks

pytest: $(STAMP)
	$(BIN)/pytest $(XDIST)

test: lint types pytest

bench: $(STAMP)
	$(BIN)/python -m benchmarks

# The documentation notebooks keep their outputs, and each figure a PNG drawn by the system's
# Chromium ($$BROWSER_PATH, else chromium on PATH; without one an unchanged figure keeps its PNG,
# a changed one gets a note and the run exits 1). All notebooks, or one:
# `make notebooks NB=notebooks/03_reading_a_trace_day.ipynb` (several: NB="a.ipynb b.ipynb").
NB ?=
notebooks: $(STAMP)
	$(BIN)/python scripts/execute_notebooks.py $(NB)

# The documentation notebooks as HTML pages (git-ignored) under docs/notebooks/, with an index.
docs: $(STAMP)
	$(BIN)/python scripts/render_docs.py

# Generated trace days to ask questions of (several turns a session, one session failing again
# and again, costs and failures that change by day): `make days OUT=DIR [DAYS=4] [SEED=5]`
# writes DIR/trace/*.jsonl and prints what they hold; open them with the trace explorer.
OUT  ?= build/days
DAYS ?= 4
SEED ?= 5
days: $(STAMP)
	$(BIN)/python scripts/write_days.py --out "$(OUT)" --days $(DAYS) --seed $(SEED)

clean:
	rm -rf $(VENV) $(FLOORS) .mypy_cache .pytest_cache .ruff_cache .hypothesis tests/artifacts
