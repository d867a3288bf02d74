#!/usr/bin/env bash
# The full test suite: lint, types, then pytest with the real Kafka broker and Redis started here.
# With CI set, integration tests fail (not skip) when a service is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
cleanup() { scripts/kafka.sh stop >/dev/null 2>&1 || true; scripts/redis.sh stop >/dev/null 2>&1 || true; }
trap cleanup EXIT
"$VENV/bin/ruff" check .
"$VENV/bin/ruff" format --check .
"$VENV/bin/mypy" --strict
"$VENV/bin/lint-imports"
scripts/wheel-check.sh  # the wheel outside the checkout: base install, then the edge extra
scripts/redis.sh start
scripts/kafka.sh start
export KAFKA_BOOTSTRAP="127.0.0.1:${KAFKA_PORT:-19092}"
export REDIS_URL="redis://127.0.0.1:${REDIS_PORT:-16379}/0"
"$VENV/bin/pytest" -q -p no:cacheprovider --durations=25 "$@"
