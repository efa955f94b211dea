# Each target creates or reuses the virtual environment in .venv and installs what it needs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-%: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[$*]"
	touch $@

demo: $(VENV)/.installed-test
	$(BIN)/python -m dppca.demo

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .

test: lint
	$(BIN)/python -m pytest

bench: $(VENV)/.installed-bench
	$(BIN)/python benchmarks/kendall_speed.py

clean:
	rm -rf $(VENV) build dist .pytest_cache .ruff_cache
