# The two set-up commands are `make run` and `make test`; both create .venv when needed.
# `make run` installs only what serving and playing need; `make test` adds the rest.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PY     := $(BIN)/python
STAMP  := $(VENV)/.installed
ADDR   ?= 127.0.0.1:50051
METRICS ?= 127.0.0.1:9464
HTTP   ?= 127.0.0.1:8080
DATA   ?= data

.PHONY: run test lint proto proto-check bench bench-peer bench-compiled compiled compiled-test wheels format clean node-bot web web-packages api-baseline sdk

# `make run` installs what serving and playing need (the dependencies alone); `make test` the
# rest (the extras).
RUN_STAMP := $(VENV)/.installed-run
# The server's own bots for `make run` (an operator's `referee serve` runs none unless asked).
HOUSE_BOTS ?= easy,normal,hard

$(RUN_STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet -c constraints.txt -e .
	touch $(RUN_STAMP)

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet -c constraints.txt -e '.[dev,tournament,postgres,rl]'
	touch $(STAMP)

# npm ci in folder $(1) (exactly its package-lock.json) when node and npm are here; else the
# message $(2) says what is skipped.
define npm_ci
	@if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then \
	  echo "npm ci in $(1) (node $$(node --version))"; \
	  cd $(1) && npm ci --no-audit --no-fund --loglevel=error; \
	else \
	  echo "node/npm not found: $(2)"; \
	fi
endef

# The Node.js sample bot's packages (exactly package-lock.json: the SDK, linked), when node
# and npm are here; without them the tests that need the Node bot are skipped, with a message.
NODE_BOT := clients/node-bot
node-bot: sdk
	$(call npm_ci,$(NODE_BOT),skipping the Node.js sample bot (its tests will be skipped))

# The TypeScript SDK (clients/ts-sdk): npm ci from package-lock.json, its code generated
# from protos/ by buf and protoc-gen-es (both from npm), compiled into clients/ts-sdk/dist.
SDK := clients/ts-sdk
SDK_SRC := $(shell find $(SDK)/src protos -type f -not -path '*/gen/*' 2>/dev/null) \
  $(SDK)/buf.gen.yaml $(SDK)/tsconfig.json
$(SDK)/node_modules/.installed: $(SDK)/package-lock.json
	cd $(SDK) && npm ci --no-audit --no-fund --loglevel=error
	touch $@
$(SDK)/dist/index.js: $(SDK)/node_modules/.installed $(SDK_SRC)
	cd $(SDK) && npm run --silent build
sdk:
	@if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then \
	  $(MAKE) --no-print-directory $(SDK)/dist/index.js; \
	else \
	  echo "node/npm not found: the TypeScript SDK is not built (its tests will be skipped)"; \
	fi

# The web client (clients/web): npm ci from package-lock.json, on the TypeScript SDK (its
# sources and generated code), a Vite build into clients/web/dist, which `make run` serves
# at http://$(HTTP)/.
# Without node/npm the server still runs and its page at / says how to get the client.
WEB := clients/web
WEB_SRC := $(shell find $(WEB)/src $(WEB)/scripts -type f -not -path '*/gen/*' 2>/dev/null) \
  $(WEB)/index.html $(WEB)/vite.config.ts $(WEB)/tsconfig.json
$(WEB)/node_modules/.installed: $(WEB)/package-lock.json
	cd $(WEB) && npm ci --no-audit --no-fund --loglevel=error
	touch $@
$(WEB)/dist/index.html: $(SDK)/dist/index.js $(WEB)/node_modules/.installed $(WEB_SRC)
	cd $(WEB) && npm run --silent build
web: sdk
	@if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then \
	  $(MAKE) --no-print-directory $(WEB)/dist/index.html; \
	else \
	  echo "node/npm not found: the web client is not built (install Node.js, then make web)"; \
	fi
# The web client's npm packages alone: `make run` fetches them while pip runs and the SDK builds.
web-packages:
	@if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then \
	  $(MAKE) --no-print-directory $(WEB)/node_modules/.installed; \
	fi

# A local server to play on: the house bots on and open registration (a name is taken from
# the page or with referee-cli register).
run:
	@$(MAKE) --no-print-directory -j3 $(RUN_STAMP) sdk web-packages
	@$(MAKE) --no-print-directory web
	$(BIN)/referee serve --listen $(ADDR) --store sqlite:$(DATA)/referee.sqlite3 --metrics $(METRICS) \
	  --http $(HTTP) --house-bots $(HOUSE_BOTS) --open-registration

# TEST_WORKERS pytest-xdist workers run the suite (`auto`: one a core), each test file whole on
# one worker (--dist loadfile: a file's module-scoped servers are set up once, its tests run in
# order); 0, the default, runs it in one process: on a loaded machine two workers have failed
# timing-bound tests that one process passed (docs/performance.md, "The CI shape").
TEST_WORKERS ?= 0
PARALLEL := -n $(TEST_WORKERS) --dist loadfile
test: $(STAMP) sdk node-bot web
	$(BIN)/pytest $(PARALLEL)

lint: $(STAMP)
	$(BIN)/ruff check referee clients tests examples
	$(BIN)/ruff format --check referee clients tests examples
	$(BIN)/mypy referee clients examples
	cd protos && ../$(BIN)/buf lint
	cd protos && ../$(BIN)/buf breaking --against breaking-baseline.binpb

# The wire API's baseline for `buf breaking` (docs/versioning.md): at a release, rebuild it
# from the released protos and commit it.
api-baseline: $(STAMP)
	cd protos && ../$(BIN)/buf build --path referee -o breaking-baseline.binpb

# Regenerate the Python code (and typed stubs) from protos/ into referee/v1/.
proto: $(STAMP)
	$(PY) -m grpc_tools.protoc -Iprotos \
	  --python_out=. --grpc_python_out=. --mypy_out=. --mypy_grpc_out=. \
	  --plugin=protoc-gen-mypy=$(BIN)/protoc-gen-mypy \
	  --plugin=protoc-gen-mypy_grpc=$(BIN)/protoc-gen-mypy_grpc \
	  protos/referee/v1/*.proto

# Fails when the committed generated code differs from what `make proto` gives.
proto-check: proto
	git diff --exit-code -- referee/v1 || (echo "generated code is stale: run make proto and commit" && exit 1)

# Performance figures (docs/performance.md); the peers come from the `bench` extra.
BENCH_STAMP := $(VENV)/.bench-installed
BENCH_OUT   ?= bench-results

$(BENCH_STAMP): $(STAMP)
	$(BIN)/pip install --quiet -c constraints.txt -e '.[dev,tournament,bench,postgres,rl]'
	touch $(BENCH_STAMP)

# P14's peer: boardgame.io, exactly referee/bench/boardgameio/package-lock.json (npm ci); without
# node/npm the bench skips P14 with a note.
BENCH_PEER := referee/bench/boardgameio
bench-peer:
	$(call npm_ci,$(BENCH_PEER),P14 (boardgame.io) will be skipped)

bench: $(BENCH_STAMP) bench-peer
	$(BIN)/referee bench --out $(BENCH_OUT)

# The compiled build (docs/performance.md): the same source with the rules of every game and
# the engine's per-command path compiled by mypyc (part of mypy, a dev dependency), built from
# a copy of the working tree into $(COMPILED_DIR)/dist as a wheel (never extensions in place,
# which would outlive an edit of the .py beside them), installed non-editable in its own
# virtualenv $(COMPILED_VENV). `make run` and `make test` never need it. Like the pure wheel, it
# carries the rules pages and the built web client (`make web`) as package data.
COMPILED_DIR  := build/compiled
COMPILED_VENV := .venv-compiled

# REFEREE_MYPYC_OPT (0-3, default 3) is mypyc's and the C compiler's optimisation level: 0
# builds the same code several times quicker, for tests. The build records what it compiled;
# `referee --version` says which build runs, REFEREE_PURE=1 runs the pure source.
compiled: $(STAMP) web
	deploy/compiled/build.sh . $(COMPILED_DIR) $(CURDIR)/$(PY)
	test -x $(COMPILED_VENV)/bin/python || $(PYTHON) -m venv $(COMPILED_VENV)
	$(COMPILED_VENV)/bin/pip install --quiet -c constraints.txt "$$(ls $(COMPILED_DIR)/dist/*.whl)[dev,tournament,postgres,rl]"
	$(COMPILED_VENV)/bin/pip install --quiet --no-deps --force-reinstall $(COMPILED_DIR)/dist/*.whl
	$(COMPILED_VENV)/bin/referee --version

# The rules' tests on the compiled build (CI's compiled stage): the engine with its conformance
# suite, the games, the sampled worlds, the codec, the compiled build's own test and the hard
# house bot (its worker process is handed the seat's knowledge pickled), run by
# $(COMPILED_VENV) from a folder that holds no referee/ (deploy/compiled/test.sh).
# COMPILED_SUITE=whole runs the whole suite (tests/) on the compiled build instead: the served
# paths, the clients and the browser tests on it too (the wheel carries the rules pages and the
# web client), less the tests that assert what only the pure source or a checkout does.
COMPILED_SUITE ?= rules
COMPILED_RULES_TESTS := tests/engine tests/games tests/worlds tests/test_codec.py \
  tests/test_build.py tests/test_compiled.py tests/application/test_house_bots_hard.py
COMPILED_TESTS ?= $(if $(filter whole,$(COMPILED_SUITE)),tests,$(COMPILED_RULES_TESTS))
compiled-test:
	deploy/compiled/test.sh $(COMPILED_VENV) $(PARALLEL) $(COMPILED_TESTS)

# The wheels a release ships, into $(WHEELS): the pure one (any platform) and the compiled one
# (this platform and Python: `make compiled`'s). A user installs either (docs/operations.md);
# both carry the rules pages and the built web client, so a release needs Node.js and npm.
WHEELS ?= dist
wheels: compiled
	@test -f $(WEB)/dist/index.html || { echo "make wheels: no web client built (install Node.js and npm, then make web)" >&2; exit 1; }
	rm -rf $(WHEELS) build/pure
	deploy/compiled/build.sh . build/pure $(CURDIR)/$(PY) pure
	mkdir -p $(WHEELS) && cp build/pure/dist/*.whl $(COMPILED_DIR)/dist/*.whl $(WHEELS)/
	ls -l $(WHEELS)

# `referee bench` (BENCH_ARGS) on the pure source and on the compiled build, alternately,
# BENCH_ROUNDS rounds each, with the load beside them: into $(BENCH_OUT)/pure-N and
# $(BENCH_OUT)/compiled-N. Run from / so that no process of the bench (P12 starts
# `python -m`) imports the working tree's source in place of the compiled build; P14's peer
# is the checkout's (`make bench-peer`): the compiled wheel carries no Node side.
BENCH_ARGS   ?= --quick --only P1,P11,P12
BENCH_ROUNDS ?= 2
bench-compiled: compiled
	@for round in $$(seq $(BENCH_ROUNDS)); do \
	  for build in pure compiled; do \
	    bin=$(CURDIR)/$(BIN); [ $$build = compiled ] && bin=$(CURDIR)/$(COMPILED_VENV)/bin; \
	    echo "$$build round $$round: $$(uptime)"; \
	    (cd / && REFEREE_BENCH_PEER=$(CURDIR)/$(BENCH_PEER) $$bin/referee bench $(BENCH_ARGS) \
	      --out $(abspath $(BENCH_OUT))/$$build-$$round) \
	      || exit 1; \
	  done; \
	done; echo "end: $$(uptime)"

format: $(STAMP)
	$(BIN)/ruff check --fix referee clients tests examples
	$(BIN)/ruff format referee clients tests examples

clean:
	rm -rf $(VENV) $(COMPILED_VENV) build dist .pytest_cache .mypy_cache .ruff_cache $(NODE_BOT)/node_modules \
	  $(WEB)/node_modules $(WEB)/dist $(WEB)/src/gen $(BENCH_PEER)/node_modules \
	  $(SDK)/node_modules $(SDK)/dist $(SDK)/src/gen
