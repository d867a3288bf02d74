"""Helpers for the tamper-evidence tests (issue 15, finding 7): a controller started on a log,
and changes made to the database behind its back, as an attacker with write access would."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from streams.adapters.sqlite import SqliteLog
from streams.embedded.engine import EmbeddedController
from tests.streams.http.support import CONFIG


def started(db: Path, key: bytes | None) -> EmbeddedController:
    log = SqliteLog(db, snapshot_key=key)
    controller = EmbeddedController(log, log, snapshot_every=1_000_000)
    controller.start(CONFIG.read_text(encoding="utf-8"), str(CONFIG))
    return controller


def sql(db: Path, statement: str, *args: object) -> None:
    with closing(sqlite3.connect(db)) as raw:
        raw.execute(statement, args)
        raw.commit()


def position_of(db: Path, fragment: str, before_snapshot: bool) -> int:
    with closing(sqlite3.connect(db)) as raw:
        [snapshot] = raw.execute("SELECT position FROM snapshots").fetchone()
        rows = raw.execute(
            "SELECT position FROM log WHERE CAST(payload AS TEXT) LIKE ? ORDER BY position",
            (f"%{fragment}%",),
        ).fetchall()
    found: int = next(p for (p,) in rows if (p <= snapshot) is before_snapshot)
    return found


def alter(db: Path, position: int) -> None:
    """Turn a $1.00 into $9.00 in the record at ``position``, its chain hash left as it was."""
    sql(
        db,
        "UPDATE log SET payload = CAST(REPLACE(CAST(payload AS TEXT), '1.00', '9.00') AS BLOB) "
        "WHERE position = ?",
        position,
    )
