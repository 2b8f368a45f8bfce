# Two commands on a fresh machine: `make run` (set up + serve the demo) and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell sha256sum pyproject.toml | cut -c1-12)

.PHONY: run test deps system-deps lint typecheck jstypecheck jstest pytest pytest-embedded bench clean

run: system-deps deps
	./scripts/serve.sh

test: system-deps-browser deps lint typecheck jstypecheck jstest pytest pytest-embedded

system-deps:
	./scripts/system-deps.sh

system-deps-browser:
	./scripts/system-deps.sh --with-browser

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# A machine's pip configuration may name local index folders (extra-index-url = file:///...) that
# hold only some packages; pip then warns once per package and folder it does not find there, about
# 130 lines for our dependencies. Exactly those lines are dropped; every other message stays, and
# pipefail keeps pip's exit status.
PIP_UNNOISE := grep -v -E "^WARNING: Location 'file://[^']*' is ignored: it is neither a file nor a directory\.$$" || true

$(STAMP): pyproject.toml | $(BIN)/python
	set -o pipefail; $(BIN)/python -m pip install -q --upgrade pip 2>&1 | { $(PIP_UNNOISE); } >&2
	set -o pipefail; $(BIN)/python -m pip install -q -e ".[dev]" 2>&1 | { $(PIP_UNNOISE); } >&2
	rm -f $(VENV)/.installed-* && touch $@

deps: $(STAMP)

lint: deps
	$(BIN)/ruff check .
	$(BIN)/ruff format --check config annotator review media_tools tests bench

typecheck: deps
	SECRET_KEY=typecheck $(BIN)/mypy config annotator review media_tools

# The JSDoc types of static/js, checked by tsc (the only npm package; the pages load no build).
node_modules/.installed: package.json package-lock.json
	npm ci --silent --no-audit --no-fund
	touch $@

jstypecheck: system-deps-browser node_modules/.installed
	node_modules/.bin/tsc -p jsconfig.json

# Unit tests of the pure front-end modules (static/js); the shell expands the glob, so every Node
# version reads the same list of files.
jstest: system-deps
	node --test tests/js/*.test.mjs

# The suite runs on whatever DATABASE_URL / REDIS_URL say (CI: PostgreSQL + Redis) ...
pytest: deps
	SECRET_KEY=test $(BIN)/pytest -p no:cacheprovider

# ... and the whole-path test again on the embedded default (SQLite + filesystem broker).
pytest-embedded: deps
	env -u DATABASE_URL -u REDIS_URL SECRET_KEY=test $(BIN)/pytest -p no:cacheprovider -m worker

bench: deps
	SECRET_KEY=bench $(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) var .mypy_cache .ruff_cache node_modules
