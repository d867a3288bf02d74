"""Issue 14: the records packed into a row's tail are chained one by one like any other.

A tail record changed, dropped, added, reordered or made unreadable behind the controller's back
stops the start (after the snapshot) or fails the full check (before it), naming the row that
holds it. The floor (`conftest.floor`): the meters seeded in row 1's tail, a contribution packed
after each of rows 10 and 17, a hit's award after row 20 (the last); the snapshot at 13."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from controller.model.errors import LogTampered
from streams.adapters.sqlite import SqliteLog
from tests.streams.adapters.raw_log import records, rewrite, set_tail, tails
from tests.streams.embedded.tamper_support import sql, started


def _packed(db: Path, head: int) -> list[tuple[str, str, bytes]]:
    return dict(tails(db))[head]


def _altered(db: Path) -> int:
    """A byte added to the contribution packed after row 17 (still valid JSON)."""
    rewrite(db, 18, dict(records(db))[18] + b" ")
    return 17


def _dropped(db: Path) -> int:
    set_tail(db, 20, _packed(db, 20)[:-1])
    return 20


def _added(db: Path) -> int:
    packed = _packed(db, 20)
    set_tail(db, 20, [*packed, packed[-1]])
    return 20


def _unreadable(db: Path) -> int:
    sql(db, "UPDATE log SET tail = x'c1' WHERE position = 17")
    return 17


@pytest.mark.parametrize("change", [_altered, _dropped, _added, _unreadable])
def test_a_changed_tail_after_the_snapshot_stops_the_start_naming_its_row(
    floor: tuple[Path, list[dict[str, object]]], key: bytes, change: Callable[[Path], int]
) -> None:
    db, _ = floor
    assert {head for head, _ in tails(db)} == {1, 10, 17, 20}
    row = change(db)
    with pytest.raises(LogTampered) as raised:
        started(db, key)
    assert raised.value.position == row


def _reordered(db: Path) -> None:
    first, second, *rest = _packed(db, 1)
    set_tail(db, 1, [second, first, *rest])


def _moved(db: Path) -> None:
    """Row 10's contribution taken out of its tail and put back as a row of its own."""
    [(key, received, payload)] = _packed(db, 10)
    set_tail(db, 10, [])
    sql(
        db,
        "INSERT INTO log (position, key, payload, received_at) VALUES (11, ?, ?, ?)",
        key,
        payload,
        received,
    )


def _seed_altered(db: Path) -> None:
    """The five-of-six meter's seed (packed in row 1, at 5) raised from $10,000 to $90,000."""
    seed = dict(records(db))[5]
    assert b'"meter_id":"tcp-five-of-six"' in seed
    rewrite(db, 5, seed.replace(b"1000000000000", b"9000000000000"))


@pytest.mark.parametrize("change", [_reordered, _moved, _seed_altered])
def test_a_changed_tail_before_the_snapshot_fails_the_full_check(
    floor: tuple[Path, list[dict[str, object]]], change: Callable[[Path], None]
) -> None:
    db, _ = floor
    log = SqliteLog(db)
    try:
        whole = list(log.read())
        assert log.verify() == len(whole) == 21
        change(db)
        with pytest.raises(LogTampered):
            log.verify()
    finally:
        log.close()
