"""The embedded engine's durable log and snapshot store: one SQLite file in WAL mode.

Why SQLite: it ships with Python, a transaction is atomic and durable on one machine, and WAL lets
readers (the HTTP read API, reconciliation) run beside the single writer. ``synchronous=FULL``:
an acknowledged append survives power loss, not only a killed process.

::

    log(position INTEGER PRIMARY KEY, key TEXT, payload BLOB, dedupe_id TEXT UNIQUE,
        received_at TEXT)
    snapshots(position INTEGER PRIMARY KEY, blob BLOB, checksum TEXT)
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from typing import Any

from controller.model.errors import CorruptSnapshot, DuplicateRecord, StoreUnavailable
from streams.ports import LogRecord, StoredRecord

_IN_CHUNK = 500  # ids per `payloads_of` query (older SQLite allows 999 parameters)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS log (
    position INTEGER PRIMARY KEY,
    key TEXT NOT NULL,
    payload BLOB NOT NULL,
    dedupe_id TEXT UNIQUE,
    received_at TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS snapshots (
    position INTEGER PRIMARY KEY,
    blob BLOB NOT NULL,
    checksum TEXT NOT NULL
);
"""
_READ_CHUNK = 5_000
_KEEP_SNAPSHOTS = 3


class SqliteLog:
    """`streams.ports.EventLog` and `SnapshotStore` over one SQLite database file."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
            self._migrate()
        except sqlite3.Error as exc:
            msg = f"cannot open the event log at {self.path}: {exc}"
            raise StoreUnavailable(msg) from exc

    def _migrate(self) -> None:
        """Add the columns a database made by an older version lacks (its rows keep "")."""
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(log)")}
        if "received_at" not in columns:
            self._db.execute("ALTER TABLE log ADD COLUMN received_at TEXT NOT NULL DEFAULT ''")

    def append(self, batch: Sequence[LogRecord]) -> int:
        """Append atomically; DuplicateRecord (and nothing appended) if a dedupe id repeats."""
        rows = [(r.key, r.payload, r.dedupe_id or None, r.received_at) for r in batch]
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                self._db.executemany(
                    "INSERT INTO log (key, payload, dedupe_id, received_at) VALUES (?, ?, ?, ?)",
                    rows,
                )
                self._db.execute("COMMIT")
            except sqlite3.IntegrityError as exc:
                self._db.execute("ROLLBACK")
                msg = f"a record in the batch repeats a dedupe id already in the log ({exc})"
                raise DuplicateRecord(msg) from exc
            except sqlite3.Error as exc:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                msg = f"append to {self.path} failed: {exc}"
                raise StoreUnavailable(msg) from exc
            except BaseException:
                # Whatever failed, the log must not be left inside an open transaction.
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
            return self._head_unlocked()

    def read(self, after: int = 0) -> Iterator[StoredRecord]:
        """Records after ``after`` in order, fetched in chunks so a long log streams."""
        position = after
        while True:
            rows = self._query(
                "SELECT position, key, payload, received_at FROM log WHERE position > ? "
                "ORDER BY position LIMIT ?",
                (position, _READ_CHUNK),
            )
            if not rows:
                return
            for row in rows:
                yield StoredRecord(row[0], row[1], bytes(row[2]), row[3])
            position = rows[-1][0]

    def head(self) -> int:
        """The last position, 0 when the log is empty."""
        rows = self._query("SELECT COALESCE(MAX(position), 0) FROM log", ())
        return int(rows[0][0])

    def _query(self, sql: str, args: tuple[object, ...]) -> list[tuple[Any, ...]]:
        """Run a read; a database failure becomes StoreUnavailable (a 503, not a 500)."""
        try:
            with self._lock:
                return list(self._db.execute(sql, args).fetchall())
        except sqlite3.Error as exc:
            msg = f"reading {self.path} failed: {exc}"
            raise StoreUnavailable(msg) from exc

    def _head_unlocked(self) -> int:
        row = self._db.execute("SELECT COALESCE(MAX(position), 0) FROM log").fetchone()
        return int(row[0])

    def contains(self, dedupe_id: str) -> bool:
        """Whether a record with this dedupe id is in the log."""
        with self._lock:
            row = self._db.execute("SELECT 1 FROM log WHERE dedupe_id = ?", (dedupe_id,)).fetchone()
        return row is not None

    def payload_of(self, dedupe_id: str) -> bytes | None:
        """The payload appended with this dedupe id, or None."""
        rows = self._query("SELECT payload FROM log WHERE dedupe_id = ?", (dedupe_id,))
        return bytes(rows[0][0]) if rows else None

    def payloads_of(self, dedupe_ids: Collection[str]) -> dict[str, bytes]:
        """The payloads appended with these dedupe ids (unknown ids left out); one query per
        `_IN_CHUNK` ids, within SQLite's limit on bound parameters."""
        ids = list(dict.fromkeys(dedupe_ids))
        found: dict[str, bytes] = {}
        for start in range(0, len(ids), _IN_CHUNK):
            chunk = tuple(ids[start : start + _IN_CHUNK])
            marks = ",".join("?" * len(chunk))
            sql = f"SELECT dedupe_id, payload FROM log WHERE dedupe_id IN ({marks})"  # noqa: S608
            found.update((str(row[0]), bytes(row[1])) for row in self._query(sql, chunk))
        return found

    def save(self, position: int, blob: bytes) -> None:
        """Keep a snapshot with its checksum; only the newest few are kept."""
        checksum = hashlib.sha256(blob).hexdigest()
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute(
                "INSERT OR REPLACE INTO snapshots (position, blob, checksum) VALUES (?, ?, ?)",
                (position, blob, checksum),
            )
            self._db.execute(
                "DELETE FROM snapshots WHERE position NOT IN "
                "(SELECT position FROM snapshots ORDER BY position DESC LIMIT ?)",
                (_KEEP_SNAPSHOTS,),
            )
            self._db.execute("COMMIT")

    def latest(self) -> tuple[int, bytes] | None:
        """The newest snapshot; CorruptSnapshot if its checksum does not match."""
        with self._lock:
            row = self._db.execute(
                "SELECT position, blob, checksum FROM snapshots ORDER BY position DESC LIMIT 1"
            ).fetchone()
        if row is None:
            return None
        blob = bytes(row[1])
        if hashlib.sha256(blob).hexdigest() != row[2]:
            msg = f"snapshot at position {row[0]} in {self.path} fails its checksum"
            raise CorruptSnapshot(msg)
        return int(row[0]), blob

    def close(self) -> None:
        """Close the database; appended records stay."""
        with self._lock:
            self._db.close()
