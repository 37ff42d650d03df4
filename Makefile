# Two entry points on a fresh machine: `make run` (the main job) and `make test` (the tests).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
QUESTION ?= How does a cadre team plan, fan out work and review its results?
CORPUS ?= docs

export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: run test lint bench clean

$(BIN)/cadre: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

run: $(BIN)/cadre
	$(BIN)/cadre run "$(QUESTION)" --corpus "$(CORPUS)"

test: $(BIN)/cadre
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/pytest

bench: $(BIN)/cadre
	$(BIN)/python bench/fanout.py

clean:
	rm -rf $(VENV) .cadre .mypy_cache .pytest_cache .ruff_cache
