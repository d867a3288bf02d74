"""Issue 14: a row holds a record and the records without a dedupe id appended right after it;
nothing above the adapter can tell (`streams.adapters.sqlite_rows`).

The same appends into a packed log and into one written one record a row (``pack=False``, as
before) read back identical from every position, the head, the chain hash at every position
and the verification agree; a log written before the change (no ``tail`` column) opens, reads,
appends (packed from then on) and verifies. Both ways a tail is chained and packed (Python, and
the extension's ``src/tail.rs``)."""

from __future__ import annotations

import hashlib
import sqlite3
from contextlib import closing
from functools import partial
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.model.errors import DuplicateRecord
from streams import native
from streams.adapters import sqlite_rows
from streams.adapters.chain import GENESIS, link
from streams.adapters.sqlite import SqliteLog
from streams.ports import LogRecord
from tests.streams.adapters.raw_log import tails

_record = st.builds(
    LogRecord,
    key=st.sampled_from(["T1", "T2", "meter-a", "floor"]),
    payload=st.binary(max_size=12),
    dedupe_id=st.one_of(st.just(""), st.just(""), st.uuids().map(str)),
    received_at=st.sampled_from(["", "2026-12-03T10:00:00Z", "2026-12-03T10:00:01.5Z"]),
)
_batches = st.lists(st.lists(_record, min_size=1, max_size=8), min_size=1, max_size=6)


def _log(folder: Path, name: str, *, pack: bool) -> SqliteLog:
    path = folder / name
    path.unlink(missing_ok=True)
    for extra in ("-wal", "-shm"):
        Path(f"{path}{extra}").unlink(missing_ok=True)
    return SqliteLog(path, pack=pack)


_BUILT = native.current_build()


@pytest.fixture(params=["python", "native"])
def tail_linker(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each way a row's tail is chained and packed (`sqlite_rows.link_tail`): the Python path
    (a process without the extension) and the extension's (``src/tail.rs``), whichever this
    process would run."""
    if request.param == "python":
        monkeypatch.setattr(sqlite_rows, "link_tail", sqlite_rows._link_tail)
    elif _BUILT is None:
        pytest.skip("no current native build (make fast)")
    else:
        monkeypatch.setattr(sqlite_rows, "link_tail", partial(_BUILT.link_tail, hashlib.sha256))
    return str(request.param)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(batches=_batches, data=st.data())
def test_packed_and_unpacked_logs_read_back_identical(
    tmp_path: Path, tail_linker: str, batches: list[list[LogRecord]], data: st.DataObject
) -> None:
    packed, plain = _log(tmp_path, "packed.db", pack=True), _log(tmp_path, "plain.db", pack=False)
    try:
        for batch in batches:
            assert packed.append(batch) == plain.append(batch)
        head = plain.head()
        assert packed.head() == head == sum(map(len, batches))
        for after in range(head + 2):  # every position, inside a tail or not, and past the head
            assert list(packed.read(after)) == list(plain.read(after))
        assert [packed._chain_at(p) for p in range(head + 2)] == [
            plain._chain_at(p) for p in range(head + 2)
        ]
        after = data.draw(st.integers(0, head))
        assert packed.verify(after) == plain.verify(after) == head - after
        derived = sum(1 for batch in batches for record in batch[1:] if not record.dedupe_id)
        assert sum(len(tail) for _, tail in tails(packed.path)) == derived  # packing happened
    finally:
        packed.close()
        plain.close()


def test_a_duplicate_in_a_packed_batch_appends_nothing(tmp_path: Path) -> None:
    log = SqliteLog(tmp_path / "log.db")
    try:
        log.append([LogRecord("T1", b"a", "e1"), LogRecord("m", b"d")])
        batch = [LogRecord("T1", b"b", "e2"), LogRecord("m", b"d2"), LogRecord("T1", b"c", "e1")]
        with pytest.raises(DuplicateRecord):
            log.append(batch)
        assert [(r.position, r.payload) for r in log.read()] == [(1, b"a"), (2, b"d")]
        assert log.append([LogRecord("m", b"x")]) == 3  # a batch of derived records: one row
        assert log.head() == 3
        assert log.verify() == 3
        assert list(log.read(2**63 - 1)) == []  # the last INTEGER: one more does not fit
    finally:
        log.close()


_OLD_SCHEMA = """
CREATE TABLE log (position INTEGER PRIMARY KEY, key TEXT NOT NULL, payload BLOB NOT NULL,
    dedupe_id TEXT UNIQUE, received_at TEXT NOT NULL DEFAULT '', chain BLOB);
CREATE TABLE snapshots (position INTEGER PRIMARY KEY, blob BLOB NOT NULL, checksum TEXT NOT NULL,
    chain BLOB, tag TEXT NOT NULL DEFAULT '');
"""


def _old_log(path: Path, records: list[LogRecord]) -> None:
    """A log as written before issue 14: one record a row, no ``tail`` column."""
    last = GENESIS
    with closing(sqlite3.connect(path)) as raw:
        raw.executescript(_OLD_SCHEMA)
        for position, r in enumerate(records, start=1):
            last = link(last, position, (r.key, r.dedupe_id, r.received_at), r.payload)
            raw.execute(
                "INSERT INTO log VALUES (?, ?, ?, ?, ?, ?)",
                (position, r.key, r.payload, r.dedupe_id or None, r.received_at, last),
            )
        raw.commit()


def test_a_log_written_before_packing_reads_appends_and_verifies(tmp_path: Path) -> None:
    old = [LogRecord("T1", b"w", "e1", "t"), LogRecord("m", b"c", "", "t"), LogRecord("m", b"f")]
    new = [LogRecord("T1", b"s", "e2", "u"), LogRecord("m", b"c2", "", "u")]
    _old_log(tmp_path / "old.db", old)
    log, plain = SqliteLog(tmp_path / "old.db"), SqliteLog(tmp_path / "plain.db", pack=False)
    try:
        plain.append(old)
        assert [list(log.read(a)) for a in range(5)] == [list(plain.read(a)) for a in range(5)]
        assert log.head() == 3
        assert log.append(new) == plain.append(new) == 5
        assert list(log.read()) == list(plain.read())
        assert log.verify() == 5
        assert tails(log.path) == [(4, [("m", "u", b"c2")])]  # old rows as they were
    finally:
        log.close()
        plain.close()
