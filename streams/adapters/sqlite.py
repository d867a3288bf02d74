"""The embedded engine's durable log and snapshot store: one SQLite file in WAL mode.

Why SQLite: it ships with Python, a transaction is atomic and durable on one machine, and WAL lets
readers (the HTTP read API, reconciliation) run beside the single writer. ``synchronous=FULL``:
an acknowledged append survives power loss, not only a killed process.

::

    log(position INTEGER PRIMARY KEY, key TEXT, payload BLOB, dedupe_id TEXT UNIQUE,
        received_at TEXT, chain BLOB, tail BLOB)
    snapshots(position INTEGER PRIMARY KEY, blob BLOB, checksum TEXT, chain BLOB, tag TEXT)

A row is one record and the records without a dedupe id appended right after it (its ``tail``,
`streams.adapters.sqlite_rows`: positions, reads and the chain are exactly those of one record a
row; a log written one record a row reads and appends as it did).

Tamper evidence (`streams.adapters.chain`): every record's chain hash covers the one before it
and its own bytes (a row stores its last record's); `verify` walks it (start-up from its
snapshot's position, the background full check and `jackpot verify` from the first record). A
snapshot names the chain hash at its position and, with a ``snapshot_key``, carries an HMAC tag;
without a key no snapshot is trusted (`latest` refuses it, so the state is rebuilt from the log).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from typing import Any

from controller.model.errors import (
    DuplicateRecord,
    LogTampered,
    StoreUnavailable,
)
from streams.adapters.chain import GENESIS
from streams.adapters.sqlite_rows import expand, link_row, pack_rows, tail_of
from streams.adapters.sqlite_snapshots import SqliteSnapshots
from streams.ports import LogRecord, StoredRecord

_IN_CHUNK = 500  # ids per `payloads_of` query (older SQLite allows 999 parameters)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS log (
    position INTEGER PRIMARY KEY,
    key TEXT NOT NULL,
    payload BLOB NOT NULL,
    dedupe_id TEXT UNIQUE,
    received_at TEXT NOT NULL DEFAULT '',
    chain BLOB,
    tail BLOB
);
CREATE TABLE IF NOT EXISTS snapshots (
    position INTEGER PRIMARY KEY,
    blob BLOB NOT NULL,
    checksum TEXT NOT NULL,
    chain BLOB,
    tag TEXT NOT NULL DEFAULT ''
);
"""
_READ_CHUNK = 5_000


class SqliteLog(SqliteSnapshots):
    """`streams.ports.EventLog` and `SnapshotStore` over one SQLite database file."""

    def __init__(
        self, path: str | Path, *, snapshot_key: bytes | None = None, pack: bool = True
    ) -> None:
        """``pack=False`` writes one record a row, as before issue 14 (the differential tests'
        reference; reading does not depend on it)."""
        self.path = Path(path)
        self._key = snapshot_key
        self._pack = pack
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
            self._migrate()
            self._last = self._chain_at(self._head_unlocked()) or GENESIS
        except sqlite3.Error as exc:
            msg = f"cannot open the event log at {self.path}: {exc}"
            raise StoreUnavailable(msg) from exc

    def _migrate(self) -> None:
        """Add the columns a database made by an older version lacks (its rows keep "")."""
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(log)")}
        if "received_at" not in columns:
            self._db.execute("ALTER TABLE log ADD COLUMN received_at TEXT NOT NULL DEFAULT ''")
        if "tail" not in columns:
            self._db.execute("ALTER TABLE log ADD COLUMN tail BLOB")
        if "chain" not in columns:
            self._db.execute("ALTER TABLE log ADD COLUMN chain BLOB")
            self._chain_all()
        shots = {row[1] for row in self._db.execute("PRAGMA table_info(snapshots)")}
        if "chain" not in shots:
            self._db.execute("ALTER TABLE snapshots ADD COLUMN chain BLOB")
            self._db.execute("ALTER TABLE snapshots ADD COLUMN tag TEXT NOT NULL DEFAULT ''")

    def _chain_all(self) -> None:
        """Chain a log written before records were chained, once, as it stands (from then on
        changes show; what was changed before cannot be told)."""
        previous = GENESIS
        self._db.execute("BEGIN IMMEDIATE")
        rows = self._db.execute(
            "SELECT position, key, dedupe_id, received_at, payload, tail FROM log ORDER BY position"
        ).fetchall()
        for row in rows:
            previous = link_row(previous, row[:5], tail_of(row[0], row[5]))
            self._db.execute("UPDATE log SET chain = ? WHERE position = ?", (previous, row[0]))
        self._db.execute("COMMIT")

    def _chain_at(self, position: int) -> bytes | None:
        """The chain hash at ``position`` (None: no such record, or none stored): stored at a
        row's last record; inside a tail, linked on from the row before (snapshots are taken
        between appends, at a row's end, so that is for completeness)."""
        row = self._db.execute(
            "SELECT position, key, dedupe_id, received_at, payload, tail, chain FROM log "
            "WHERE position <= ? ORDER BY position DESC LIMIT 1",
            (position,),
        ).fetchone()
        if row is None or row[6] is None:
            return None
        tail = tail_of(row[0], row[5])
        end = row[0] + len(tail)
        if position >= end:
            return bytes(row[6]) if position == end else None
        before = GENESIS if row[0] == 1 else self._chain_at(row[0] - 1)
        return None if before is None else link_row(before, row[:5], tail, until=position)

    def append(self, batch: Sequence[LogRecord]) -> int:
        """Append atomically, each record chained to the one before; DuplicateRecord (and
        nothing appended) if a dedupe id repeats."""
        with self._lock:
            last = self._last
            try:
                self._db.execute("BEGIN IMMEDIATE")
                position = self._head_unlocked()
                rows, last = pack_rows(batch, position, last, pack=self._pack)
                position += len(batch)
                self._db.executemany(
                    "INSERT INTO log (position, key, payload, dedupe_id, received_at, chain, "
                    "tail) VALUES (?, ?, ?, ?, ?, ?, ?)",
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
            self._last = last
            return position

    def verify(self, after: int = 0) -> int:
        """Walk the hash chain from ``after`` (0: the first record) to the head; the number of
        records checked. LogTampered naming the first record that does not hold: its hash, or a
        gap or repeat in the positions (a record removed or inserted)."""
        expected, previous = self._walk_from(after)
        while True:
            rows = self._query(
                "SELECT position, key, dedupe_id, received_at, payload, tail, chain FROM log "
                "WHERE position > ? ORDER BY position LIMIT ?",
                (expected - 1, _READ_CHUNK),
            )
            if not rows:
                return expected - 1 - after
            for row in rows:
                position = row[0]
                if position != expected:
                    raise LogTampered(expected, f"record {expected} is missing")
                tail = tail_of(position, row[5])
                previous = link_row(previous, row[:5], tail)
                if row[6] is None or bytes(row[6]) != previous:
                    where = f" (or one packed with it, to {position + len(tail)})" if tail else ""
                    raise LogTampered(position, f"the record{where} or one before it was altered")
                expected += 1 + len(tail)

    def _walk_from(self, after: int) -> tuple[int, bytes]:
        """Where `verify` starts: the row after ``after`` and the chain hash before it, or the
        row whose tail holds ``after`` (its records up to ``after`` walked again)."""
        with self._lock:
            row = self._db.execute(
                "SELECT position, tail FROM log WHERE position <= ? ORDER BY position DESC LIMIT 1",
                (after,),
            ).fetchone()
        inside = row is not None and after < row[0] + len(tail_of(row[0], row[1]))
        start = row[0] if inside else after + 1
        return start, GENESIS if start == 1 else self._stored_chain(start - 1)

    def _stored_chain(self, position: int) -> bytes:
        """The chain hash at ``position`` (a row's end: `restore` walks on from a snapshot)."""
        with self._lock:
            chain = self._chain_at(position)
        if chain is None:
            raise LogTampered(position, "the record holds no chain hash")
        return chain

    def read(self, after: int = 0) -> Iterator[StoredRecord]:
        """Records after ``after`` in order, fetched in chunks so a long log streams; rows
        expanded into their records (the first row read is the one holding ``after``: its tail
        may hold ``after + 1``; ``after + 1`` itself may not fit SQLite's INTEGER)."""
        first = self._query("SELECT MAX(position) FROM log WHERE position <= ?", (after,))
        position = int(first[0][0] or 1) - 1
        while True:
            rows = self._query(
                "SELECT position, key, payload, received_at, tail FROM log WHERE position > ? "
                "ORDER BY position LIMIT ?",
                (position, _READ_CHUNK),
            )
            if not rows:
                return
            for row in rows:
                yield from expand(row, after)
            position = rows[-1][0]

    def head(self) -> int:
        """The last position, 0 when the log is empty."""
        try:
            with self._lock:
                return self._head_unlocked()
        except sqlite3.Error as exc:
            msg = f"reading {self.path} failed: {exc}"
            raise StoreUnavailable(msg) from exc

    def _query(self, sql: str, args: tuple[object, ...]) -> list[tuple[Any, ...]]:
        """Run a read; a database failure becomes StoreUnavailable (a 503, not a 500)."""
        try:
            with self._lock:
                return list(self._db.execute(sql, args).fetchall())
        except sqlite3.Error as exc:
            msg = f"reading {self.path} failed: {exc}"
            raise StoreUnavailable(msg) from exc

    def _head_unlocked(self) -> int:
        """The last row's position and its tail's length."""
        row = self._db.execute("SELECT position, tail FROM log ORDER BY position DESC LIMIT 1")
        row = row.fetchone()
        return 0 if row is None else int(row[0]) + len(tail_of(int(row[0]), row[1]))

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

    def close(self) -> None:
        """Close the database; appended records stay."""
        with self._lock:
            self._db.close()
