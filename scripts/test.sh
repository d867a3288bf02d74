#!/usr/bin/env bash
# The full test suite: lint, types, then pytest with the real Kafka broker and Redis started here.
# With CI set, integration tests fail (not skip) when a service is missing. Arguments, if any,
# go to one pytest run (e.g. scripts/test.sh tests/controller -x).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
cleanup() { scripts/kafka.sh stop >/dev/null 2>&1 || true; scripts/redis.sh stop >/dev/null 2>&1 || true; }
trap cleanup EXIT
"$VENV/bin/python" scripts/build_fast.py  # the mypyc build, again if a source changed (streams/compiled.py)
"$VENV/bin/ruff" check .
"$VENV/bin/ruff" format --check .
"$VENV/bin/mypy" --strict
"$VENV/bin/lint-imports"
scripts/wheel-check.sh  # the wheel outside the checkout: base install, then the edge extra
scripts/redis.sh start
scripts/kafka.sh start
export KAFKA_BOOTSTRAP="127.0.0.1:${KAFKA_PORT:-19092}"
export REDIS_URL="redis://127.0.0.1:${REDIS_PORT:-16379}/0"
PYTEST=("$VENV/bin/pytest" -q -p no:cacheprovider --durations=25)
if (($#)); then
  "${PYTEST[@]}" "$@"  # the tests asked for, in one process
  exit
fi
# The suite in two phases. The tests that need no service run on every core (pytest-xdist;
# half the wall time on two cores); the integration tests share one broker, one Redis and the
# machine's timing, so they run one at a time.
"${PYTEST[@]}" -m "not integration" -n "${TEST_WORKERS:-auto}" --dist worksteal
"${PYTEST[@]}" -m integration
