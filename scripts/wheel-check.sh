#!/usr/bin/env bash
# The wheel as a user installs it, outside the checkout: build it, install it in a fresh venv
# (base install first, then the edge extra), and run the commands the README promises.
#   base: `jackpot replay` on a simulated floor of the example, `jackpot reconcile --db`, and
#         `jackpot serve` answering in one line which extra it needs;
#   edge: `jackpot serve` up to `GET /healthz`.
# Exit non-zero on any failure. env: PYTHON (python3), WHEEL_CHECK_PORT (18181).
set -euo pipefail
REPO=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd -P)
PYTHON=${PYTHON:-python3}
PORT=${WHEEL_CHECK_PORT:-18181}
WORK=$(mktemp -d)
SERVER=
cleanup() {
  if [[ -n $SERVER ]]; then kill "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null || true; fi
  rm -rf "$WORK"  # after the server has stopped: its shutdown still imports from the venv
}
trap cleanup EXIT
say() { echo "wheel-check: $*"; }

"$PYTHON" -m venv "$WORK/build-venv"
# built from a copy, so the checkout gets no build/ or egg-info
mkdir "$WORK/src"
# (without the tools' caches: mypy and ruff may be writing theirs meanwhile, scripts/test.sh)
tar -C "$REPO" --exclude=./.venv --exclude=./var --exclude=./.cache --exclude=./build \
  --exclude=./.mypy_cache --exclude=./.ruff_cache --exclude=./.hypothesis \
  --exclude=./.pytest_cache --exclude=./.kafka-run --exclude=./.redis-run -cf - . |
  tar -C "$WORK/src" -xf -
"$WORK/build-venv/bin/pip" wheel -q --disable-pip-version-check --no-deps -w "$WORK/dist" "$WORK/src"
WHEEL=$(ls "$WORK"/dist/*.whl)
say "built $(basename "$WHEEL")"
"$PYTHON" - "$WHEEL" <<'PY' || { say "the wheel lacks the contracts or the pages"; exit 1; }
import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
needed = {"streams/door/schemas/table-event.v1.json", "streams/door/schemas/table-event.v2.json",
          "streams/http/static/signage.html", "streams/http/static/surveillance.html"}
sys.exit(sorted(needed - names) or 0)
PY

"$PYTHON" -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install -q --disable-pip-version-check "$WHEEL"
cp "$REPO/examples/pa-three-card-poker.toml" "$WORK/floor.toml"
cd "$WORK"  # nothing of the checkout is importable from here
JACKPOT=$WORK/venv/bin/jackpot
"$JACKPOT" simulate --config floor.toml --rounds 5 --seed 7 --forced-hands 0.3 --out events.jsonl
"$JACKPOT" replay --config floor.toml events.jsonl > replay.json
"$WORK/venv/bin/python" - <<'PY'
import json
out = json.load(open("replay.json"))
assert out["meters"] and not out["rejected"], out["rejected"][:3]
print(f"wheel-check: replay: {len(out['meters'])} meters, {len(out['awards'])} awards, 0 rejected")
PY
"$JACKPOT" ingest --config floor.toml --db jackpot.db events.jsonl
"$JACKPOT" reconcile --db jackpot.db --format json > reconcile.json
if "$JACKPOT" serve --config floor.toml --db jackpot.db --tokens tokens.json 2> serve.err; then
  say "serve ran without the edge extra"; exit 1
fi
grep -q "needs the 'edge' extra" serve.err || { say "serve did not name its extra:"; cat serve.err; exit 1; }
say "base install: replay, ingest, reconcile run; serve names its extra"

"$WORK/venv/bin/pip" install -q --disable-pip-version-check "$WHEEL[edge]"
"$JACKPOT" token add --file tokens.json --name probe --role read_only > /dev/null
"$JACKPOT" serve --config floor.toml --db jackpot.db --tokens tokens.json --port "$PORT" \
  --log-level warning &
SERVER=$!
for _ in $(seq 1 100); do
  if "$WORK/venv/bin/python" -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$PORT/healthz', timeout=1)" 2>/dev/null; then
    say "edge install: jackpot serve answers /healthz"
    exit 0
  fi
  kill -0 "$SERVER" 2>/dev/null || { say "serve exited"; exit 1; }
  sleep 0.2
done
say "serve did not answer /healthz in 20 s"; exit 1
