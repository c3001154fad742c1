# Citation Studio: `make run` installs and starts the app; `make test` installs and runs every check.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PORT ?= 8501

.PHONY: install install-dev run test lint typecheck pytest jstest e2e screenshots bench samples vectors

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# setuptools warns on every editable install that a folder named like the package shadows it: here that folder is
# the package itself, so the warning says nothing (and it would be the first thing `make run` prints)
QUIET_EDITABLE := PYTHONWARNINGS="ignore:Editable installation"

install: $(BIN)/python
	$(QUIET_EDITABLE) $(BIN)/pip install --quiet -e '.[app]'

install-dev: $(BIN)/python
	$(QUIET_EDITABLE) $(BIN)/pip install --quiet -e '.[dev]'

run: install
	$(BIN)/streamlit run app.py --server.address 127.0.0.1 --server.port $(PORT) --server.headless true --browser.gatherUsageStats false

lint: install-dev
	$(BIN)/ruff check .

typecheck: install-dev
	$(BIN)/mypy citation_core

pytest: install-dev
	$(BIN)/pytest -q

jstest:
	@if [ -d tests/js ]; then node --test tests/js/; fi

test: lint typecheck pytest jstest

# Every check but the browser: ruff, mypy, pytest without the e2e marker on both cores, the JavaScript tests
# (under a minute).
.PHONY: test-fast
test-fast: lint typecheck jstest
	$(BIN)/pytest -q -m "not e2e" -n 2

bench: install-dev
	$(BIN)/python -m bench.pipeline_rounds

samples: install-dev
	$(BIN)/pip install --quiet -e '.[samples]'
	$(BIN)/python scripts/build_samples.py

vectors:
	$(BIN)/python scripts/author_vectors.py

screenshots: install-dev
	$(BIN)/python -m tests.e2e.screenshots --out docs

.PHONY: wheel-check
wheel-check: $(BIN)/python
	scripts/check_wheel.sh $(BIN)/python

.PHONY: bench-click
bench-click: install-dev
	$(BIN)/python -m bench.chip_click
