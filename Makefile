# Each target creates or reuses the virtual environment in .venv and installs what it needs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# .installed-base: the package alone; .installed-test, .installed-bench: with that extra.
$(VENV)/.installed-base: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-%: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[$*]"
	touch $@

demo: $(VENV)/.installed-base
	$(BIN)/dppca demo --out dppca-demo

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .

test: lint
	$(BIN)/python -m pytest

bench: $(VENV)/.installed-bench
	$(BIN)/python benchmarks/kendall_speed.py

clean:
	rm -rf $(VENV) build dist .pytest_cache .ruff_cache
