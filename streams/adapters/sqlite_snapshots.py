"""The snapshot half of `streams.adapters.sqlite.SqliteLog`: the ``snapshots`` table.

A snapshot is kept with its checksum, the log's chain hash at its position and, with a key, an
HMAC tag over both (`streams.adapters.chain`); see `streams.adapters.sqlite` for why. Split from
the log's half only to keep each module short: `SqliteLog` is the one class that uses it.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from pathlib import Path
from typing import Any

from controller.model.errors import CorruptSnapshot, LogTampered, StoreUnavailable
from streams.adapters.chain import GENESIS, snapshot_tag, tag_holds

_KEEP_SNAPSHOTS = 3


class SqliteSnapshots:
    """`streams.ports.SnapshotStore` over the database `SqliteLog` opens (its connection, lock,
    key, and its chain hash at a position)."""

    path: Path
    _db: sqlite3.Connection
    _lock: threading.Lock
    _key: bytes | None

    def _chain_at(self, position: int) -> bytes | None:
        raise NotImplementedError  # the log's: `SqliteLog._chain_at`

    def _query(self, sql: str, args: tuple[object, ...]) -> list[tuple[Any, ...]]:
        raise NotImplementedError  # the log's: `SqliteLog._query`

    def save(self, position: int, blob: bytes) -> None:
        """Keep a snapshot with its checksum, the chain hash at its position and (with a key)
        its tag; only the newest few are kept."""
        checksum = hashlib.sha256(blob).hexdigest()
        with self._lock:
            chain = self._chain_at(position) or GENESIS
            tag = snapshot_tag(self._key, position, chain, blob) if self._key else ""
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute(
                "INSERT OR REPLACE INTO snapshots (position, blob, checksum, chain, tag) "
                "VALUES (?, ?, ?, ?, ?)",
                (position, blob, checksum, chain, tag),
            )
            self._db.execute(
                "DELETE FROM snapshots WHERE position NOT IN "
                "(SELECT position FROM snapshots ORDER BY position DESC LIMIT ?)",
                (_KEEP_SNAPSHOTS,),
            )
            self._db.execute("COMMIT")

    def latest(self) -> tuple[int, bytes] | None:
        """The newest snapshot; CorruptSnapshot if its checksum or tag does not hold or there is
        no key (rebuild from the log); LogTampered if its tag holds but the log's chain hash at
        its position is another (the log was rewritten or cut beneath it); StoreUnavailable if
        the database cannot be read (start-up reads this first: one line, never a traceback)."""
        try:
            with self._lock:
                row = self._db.execute(
                    "SELECT position, blob, checksum, chain, tag FROM snapshots "
                    "ORDER BY position DESC LIMIT 1"
                ).fetchone()
                logged = None if row is None else self._chain_at(int(row[0]))
        except sqlite3.Error as exc:
            msg = f"reading the snapshots in {self.path} failed: {exc}"
            raise StoreUnavailable(msg) from exc
        if row is None:
            return None
        position, blob, chain = int(row[0]), bytes(row[1]), bytes(row[3] or b"")
        where = f"snapshot at position {position} in {self.path}"
        # A tag that holds covers the same bytes as the checksum: the checksum (another pass
        # over a 63 MB blob at 10,000 tables) is read only to say why a snapshot is refused.
        if self._key is None or not tag_holds(self._key, position, chain, blob, str(row[4])):
            if hashlib.sha256(blob).hexdigest() != row[2]:
                msg = f"{where} fails its checksum"
            elif self._key is None:
                msg = f"{where} is not trusted: no snapshot key was given to authenticate it"
            else:
                msg = f"{where} fails its authentication (forged, or made under another key)"
            raise CorruptSnapshot(msg)
        if logged != chain:  # an authentic snapshot: the log beneath it was rewritten or cut
            raise LogTampered(position, f"the log differs from what {where} authenticates")
        return position, blob

    def snapshots(self) -> list[tuple[int, bytes, bool]]:
        """Every kept snapshot as (position, blob, whether it holds): its checksum and the chain
        hash it names, and its tag when there is a key (without one the tag is not checked)."""
        rows = self._query("SELECT position, blob, checksum, chain, tag FROM snapshots", ())
        out = []
        for position, blob, checksum, chain, tag in sorted(rows):
            with self._lock:
                logged = self._chain_at(int(position))
            data, named = bytes(blob), bytes(chain or b"")
            tagged = self._key is None or tag_holds(self._key, int(position), named, data, str(tag))
            holds = hashlib.sha256(data).hexdigest() == checksum and tagged and logged == named
            out.append((int(position), data, holds))
        return out
