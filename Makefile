# Every target sets up what it needs: a local virtual environment in .venv.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test lint bench serve clean snapshots

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	touch $(STAMP)

## run: t3tui on the embedded live demo (reference backend + real agent processes)
run: $(STAMP)
	$(BIN)/t3tui $(ARGS)

## serve: only the reference backend, demo scenario
serve: $(STAMP)
	$(BIN)/t3tui serve --scenario demo $(ARGS)

## test: lint, layer contracts, then the whole suite (four workers on two cores: it is mostly real
## waiting, 5 min 50 s of CPU in 11 min of wall time with two workers)
PYTEST_WORKERS ?= 4
test: $(STAMP) lint
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist worksteal $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check t3tui tests benchmarks
	$(BIN)/lint-imports

## snapshots: regenerate SVG snapshots and the README screenshots (web.png: needs chromium)
snapshots: $(STAMP)
	$(BIN)/python -m pytest tests/tui/test_snapshots.py --snapshot-update
	$(BIN)/python -m t3tui.tui.screenshots screenshots
	T3TUI_WEB_SCREENSHOT=screenshots/web.png $(BIN)/python -m pytest -q tests/tui/test_web_e2e.py

## bench: every benchmark, ratios printed side by side
bench: $(STAMP)
	$(BIN)/python -m benchmarks.run_all

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
