# trackerkit: two commands on a fresh machine, `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
HOST   ?= 127.0.0.1
PORT   ?= 2718

.PHONY: setup run test lint types pytest bench notebooks clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test,dask]"
	touch $(STAMP)

setup: $(STAMP)

run: $(STAMP)
	@echo "Opening the notebooks on http://$(HOST):$(PORT) (Ctrl-C stops)"
	$(BIN)/marimo edit notebooks/ --host $(HOST) --port $(PORT) --headless --no-token

lint: $(STAMP)
	$(BIN)/ruff check .

types: $(STAMP)
	$(BIN)/mypy --strict trackerkit

pytest: $(STAMP)
	$(BIN)/pytest

test: lint types pytest

bench: $(STAMP)
	$(BIN)/python -m benchmarks

notebooks: $(STAMP)
	$(BIN)/python scripts/execute_notebooks.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis tests/artifacts
