# Each target creates or reuses the virtual environment in .venv and installs what it needs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test test-long test-floors test-newest lint docs bench app clean

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

# The web app on http://127.0.0.1:8000 (Ctrl-C stops it).
app: $(VENV)/.installed-app
	$(BIN)/dppca app

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m mypy

# The tests on every core, without the long ones (marker "long": statistical privacy audits,
# tests with many draws, the benchmark scripts' quick runs), which test-long runs.
test: lint
	$(BIN)/python -m pytest -n auto -m "not long"

test-long: $(VENV)/.installed-test
	$(BIN)/python -m pytest -n auto -m long

# The declared floors of the runtime dependencies (tests/floors.txt): the package with the
# oldest versions it allows, and the tests of its releases, privacy and numerics, in .venv-floors.
FLOOR_VENV := .venv-floors

$(FLOOR_VENV)/.installed: pyproject.toml tests/floors.txt
	$(PYTHON) -m venv $(FLOOR_VENV)
	$(FLOOR_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(FLOOR_VENV)/bin/python -m pip install --quiet -c tests/floors.txt -e ".[test]"
	touch $@

FLOOR_TESTS := tests/releases tests/privacy tests/numerics tests/results tests/test_settings.py \
	tests/test_validation.py tests/test_estimator.py tests/test_pipeline.py \
	tests/test_pinned_releases.py tests/test_dataframes.py tests/test_cli.py

test-floors: $(FLOOR_VENV)/.installed
	$(FLOOR_VENV)/bin/python -m pytest -q -n auto -m "not long" $(FLOOR_TESTS)

# The newest releases of every dependency, on the newest Python given as NEWEST_PYTHON (numpy 2.5
# needs Python 3.12 or later), in .venv-newest: the tests but the long ones.
NEWEST_VENV := .venv-newest
NEWEST_PYTHON ?= python3.13

$(NEWEST_VENV)/.installed: pyproject.toml
	$(NEWEST_PYTHON) -m venv $(NEWEST_VENV)
	$(NEWEST_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(NEWEST_VENV)/bin/python -m pip install --quiet --upgrade -e ".[test]"
	touch $@

test-newest: $(NEWEST_VENV)/.installed
	$(NEWEST_VENV)/bin/python -m pytest -q -n auto -m "not long"

# The documentation site in docs/_build/html; every example runs, a warning is an error, and the
# API reference must link to numpy, pandas, scikit-learn and matplotlib (intersphinx).
docs: $(VENV)/.installed-docs
	$(BIN)/python -m sphinx -W --keep-going -b html docs docs/_build/html
	cd docs && ../$(BIN)/python check_links.py

# Benchmarks run in their own environment: the peers need scikit-learn < 1.9.
BENCH_VENV := .venv-bench

$(BENCH_VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(BENCH_VENV)/bin/python -m pip install --quiet -e ".[bench]"
	touch $@

bench: $(BENCH_VENV)/.installed
	$(BENCH_VENV)/bin/python benchmarks/kendall_speed.py
	$(BENCH_VENV)/bin/python benchmarks/speed.py
	$(BENCH_VENV)/bin/python benchmarks/accuracy.py --quick
	$(BENCH_VENV)/bin/python benchmarks/real_data.py
	$(BENCH_VENV)/bin/python benchmarks/directions.py --quick
	$(BENCH_VENV)/bin/python benchmarks/sscm_weights.py
	$(BENCH_VENV)/bin/python benchmarks/privacy_audit.py
	$(BENCH_VENV)/bin/python benchmarks/samplers.py
	$(BENCH_VENV)/bin/python benchmarks/utility.py
	$(BENCH_VENV)/bin/python benchmarks/edges.py
	$(BENCH_VENV)/bin/python benchmarks/coverage.py

clean:
	rm -rf $(VENV) $(BENCH_VENV) $(FLOOR_VENV) $(NEWEST_VENV) build dist .pytest_cache .ruff_cache docs/_build docs/generated docs/gallery docs/tutorials
