#!/usr/bin/env bash
# Every benchmark row, with the services the kafka and latency rows need: starts the Kafka broker
# and Redis on loopback (as scripts/test.sh does), runs `python -m bench "$@"`, stops them again.
# Rows that need a service report why they were skipped when it is missing; this script makes sure
# it is not. `make bench` calls it; `make bench BENCH_ARGS=--quick` passes options through.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
cleanup() { scripts/kafka.sh stop >/dev/null 2>&1 || true; scripts/redis.sh stop >/dev/null 2>&1 || true; }
trap cleanup EXIT
scripts/redis.sh start
scripts/kafka.sh start
export KAFKA_BOOTSTRAP="127.0.0.1:${KAFKA_PORT:-19092}"
export REDIS_URL="redis://127.0.0.1:${REDIS_PORT:-16379}/0"
"$VENV/bin/python" -m bench "$@"
