# Two commands a new user needs: `make run` (lite mode) and `make test` (the whole suite).
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.bench-installed
GEN_DIRS := clients/python/sluice clients/python/sluice_client/_proto clients/ts/src/gen \
  clients/go/sluicev1 clients/go/docreaderv1
NODE_STAMP := clients/ts/node_modules/.installed
# google.rpc.Status and its details for the TypeScript client (Python and Go have them).
RPC_PROTOS := $(VENV)/lib/python3.11/site-packages
export PATH := $(CURDIR)/$(BIN):$(PATH)

.PHONY: run test lint proto proto-check typecheck unit bench worker clean contract-check \
	release-contract

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --disable-pip-version-check -q -e '.[dev]'
	touch $@

run: $(STAMP)
	$(BIN)/sluice-server --mode lite

worker: $(STAMP)
	$(BIN)/sluice-worker

$(NODE_STAMP): clients/ts/package-lock.json
	cd clients/ts && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# proto/ as a descriptor set with its comments, which the generated code's descriptors drop:
# server reflection answers from it, so `grpcurl describe` shows them (server/reflection.py).
DESCRIPTOR_SET := clients/python/sluice/descriptors.binpb

proto: $(STAMP) $(NODE_STAMP)
	rm -rf $(GEN_DIRS)
	$(BIN)/buf lint
	$(BIN)/buf generate
	$(BIN)/buf generate --template buf.gen.rpc.yaml $(RPC_PROTOS) \
	  --path $(RPC_PROTOS)/google/rpc/status.proto --path $(RPC_PROTOS)/google/rpc/error_details.proto
	find clients/python/sluice -type d -exec touch {}/__init__.py \;
	$(BIN)/buf build --exclude-imports --as-file-descriptor-set -o $(DESCRIPTOR_SET)
	$(BIN)/ruff format -q clients/python/sluice_client/_proto

# Regenerating must not change the committed code.
proto-check: proto
	git diff --exit-code --stat -- $(GEN_DIRS)
	test -z "$$(git status --porcelain -- $(GEN_DIRS))"

lint: $(STAMP) typecheck contract-check
	$(BIN)/ruff check .
	$(BIN)/buf lint
	$(BIN)/lint-imports

# proto/ must stay compatible (buf.yaml's breaking rules) with the last released contract:
# the buf image proto-releases/LATEST names. Additions pass; renames, renumbering, removals,
# type changes fail.
CONTRACT_RELEASE = proto-releases/$(shell cat proto-releases/LATEST).binpb
contract-check: $(STAMP)
	$(BIN)/buf breaking --against $(CONTRACT_RELEASE)

# At a release: `make release-contract VERSION=v0.2.0` records proto/ as that version's
# contract and makes it the one contract-check compares against; commit both files.
release-contract: $(STAMP) contract-check
	test -n "$(VERSION)" || { echo "usage: make release-contract VERSION=vX.Y.Z"; exit 2; }
	test ! -e proto-releases/$(VERSION).binpb || { echo "$(VERSION) is already released"; exit 2; }
	$(BIN)/buf build -o proto-releases/$(VERSION).binpb
	echo $(VERSION) > proto-releases/LATEST

typecheck: $(STAMP)
	$(BIN)/mypy .

# The fast tests (no PostgreSQL, Redis or child processes): a minute or two.
unit: $(STAMP)
	$(BIN)/pytest -q tests/unit

test: $(STAMP) proto-check lint
	$(BIN)/pytest -q tests

# The benchmarks' baselines (the `bench` extra) on top of the dev install.
$(BENCH_STAMP): $(STAMP)
	$(BIN)/pip install --disable-pip-version-check -q -e '.[dev,bench]'
	touch $@

bench: $(BENCH_STAMP)
	$(BIN)/python -m bench.run_all

clean:
	rm -rf $(VENV) data
