"""Issue 15, finding 6: the controller's clock, not a device's, places records in time.

Every log record carries the controller's receive time; gaming days go by it; a table event dated
more than the configured skew ahead of it is refused; a report that left records out exits
non-zero; a gaming day the calendar cannot hold is one line, not a traceback.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from controller.model.events import EventRejected
from streams.adapters.sqlite import SqliteLog
from streams.cli import reconcile as reconcile_cli
from streams.codec import decode
from streams.embedded.engine import EmbeddedController
from tests.streams.adapters.raw_log import set_tail, tails
from tests.streams.http.support import CONFIG, event, full_round, opening

DAY = ["--day-starts", "06:00", "--utc-offset=+00:00"]


class Clock:
    """The controller's wall clock, set by the test."""

    def __init__(self, now: str) -> None:
        self.now = now

    def __call__(self) -> str:
        return self.now


def _controller(db: Path, clock: Clock) -> tuple[EmbeddedController, SqliteLog]:
    log = SqliteLog(db)
    controller = EmbeddedController(log, log, clock=clock)
    controller.start(CONFIG.read_text(encoding="utf-8"), str(CONFIG))
    return controller, log


def _reconcile(db: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser()
    reconcile_cli.add_parser(parser.add_subparsers())
    args = parser.parse_args(["reconcile", "--db", str(db), "--format", "json", *argv])
    code: int = reconcile_cli.handle(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_every_record_carries_the_controllers_receive_time(tmp_path: Path) -> None:
    clock = Clock("2026-11-29T16:30:00.000Z")
    controller, log = _controller(tmp_path / "j.db", clock)
    try:
        started = log.head()  # the configuration and its seeded meters
        clock.now = "2026-11-29T16:31:00.000Z"
        controller.submit(full_round())
        controller.submit(["not an event"])
        stamps = [record.received_at for record in log.read()]
    finally:
        log.close()
    assert set(stamps[:started]) == {"2026-11-29T16:30:00.000Z"}
    assert set(stamps[started:]) == {"2026-11-29T16:31:00.000Z"}
    assert len(stamps) > started + 6


@pytest.mark.parametrize(
    ("occurred_at", "refused"),
    [
        ("9999-12-31T23:59:59Z", True),
        ("2026-11-29T16:35:01Z", True),  # 301 s ahead, the default skew is 300 s
        ("2026-11-29T16:35:00Z", False),
        ("2026-11-29T11:35:00-05:00", False),  # the same instant, another offset
        ("0001-01-01T00:00:00Z", False),  # a late device is not refused for it
    ],
)
def test_an_event_dated_ahead_of_the_controller_is_refused(
    tmp_path: Path, occurred_at: str, refused: bool
) -> None:
    controller, log = _controller(tmp_path / "j.db", Clock("2026-11-29T16:30:00.000Z"))
    try:
        raw = {**event(1, "round_opened", game="three_card_poker"), "occurred_at": occurred_at}
        [outcome] = controller.submit([raw])
    finally:
        log.close()
    assert (outcome.status == "rejected") is refused, outcome
    if refused:
        assert "ahead of the controller's clock" in outcome.reason


def test_a_gaming_day_goes_by_the_receive_time_not_the_device(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A device whose clock says 05:59 the next morning: its wager still belongs to the day the
    controller received it in (2026-11-29, from 06:00 UTC)."""
    db = tmp_path / "j.db"
    clock = Clock("2026-11-29T16:30:00.000Z")
    controller, log = _controller(db, clock)
    try:
        wrong_clock = [{**e, "occurred_at": "2026-11-30T05:59:00Z"} for e in opening()]
        clock.now = "2026-11-30T05:58:00.000Z"  # the device is one minute ahead: within skew
        assert {o.status for o in controller.submit(wrong_clock)} == {"accepted"}
        clock.now = "2026-11-30T06:30:00.000Z"
        late = opening("tcp-2", "R1")
        assert {o.status for o in controller.submit(late)} == {"accepted"}
    finally:
        log.close()
    code, out, _ = _reconcile(db, capsys, "--gaming-day", "2026-11-29", *DAY)
    assert code == 0
    meters = {m["meter_id"]: m for m in json.loads(out)["meters"]}
    assert meters["tcp-progressive"]["contributions"]["count"] == 1  # tcp-1's, not tcp-2's


def test_a_report_that_left_records_out_exits_non_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A log written before receive times were kept: a refused event dated 9999 closed the day
    early and the records after it were left out; the report must say so and exit 1."""
    db = tmp_path / "j.db"
    controller, log = _controller(db, Clock("2026-11-29T16:30:00.000Z"))
    try:
        controller.submit(full_round())
        controller.record_rejection("{}", "test")
        controller.submit(full_round(table="tcp-2"))
    finally:
        log.close()
    with closing(sqlite3.connect(db)) as raw:  # as an older version wrote it: no receive times
        raw.execute("UPDATE log SET received_at = ''")
        position = raw.execute(
            "SELECT position FROM log WHERE CAST(payload AS TEXT) LIKE '%event_rejected%'"
        ).fetchone()[0]
        payload = raw.execute("SELECT payload FROM log WHERE position = ?", (position,)).fetchone()
        rejected = decode(bytes(payload[0]))
        assert isinstance(rejected, EventRejected)
        text = bytes(payload[0]).replace(rejected.occurred_at.encode(), b"9999-12-31T00:00:00Z")
        raw.execute("UPDATE log SET payload = ? WHERE position = ?", (text, position))
        raw.commit()
    for head, packed in tails(db):  # the records packed in a row too (issue 14)
        set_tail(db, head, [(key, "", payload) for key, _, payload in packed])
    code, out, _ = _reconcile(db, capsys, "--gaming-day", "2026-11-29", *DAY)
    document = json.loads(out)
    assert code == 1
    assert document["ok"] is False
    assert any(f["kind"] == "left_out" for f in document["findings"])


def test_a_gaming_day_past_the_calendar_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "j.db"
    _, log = _controller(db, Clock("2026-11-29T16:30:00.000Z"))
    log.close()
    code, out, err = _reconcile(db, capsys, "--gaming-day", "9999-12-31")
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert "9999-12-31" in err
    assert "Traceback" not in err
