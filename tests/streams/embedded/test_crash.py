"""Crash safety of the embedded engine: SIGKILL during ingest, several times, then compare.

The ingest process is killed at random moments while it appends; it is restarted on the same file
(devices retry with the same event ids). Afterwards the log must hold every event exactly once:
the restored state (snapshot + tail) equals a clean replay of the whole log, and both equal the
pure core's replay of the original event file. Nothing lost, nothing applied twice.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller.model.views import meters_view
from streams.adapters.sqlite import SqliteLog
from streams.cli.ingest import open_controller
from streams.cli.replay import replay_file
from streams.codec import fold_log

CONFIG = Path("examples/pa-three-card-poker.toml")


def _simulate(out: Path, rounds: int) -> None:
    subprocess.run(
        [sys.executable, "-m", "streams.cli", "simulate", "--config", str(CONFIG),
         "--rounds", str(rounds), "--seed", "11", "--forced-hands", "0.05", "--out", str(out)],
        check=True, capture_output=True,
    )  # fmt: skip


def _ingest_command(db: Path, events: Path) -> list[str]:
    return [sys.executable, "-m", "streams.cli", "ingest", "--config", str(CONFIG), "--db",
            str(db), "--batch", "50", "--snapshot-every", "700", str(events)]  # fmt: skip


def _head(db: Path) -> int:
    if not db.exists():
        return 0
    log = SqliteLog(db)
    try:
        return log.head()
    finally:
        log.close()


def _wait_for_progress(db: Path, process: subprocess.Popen[bytes], grow_by: int) -> None:
    """Kill mid-stream: wait until this run has appended ``grow_by`` records (or ended)."""
    start = _head(db)
    deadline = time.monotonic() + 60
    while process.poll() is None and time.monotonic() < deadline:
        if _head(db) - start >= grow_by:
            return
        time.sleep(0.01)


@pytest.mark.slow
def test_sigkill_during_ingest_loses_nothing_and_applies_nothing_twice(tmp_path: Path) -> None:
    events, db = tmp_path / "floor.jsonl", tmp_path / "log.db"
    _simulate(events, rounds=60)
    rng = random.Random(5)
    kills = 0
    for _ in range(6):
        process = subprocess.Popen(_ingest_command(db, events), stderr=subprocess.DEVNULL)
        _wait_for_progress(db, process, grow_by=rng.randint(100, 900))
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
            kills += 1
        process.wait()
    finished = subprocess.run(
        _ingest_command(db, events), capture_output=True, text=True, check=False
    )
    assert finished.returncode == 0, finished.stderr
    assert kills >= 5, "the run finished before enough kills; make it longer"

    restored = open_controller(CONFIG, db, snapshot_every=700)
    clean_state, clean_position = fold_log(SqliteLog(db))
    assert restored.position == clean_position
    assert meters_view(restored.state) == meters_view(clean_state)
    assert restored.state.meters == clean_state.meters
    assert restored.state.tables == clean_state.tables

    expected = replay_file(CONFIG, events)
    assert meters_view(clean_state) == expected["meters"]
    accepted = [json.loads(r.payload) for r in SqliteLog(db).read()]
    ids = [e["event_id"] for e in accepted if "round_id" in e and "seq" in e]
    assert len(ids) == len(set(ids)), "an event was applied twice"
    lines = sum(1 for line in events.read_text().splitlines() if line.strip())
    rejected = expected["rejected"]
    assert isinstance(rejected, list)
    assert len(ids) + len(rejected) == lines, "an event was lost"
