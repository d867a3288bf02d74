"""Start-up self-check (issue 7): a snapshot that fails its checksum, or whose content does not
hold together, is refused with a clear note and the state is rebuilt from the log, never served
from the bad snapshot."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

from controller.model.views import meters_view
from streams.adapters.chain import snapshot_tag
from streams.adapters.sqlite import SqliteLog
from streams.codec import fold_log
from streams.embedded.engine import EmbeddedController
from tests.streams.http.support import CONFIG, full_round

KEY = bytes(range(32))  # the snapshot key: made up for tests


def started(db: Path) -> EmbeddedController:
    log = SqliteLog(db, snapshot_key=KEY)
    controller = EmbeddedController(log, log, snapshot_every=1_000_000)
    controller.start(CONFIG.read_text(encoding="utf-8"), str(CONFIG))
    return controller


def a_floor_with_a_snapshot(db: Path) -> list[dict[str, object]]:
    controller = started(db)
    outcomes = controller.submit(full_round(("As", "Ks", "Qs")))
    assert {o.status for o in outcomes} == {"accepted"}
    controller.snapshot()
    expected = meters_view(controller.state)
    controller.log.close()
    return expected


def tamper(db: Path, change: str) -> None:
    """Add a dollar to a meter in the stored snapshot ("blob": checksum left stale), or edit the
    configuration text inside it and re-sign it ("config": checksum and tag, as one holding the
    key would: the content check must still catch it)."""
    with sqlite3.connect(db) as database:
        [(position, blob, checksum, chain)] = database.execute(
            "SELECT position, blob, checksum, chain FROM snapshots"
        ).fetchall()
        tag = ""
        snapshot = json.loads(blob)
        meter = snapshot["meters"][0]
        meter["amount_sub"] += 100_000_000  # one dollar more on the sign: must never be served
        if change == "config":
            snapshot["meters"][0]["amount_sub"] -= 100_000_000
            snapshot["config_event"]["text"] += "\n# edited\n"
        new_blob = json.dumps(snapshot).encode()
        if change != "blob":  # re-sign: the checksum holds, only the content gives it away
            checksum = hashlib.sha256(new_blob).hexdigest()
            tag = snapshot_tag(KEY, position, bytes(chain), new_blob)
        database.execute(
            "UPDATE snapshots SET blob = ?, checksum = ?, tag = ? WHERE position = ?",
            (new_blob, checksum, tag, position),
        )


def test_a_snapshot_failing_its_checksum_is_ignored_and_the_log_rebuilds(tmp_path: Path) -> None:
    db = tmp_path / "log.db"
    expected = a_floor_with_a_snapshot(db)
    tamper(db, "blob")
    controller = started(db)
    assert "fails its checksum" in controller.restore_note
    assert meters_view(controller.state) == expected
    assert controller.state == fold_log(controller.log)[0]


def test_a_signed_snapshot_whose_configuration_text_was_edited_is_ignored(tmp_path: Path) -> None:
    db = tmp_path / "log.db"
    expected = a_floor_with_a_snapshot(db)
    tamper(db, "config")
    controller = started(db)
    assert "digest" in controller.restore_note
    assert meters_view(controller.state) == expected
