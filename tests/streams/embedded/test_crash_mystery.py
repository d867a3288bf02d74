"""SIGKILL during ingest with a mystery level armed, several times, then compare.

NJ 13:69E-1.39A (recovery to the exact prior state) with a must-hit-by level: the ingest process
is killed at random moments while it appends and restarted on the same file and the same key.
Afterwards every event is in the log exactly once, every hit's reveal verifies against the
commitment logged before it (so no trigger was drawn twice for one arming, nor lost), the one
pending arming is the level's current one, and the restored state equals a clean replay.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from controller.model.events import MysteryArmed, ProgressiveHit
from controller.model.table_events import TableEventBase
from controller.model.views import meters_view
from controller.mystery import audit
from streams.adapters.sqlite import SqliteLog
from streams.cli.ingest import open_controller
from streams.codec import decode, fold_log
from tests.controller.test_mystery import MYSTERY
from tests.streams.embedded.test_crash import _wait_for_progress
from tests.streams.embedded.test_mystery_engine import rounds


def _ingest(config: Path, db: Path, key: Path, events: Path) -> list[str]:
    return [sys.executable, "-m", "streams.cli", "ingest", "--config", str(config), "--db",
            str(db), "--mystery-key", str(key), "--batch", "5", "--snapshot-every", "60",
            str(events)]  # fmt: skip


@pytest.mark.slow
def test_sigkill_with_a_mystery_level_armed_loses_no_trigger(tmp_path: Path) -> None:
    config, events = tmp_path / "mystery.toml", tmp_path / "events.jsonl"
    db, key = tmp_path / "log.db", tmp_path / "secret" / "mystery.key"
    key.parent.mkdir()
    config.write_text(MYSTERY, encoding="utf-8")
    raws = rounds(1, 600)  # long enough for five kills however fast the engine ingests (and the
    # test is starved: 300 rounds once finished before the fourth kill at load ~2.5)
    events.write_text("".join(json.dumps(raw) + "\n" for raw in raws))
    rng, kills = random.Random(7), 0
    for _ in range(5):
        process = subprocess.Popen(_ingest(config, db, key, events), stderr=subprocess.DEVNULL)
        _wait_for_progress(db, process, grow_by=rng.randint(40, 200))
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
            kills += 1
        process.wait()
    finished = subprocess.run(
        _ingest(config, db, key, events), check=False, capture_output=True, text=True
    )
    assert finished.returncode == 0, finished.stderr
    assert kills >= 4, "the run finished before enough kills; make it longer"

    logged = [decode(r.payload) for r in SqliteLog(db).read()]
    ids = [e.event_id for e in logged if isinstance(e, TableEventBase)]
    assert sorted(ids) == sorted(f"tcp-7:{n * 10 + k}" for n in range(1, 601) for k in (1, 2, 3, 4))
    report = audit(logged)
    hits = [e for e in logged if isinstance(e, ProgressiveHit)]
    assert report.ok
    assert len(report.reveals) == len(hits) >= 20
    armings = [e for e in logged if isinstance(e, MysteryArmed)]
    assert len(armings) == len(hits) + 1

    restored = open_controller(config, db, snapshot_every=60, mystery_key=key)
    clean, position = fold_log(SqliteLog(db))
    assert restored.position == position
    assert meters_view(restored.state) == meters_view(clean)
    meter = restored.state.meters["tcp-mystery"]
    assert report.pending == (("tcp-mystery", meter.mystery_commitment),)
    assert meter.mystery_trigger_cents >= 10_000  # unsealed again with the same key
    assert meter.explained_sub() == meter.held_sub()
