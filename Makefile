# Two entry points for a fresh machine: `make demo` and `make test`. Both set up .venv themselves
# and are idempotent: the install step reruns only when pyproject.toml or constraints.txt changes.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO_QUESTION ?= When are the penguins fed?
# Debian packages: tesseract for the OCR reader, chromium for the browser tests.
SYSDEPS := chromium tesseract-ocr fonts-dejavu-core
# Node.js package: Neo4j's Cypher parser and semantic analysis, for tests/test_neo4j_cypher.py.
CYPHER_LINTER := tests/neo4j_cypher
CYPHER_LINTER_STAMP := $(CYPHER_LINTER)/node_modules/.installed

# A real model server for the LLM tests (scripts/llm_server.sh says how it is built).
LLM_SERVER_STAMP := $(VENV)/.llm-server-installed

.PHONY: demo test lint typecheck unit setup sysdeps nodedeps llmserver clean-venv

setup: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	# A venv whose creation was interrupted has no pip: made again from scratch.
	test -x $(BIN)/pip || $(PYTHON) -m venv --clear $(VENV)
	# torch first, pinned: the CPU wheel on disk; anything unpinned would pull the CUDA build.
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -c constraints.txt -e '.[dev]'
	touch $(STAMP)

sysdeps:
	@bash scripts/sysdeps.sh $(SYSDEPS)

nodedeps: $(CYPHER_LINTER_STAMP)

# Without npm, or when the npm registry cannot be reached, the linter is not installed and its
# tests are skipped, saying why; nothing else depends on it.
$(CYPHER_LINTER_STAMP): $(CYPHER_LINTER)/package.json $(CYPHER_LINTER)/package-lock.json
	@if ! command -v npm >/dev/null; then \
		echo "npm not found: the Neo4j Cypher lint tests will be skipped"; \
	elif npm ci --prefix $(CYPHER_LINTER) --no-audit --no-fund --loglevel=error; then \
		touch $@; \
	else \
		rm -rf $(CYPHER_LINTER)/node_modules; \
		echo "npm ci failed: the Neo4j Cypher lint tests will be skipped"; \
	fi

demo: setup
	$(BIN)/docgraph ingest samples/docgraph-sample.pdf
	$(BIN)/docgraph ask "$(DEMO_QUESTION)"
	$(BIN)/docgraph stats

lint: setup
	$(BIN)/ruff check docgraph/*.py app ingest models ui tests samples scripts
	$(BIN)/ruff format --check docgraph/*.py app ingest models ui tests samples scripts

typecheck: setup
	$(BIN)/mypy

llmserver: $(LLM_SERVER_STAMP)

$(LLM_SERVER_STAMP): scripts/llm_server.sh $(STAMP)
	bash scripts/llm_server.sh $(BIN)
	touch $@

unit: setup sysdeps nodedeps llmserver
	OMP_THREAD_LIMIT=1 $(BIN)/pytest -q

test: lint typecheck unit

clean-venv:
	rm -rf $(VENV)
