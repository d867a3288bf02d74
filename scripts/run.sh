#!/usr/bin/env bash
# The main job on the embedded default (no Kafka): the controller service (`jackpot serve`, one
# process, a durable SQLite log) with a simulated floor posting to it like table devices would.
# Prints the signage, surveillance and API addresses; Ctrl-C stops the service (a snapshot is
# saved, so the next start resumes where it stopped).
set -euo pipefail
cd "$(dirname "$0")/.."
CONFIG=${1:-examples/pa-three-card-poker-demo.toml}
PORT=${PORT:-8080}
ROUNDS=${ROUNDS:-100}
BASE="http://127.0.0.1:$PORT"
JACKPOT=.venv/bin/jackpot
mkdir -p var
if [[ ! -s var/run-tokens.env ]]; then
  rm -f var/tokens.json
  {
    echo "DEVICE=$($JACKPOT token add --file var/tokens.json --name floor-simulator --role table_device)"
    echo "READER=$($JACKPOT token add --file var/tokens.json --name signage --role read_only)"
    echo "SUPERVISOR=$($JACKPOT token add --file var/tokens.json --name floor-supervisor --role supervisor)"
  } > var/run-tokens.env
  chmod 600 var/run-tokens.env var/tokens.json
fi
# shellcheck disable=SC1091
source var/run-tokens.env
# A demo: each run starts a fresh log, since the simulated devices count their seq from 1 again
# (a real device never does) and a kept log would refuse them.
rm -f var/jackpot.db var/jackpot.db-*
# Snapshots are tagged with a key kept apart from the database (made on first use, mode 600).
$JACKPOT serve --config "$CONFIG" --db var/jackpot.db --tokens var/tokens.json --port "$PORT" \
  --snapshot-key var/secrets/snapshot.key --log-level warning &
SERVER=$!
trap 'kill -TERM $SERVER 2>/dev/null; wait $SERVER 2>/dev/null || true' EXIT INT TERM
for _ in $(seq 100); do
  curl -fsS "$BASE/readyz" >/dev/null 2>&1 && break
  sleep 0.2
done
echo
echo "Signage:       $BASE/signage?token=$READER"
echo "Surveillance:  $BASE/surveillance?token=$READER"
echo "Meters (API):  curl -H @var/reader.header $BASE/v1/meters"
echo "Tokens are in var/run-tokens.env (supervisor: validate and pay hits, corrections)."
echo
# Tokens never go on a command line (ps shows every process's arguments): the simulator reads
# $JACKPOT_TOKEN, curl reads its header from a file.
(umask 077 && echo "Authorization: Bearer $READER" > var/reader.header)
JACKPOT_TOKEN="$DEVICE" $JACKPOT simulate --config "$CONFIG" --rounds "$ROUNDS" \
  --forced-hands "${FORCED:-0.01}" --post "$BASE"
curl -fsS -H @var/reader.header "$BASE/v1/meters"
echo
# Idle tables still say they are alive (contract v2 heartbeats), so the signs stay in play.
JACKPOT_TOKEN="$DEVICE" $JACKPOT simulate --config "$CONFIG" --rounds 0 --post "$BASE" \
  --keep-alive "${KEEP_ALIVE:-10}" 2>/dev/null &
BEATS=$!
trap 'kill -TERM $BEATS $SERVER 2>/dev/null; wait $SERVER 2>/dev/null || true' EXIT INT TERM
echo "The floor has played $ROUNDS rounds per table; its tables now send heartbeats and the"
echo "service keeps running. Ctrl-C to stop."
wait $SERVER
