# Table-games progressive jackpot controller. `make help` lists the targets.
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-$(shell sha1sum pyproject.toml | cut -c1-12)
CONFIG ?= examples/pa-three-card-poker-demo.toml

.PHONY: help install fast system-deps run test check lint typecheck unit services-up services-down bench clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check -U pip
	$(VENV)/bin/pip install -q --disable-pip-version-check -e '.[edge,dev]'
	rm -f $(VENV)/.installed-* && touch $@

install: $(STAMP) ## create .venv and install the project with its edge and dev extras

fast: $(STAMP) ## build the fast path (mypyc into build/mypyc, the native crate with cargo into build/native) if stale; Python if it cannot
	$(PY) scripts/build_fast.py

system-deps: ## install the Debian packages the tests use (redis-server, chromium, prometheus)
	scripts/system-deps.sh

run: $(STAMP) fast ## serve the controller on :8080 with a simulated floor posting to it (Ctrl-C stops)
	scripts/run.sh $(CONFIG)

test: $(STAMP) system-deps ## every test: build the fast path, lint, types, unit, integration (starts Kafka and Redis)
	scripts/test.sh  # it builds the fast path itself, while the brokers start

check: lint typecheck ## ruff, import layers and mypy --strict

lint: $(STAMP) ## ruff check, format check and the import layers (lint-imports)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports

typecheck: $(STAMP) ## mypy --strict over the code and the tests
	$(VENV)/bin/mypy --strict

unit: $(STAMP) fast ## fast tests only (no services, no slow exhaustive counts)
	$(VENV)/bin/pytest -q -m "not integration and not slow" -n auto

services-up: $(STAMP) ## start the Kafka broker and Redis on loopback
	scripts/kafka.sh start && scripts/redis.sh start

services-down: ## stop the Kafka broker and Redis
	-scripts/kafka.sh stop; scripts/redis.sh stop

bench: $(STAMP) fast system-deps ## every benchmark row (starts Kafka and Redis); figures go to bench/results/
	scripts/bench.sh $(BENCH_ARGS)

clean: services-down ## remove the venv, the mypyc build, caches and run data
	rm -rf $(VENV) build var .mypy_cache .ruff_cache .pytest_cache .hypothesis
