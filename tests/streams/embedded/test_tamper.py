"""Issue 15, finding 7: start-up does not trust what is on disk.

The log is hash chained and snapshots are tagged with a key kept apart from the database. A
forged snapshot is never served; a record changed, removed or inserted after the snapshot stops
the start with one line naming the position, and a log rewritten beneath an authentic snapshot
too; `jackpot verify` finds the same and exits non-zero. A record changed before the snapshot is
the background full check's to find (`test_full_check_at_start.py`). Every case here passed
silently before (the issue's reproductions).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import sqlite3
import subprocess
import sys
import threading
from contextlib import closing
from pathlib import Path

import pytest

from controller.model.errors import LogTampered, StoreUnavailable
from controller.model.views import meters_view
from streams.adapters.chain import load_key
from streams.adapters.sqlite import SqliteLog
from streams.cli import main as jackpot
from streams.embedded.self_check import run_check
from tests.streams.embedded.tamper_support import alter, position_of, sql, started
from tests.streams.http.support import CONFIG, full_round

ROOT = Path(__file__).resolve().parents[3]


def test_a_forged_snapshot_with_a_matching_checksum_is_never_served(
    floor: tuple[Path, list[dict[str, object]]], key: bytes
) -> None:
    db, expected = floor
    with closing(sqlite3.connect(db)) as raw:
        [(position, blob)] = raw.execute("SELECT position, blob FROM snapshots").fetchall()
        forged = json.loads(blob)
        for meter in forged["meters"]:
            if meter["meter_id"] == "tcp-progressive-5":
                meter["amount_sub"] += 500_000_000_000  # +$5,000
        data = json.dumps(forged).encode()
        checksum = hashlib.sha256(data).hexdigest()
        raw.execute(
            "UPDATE snapshots SET blob = ?, checksum = ? WHERE position = ?",
            (data, checksum, position),
        )
        raw.commit()
    controller = started(db, key)
    try:
        assert "fails its authentication" in controller.restore_note
        assert meters_view(controller.state) == expected
    finally:
        controller.log.close()


def test_an_altered_record_after_the_snapshot_stops_the_start_naming_its_position(
    floor: tuple[Path, list[dict[str, object]]], key: bytes
) -> None:
    db, _ = floor
    position = position_of(db, "wager_placed", before_snapshot=False)
    alter(db, position)
    with pytest.raises(LogTampered) as raised:
        started(db, key)
    assert raised.value.position == position


def test_a_removed_record_after_the_snapshot_stops_the_start(
    floor: tuple[Path, list[dict[str, object]]], key: bytes
) -> None:
    db, _ = floor
    position = position_of(db, "decision", before_snapshot=False)
    sql(db, "DELETE FROM log WHERE position = ?", position)
    with pytest.raises(LogTampered, match="missing") as raised:
        started(db, key)
    assert raised.value.position == position


def test_unreadable_snapshots_stop_the_start_without_a_traceback(
    floor: tuple[Path, list[dict[str, object]]], key: bytes
) -> None:
    """Start-up reads the snapshots before the log: a database error there is StoreUnavailable
    (`jackpot serve` prints it as one line), not a raw sqlite3 error."""
    db, _ = floor
    sql(db, "ALTER TABLE snapshots RENAME TO kept")
    sql(db, "CREATE TABLE snapshots (position INTEGER PRIMARY KEY)")  # no blob to read
    with pytest.raises(StoreUnavailable, match="reading the snapshots"):
        started(db, key)


def test_a_log_rewritten_beneath_an_authentic_snapshot_is_a_break(
    floor: tuple[Path, list[dict[str, object]]], key: bytes
) -> None:
    """Whoever rewrites a record and recomputes every later hash still cannot match the chain
    hash the tagged snapshot names."""
    db, _ = floor
    position = position_of(db, "wager_placed", before_snapshot=True)
    alter(db, position)
    with closing(sqlite3.connect(db)) as raw:  # rechain every record, as an attacker would
        raw.execute("ALTER TABLE log RENAME COLUMN chain TO old_chain")
        raw.commit()
    rechained = SqliteLog(db)  # an old-looking log is chained as it stands on open
    rechained.close()
    with pytest.raises(LogTampered, match="differs from what") as raised:
        started(db, key)
    assert raised.value.position >= position


def test_serve_refuses_to_start_with_one_line(
    floor: tuple[Path, list[dict[str, object]]], tmp_path: Path
) -> None:
    db, _ = floor
    sql(db, "INSERT INTO log (key, payload) VALUES ('floor', x'00ff00ff')")  # garbage after
    tokens = tmp_path / "tokens.json"
    tokens.write_text('{"tokens": []}', encoding="utf-8")
    command = [str(Path(sys.executable).parent / "jackpot"), "serve", "--config", str(CONFIG)]
    command += ["--db", str(db), "--tokens", str(tokens), "--port", "0"]
    command += ["--snapshot-key", str(tmp_path / "secrets" / "snapshot.key")]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, env=env, check=False)
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1, done.stderr
    assert "refusing to start" in done.stderr
    assert "hash chain at position" in done.stderr
    assert "Traceback" not in done.stderr


def test_verify_holds_on_a_true_log_and_breaks_on_a_changed_one(
    floor: tuple[Path, list[dict[str, object]]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    db, _ = floor
    keyfile = str(tmp_path / "secrets" / "snapshot.key")
    assert jackpot(["verify", "--db", str(db), "--snapshot-key", keyfile]) == 0
    assert "holds" in capsys.readouterr().out
    assert jackpot(["verify", "--db", str(db)]) == 0  # contents still compared with the fold
    assert "tags not checked" in capsys.readouterr().out
    wrong = tmp_path / "other.key"
    load_key(wrong)
    assert jackpot(["verify", "--db", str(db), "--snapshot-key", str(wrong)]) == 1
    assert "does not hold (checksum, tag or chain hash)" in capsys.readouterr().out
    position = position_of(db, "decision", before_snapshot=False)
    sql(db, "UPDATE log SET received_at = '2030-01-01T00:00:00Z' WHERE position = ?", position)
    assert jackpot(["verify", "--db", str(db), "--snapshot-key", keyfile]) == 1
    assert f"BREAK at position {position}" in capsys.readouterr().out
    assert jackpot(["verify", "--db", str(tmp_path / "none.db")]) == 2


def test_random_bytes_mid_file_never_leave_the_controller_serving_as_true(
    tmp_path: Path, key: bytes
) -> None:
    """The issue: 16 KB of random bytes mid-file left /readyz ready and /v1/log 503. Start-up
    reads only the snapshot and the log after it, so the damage is found either there (it
    refuses to start) or by the full check right after it (writes stop, /readyz fails)."""
    db = tmp_path / "jackpot.db"
    controller = started(db, key)
    for number in range(300):
        controller.submit(full_round(round_id=f"R{number}", start=1 + 6 * number))
    controller.snapshot()  # a restart from it alone would never read the middle of the file
    controller.log.close()
    size = db.stat().st_size
    with db.open("r+b") as raw:
        raw.seek(size // 2)
        raw.write(random.Random(15).randbytes(16_384))
    try:
        controller = started(db, key)
    except (LogTampered, StoreUnavailable):
        return
    try:
        assert not run_check(controller, controller.log, threading.Event())
        assert controller.integrity_fault
        assert controller.full_check.state == "failed"
    finally:
        controller.log.close()
