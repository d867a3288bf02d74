"""The SQLite log's file read and changed by hand, beside `SqliteLog`: as an independent reader
(the reconciliation tests' own sums) or an attacker with write access (the tamper tests) would.

A row holds a record and the records packed after it (`streams.adapters.sqlite_rows`); these
helpers see records, at their positions, whichever row holds them. Changes keep the stored chain
hashes as they were (an attacker who does not rewrite them)."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from streams.adapters.sqlite_rows import ENCODE_TAIL, tail_of


def records(db: Path) -> list[tuple[int, bytes]]:
    """Every record as ``(position, payload)``, in position order."""
    with closing(sqlite3.connect(db)) as raw:
        rows = raw.execute("SELECT position, payload, tail FROM log ORDER BY position").fetchall()
    found: list[tuple[int, bytes]] = []
    for position, payload, tail in rows:
        found.append((position, bytes(payload)))
        packed = tail_of(position, tail)
        found.extend((position + 1 + i, bytes(p)) for i, (_, _, p) in enumerate(packed))
    return found


def positions_of(db: Path, fragment: str) -> list[int]:
    """The positions of the records whose payload contains ``fragment``."""
    return [position for position, payload in records(db) if fragment.encode() in payload]


def rewrite(db: Path, position: int, payload: bytes) -> None:
    """Replace the payload of the record at ``position``, a row's own or one packed in it."""
    with closing(sqlite3.connect(db)) as raw:
        head, tail = raw.execute(
            "SELECT position, tail FROM log WHERE position <= ? ORDER BY position DESC LIMIT 1",
            (position,),
        ).fetchone()
        if head == position:
            raw.execute("UPDATE log SET payload = ? WHERE position = ?", (payload, position))
        else:
            packed = tail_of(head, tail)
            key, received, _ = packed[position - head - 1]
            packed[position - head - 1] = (key, received, payload)
            raw.execute("UPDATE log SET tail = ? WHERE position = ?", (ENCODE_TAIL(packed), head))
        raw.commit()


def set_tail(db: Path, head: int, packed: list[tuple[str, str, bytes]]) -> None:
    """Store ``packed`` as the tail of the row at ``head`` (its chain hash left as it was)."""
    blob = ENCODE_TAIL(packed) if packed else 0
    with closing(sqlite3.connect(db)) as raw:
        raw.execute("UPDATE log SET tail = ? WHERE position = ?", (blob, head))
        raw.commit()


def tails(db: Path) -> list[tuple[int, list[tuple[str, str, bytes]]]]:
    """The rows that hold packed records, as ``(head position, tail records)``."""
    with closing(sqlite3.connect(db)) as raw:
        rows = raw.execute(
            "SELECT position, tail FROM log WHERE typeof(tail) = 'blob' ORDER BY position"
        ).fetchall()
    return [(position, tail_of(position, tail)) for position, tail in rows]
