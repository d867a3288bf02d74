"""Issue 14's restart goal and issue 15, finding 7: start-up walks the hash chain only after the
snapshot it restores from; the full check (chain from the first record, the whole log refolded)
starts in the background right after start-up, and a break it finds stops every write, fails
/readyz with the position and is logged.

The issue's "a tampered log record before the snapshot started silently" used to be refused at
start; here it is caught by the background check within a bounded wait, while the meters served
meanwhile come from the authenticated snapshot and the verified tail (so they are the true ones).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import msgspec
import pytest
from starlette.testclient import TestClient

from controller.model.state import TableState
from controller.model.views import meters_view
from streams.adapters.sqlite import SqliteLog
from streams.embedded import integrity
from streams.embedded.engine import EmbeddedController, Outcome
from streams.embedded.self_check import run_self_check
from streams.embedded.snapshot import decode_table
from streams.http.app import create_app
from tests.streams.embedded.tamper_support import alter, position_of, sql, started
from tests.streams.http.support import auth, full_round, token_store, with_idempotency_keys

Floor = tuple[Path, list[dict[str, object]]]
WAIT_SECONDS = 20.0


def _snapshot_position(controller: EmbeddedController) -> int:
    assert isinstance(controller.log, SqliteLog)
    [(position, _, holds)] = controller.log.snapshots()
    assert holds
    return position


@contextmanager
def _background_check(controller: EmbeddedController) -> Iterator[threading.Thread]:
    """`run_self_check` as `jackpot serve` starts it (an hour between checks): the first one
    runs at once."""
    stop = threading.Event()
    checker = threading.Thread(target=run_self_check, args=(controller, controller.log, 3600, stop))
    checker.start()
    try:
        yield checker
    finally:
        stop.set()
        checker.join(timeout=WAIT_SECONDS)


def _wait_for(controller: EmbeddedController, state: str) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while controller.full_check.state != state and time.monotonic() < deadline:
        time.sleep(0.01)
    assert controller.full_check.state == state, controller.full_check


def test_a_restart_walks_only_the_chain_after_its_snapshot(floor: Floor, key: bytes) -> None:
    db, _ = floor
    controller = started(db, key)
    try:
        head, at = controller.log.head(), _snapshot_position(controller)
        assert 0 < at < head
        assert controller.restore_walked == head - at
    finally:
        controller.log.close()
    sql(db, "DELETE FROM snapshots")  # no snapshot: the whole chain, as before
    controller = started(db, key)
    try:
        assert controller.restore_walked == head
    finally:
        controller.log.close()


@pytest.mark.parametrize("change", ["altered", "removed"])
def test_a_record_changed_before_the_snapshot_is_caught_by_the_background_check(
    floor: Floor, key: bytes, change: str, caplog: pytest.LogCaptureFixture
) -> None:
    db, expected = floor
    position = position_of(db, "wager_placed", before_snapshot=True)
    if change == "altered":
        alter(db, position)
    else:
        sql(db, "DELETE FROM log WHERE position = ?", position)
    controller = started(db, key)  # start-up itself does not read it: it starts
    try:
        assert meters_view(controller.state) == expected  # snapshot + verified tail: the truth
        client = with_idempotency_keys(TestClient(create_app(controller, token_store())))
        with client, caplog.at_level(logging.ERROR), _background_check(controller):
            _wait_for(controller, "failed")
            ready = client.get("/readyz")
            head = controller.log.head()
            posted = client.post(
                "/v1/events", json=full_round(table="tcp-2"), headers=auth("table_device")
            )
        assert ready.status_code == 503
        assert "integrity self-check failed" in ready.json()["reason"]
        check = ready.json()["full_check"]
        assert (check["state"], check["position"]) == ("failed", position)
        assert f"hash chain at position {position}" in check["reason"]
        assert posted.status_code == 503
        assert controller.log.head() == head
        assert f"integrity self-check failed at position {position}" in caplog.text
    finally:
        controller.log.close()


def test_the_controller_serves_while_the_check_runs_and_says_when_it_passed(
    floor: Floor, key: bytes
) -> None:
    db, _ = floor
    controller = started(db, key)
    try:
        client = with_idempotency_keys(TestClient(create_app(controller, token_store())))
        with client:
            before = client.get("/readyz").json()
            assert before["status"] == "ready"
            assert before["full_check"]["state"] == "not_started"
            with _background_check(controller):
                _wait_for(controller, "passed")
            checked = controller.log.head()
            posted = client.post(
                "/v1/events", json=full_round(table="tcp-2"), headers=auth("table_device")
            )
            after = client.get("/readyz").json()
        assert posted.status_code == 200
        assert after["status"] == "ready"
        assert after["full_check"]["state"] == "passed"
        assert after["full_check"]["position"] == checked < controller.log.head()
        assert controller.integrity_fault == ""
    finally:
        controller.log.close()


def test_the_check_decodes_the_restored_tables_without_holding_the_writer(
    tmp_path: Path, key: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a restart the snapshot's tables are decoded when first used; the check reads them
    all, outside the engine lock, so a write meanwhile is not held up (at 10,000 tables ~0.6 s)."""
    db = tmp_path / "jackpot.db"
    controller = started(db, key)
    for table in ("tcp-1", "tcp-3"):
        controller.submit(full_round(table=table))
    controller.snapshot()
    controller.log.close()
    decoding, release = threading.Event(), threading.Event()

    def held_decode(raw: bytes | msgspec.Raw) -> TableState:
        decoding.set()
        assert release.wait(WAIT_SECONDS)
        return decode_table(raw)

    monkeypatch.setattr(integrity, "decode_table", held_decode)
    controller = started(db, key)  # tcp-1 and tcp-3 deferred: nothing after the snapshot
    a_round = full_round(table="tcp-2")
    try:
        reader = threading.Thread(target=controller.view_unlocked)
        reader.start()
        assert decoding.wait(WAIT_SECONDS)  # the reader is inside a table's decode
        outcomes: list[Outcome] = []
        writer = threading.Thread(target=lambda: outcomes.extend(controller.submit(a_round)))
        writer.start()  # the write needs the engine lock
        writer.join(WAIT_SECONDS / 4)
        written = not writer.is_alive()
        release.set()
        writer.join(WAIT_SECONDS)
        assert written, "the write waited for the check's decode"
        assert {o.status for o in outcomes} == {"accepted"}
        reader.join(WAIT_SECONDS)
        assert controller.view_unlocked() == controller.view()
    finally:
        release.set()
        controller.log.close()


def test_readyz_after_a_restart_decodes_no_table(
    floor: Floor, key: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A readiness probe right after a restart answers from the configuration alone: reading the
    whole state would decode every table the snapshot holds (~0.6 s at 10,000 tables)."""
    db, _ = floor
    controller = started(db, key)
    try:
        controller.submit(full_round(table="tcp-3"))
        controller.snapshot()  # at the head: tcp-1 and tcp-3 both deferred on the next start
    finally:
        controller.log.close()
    decoded: list[object] = []

    def counted_decode(raw: bytes | msgspec.Raw) -> TableState:
        decoded.append(raw)
        return decode_table(raw)

    monkeypatch.setattr(integrity, "decode_table", counted_decode)
    controller = started(db, key)
    try:
        with TestClient(create_app(controller, token_store())) as client:
            ready = client.get("/readyz")
        assert ready.json()["status"] == "ready"
        assert decoded == []
        controller.view()  # the check that it could: both tables were still deferred
        assert len(decoded) == 2
    finally:
        controller.log.close()
