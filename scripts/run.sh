#!/usr/bin/env bash
# The main job on the embedded default (no Kafka): simulate a floor of the given configuration and
# replay it through the controller, printing meters, awards and rejections.
set -euo pipefail
cd "$(dirname "$0")/.."
CONFIG=${1:-examples/pa-three-card-poker.toml}
mkdir -p var
.venv/bin/jackpot simulate --config "$CONFIG" --rounds "${ROUNDS:-200}" --out var/floor.jsonl
.venv/bin/jackpot replay --config "$CONFIG" var/floor.jsonl
