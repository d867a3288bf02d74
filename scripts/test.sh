#!/usr/bin/env bash
# The full test suite: lint, types, then pytest with the real Kafka broker and Redis started here.
# With CI set, integration tests fail (not skip) when a service is missing. Arguments, if any,
# go to one pytest run (e.g. scripts/test.sh tests/controller -x).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
# A second broker for the integration tests that mostly wait (module doc of each: paced feeds,
# SIGSTOPped workers, broker crashes), run beside the others: `LONG_TESTS`.
SECOND_PORT=${KAFKA_SECOND_PORT:-19094}
SECOND=(env KAFKA_PORT="$SECOND_PORT" KAFKA_CONTROLLER_PORT="$((SECOND_PORT + 1))"
  KAFKA_RUN_DIR="${KAFKA_SECOND_RUN_DIR:-var/kafka-second}")
LONG_TESTS=(tests/integration/test_kafka_faults.py tests/integration/test_kafka_zombie.py
  tests/integration/test_kafka_rebalance.py tests/integration/test_kafka_readside.py)
LOGS=$(mktemp -d)
STARTING=()
cleanup() {
  for job in "${STARTING[@]}"; do wait "$job" 2>/dev/null || true; done
  scripts/kafka.sh stop >/dev/null 2>&1 || true
  "${SECOND[@]}" scripts/kafka.sh stop >/dev/null 2>&1 || true
  scripts/redis.sh stop >/dev/null 2>&1 || true
  rm -rf "$LOGS"
}
trap cleanup EXIT
# `background NAME command...` runs a step beside the next ones; `finish NAME` waits for it,
# shows its output and fails the suite if it failed.
declare -A JOBS
background() {
  local name=$1
  shift
  "$@" >"$LOGS/$name" 2>&1 &
  JOBS[$name]=$!
}
finish() {
  local status=0
  wait "${JOBS[$1]}" || status=$?
  cat "$LOGS/$1"
  return "$status"
}
# The brokers start (fetching the jars on a fresh machine) while the code is built and checked.
scripts/redis.sh start
background kafka scripts/kafka.sh start
STARTING+=("${JOBS[kafka]}")
if ((!$#)); then  # the whole suite: the second broker too
  background second "${SECOND[@]}" scripts/kafka.sh start
  STARTING+=("${JOBS[second]}")
fi
"$VENV/bin/python" scripts/build_fast.py  # the mypyc build, again if a source changed (streams/compiled.py)
background wheel scripts/wheel-check.sh  # the wheel outside the checkout: base install, then the edge extra
"$VENV/bin/ruff" check .
"$VENV/bin/ruff" format --check .
"$VENV/bin/mypy" --strict
"$VENV/bin/lint-imports"
finish wheel
finish kafka
if ((!$#)); then finish second; fi
export KAFKA_BOOTSTRAP="127.0.0.1:${KAFKA_PORT:-19092}"
export REDIS_URL="redis://127.0.0.1:${REDIS_PORT:-16379}/0"
PYTEST=("$VENV/bin/pytest" -q -p no:cacheprovider --durations=25)
if (($#)); then
  "${PYTEST[@]}" "$@"  # the tests asked for, in one process
  exit
fi
# The suite in two phases. The tests that need no service run on every core (pytest-xdist;
# half the wall time on two cores). The integration tests share the machine's timing, so they
# run one at a time, except `LONG_TESTS`: they spend most of their minutes waiting, on a broker
# of their own (the faults test crashes and restarts its broker), beside the rest.
"${PYTEST[@]}" -m "not integration" -n "${TEST_WORKERS:-auto}" --dist worksteal
background long "${SECOND[@]}" KAFKA_BOOTSTRAP="127.0.0.1:$SECOND_PORT" \
  "${PYTEST[@]}" -m integration "${LONG_TESTS[@]}"
status=0
"${PYTEST[@]}" -m integration "${LONG_TESTS[@]/#/--ignore=}" || status=$?
finish long || status=$?
exit "$status"
