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

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[dev]"
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
