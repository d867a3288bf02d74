"""Loss of communication (issue 7): a table silent longer than the configured limit, or not heard
from since the controller started, has its progressives reported unplayable until it speaks again;
the meters never move because of an outage or a recovery.

Time is an injected monotonic clock (`FakeClock`): nothing here sleeps. Expectations are worked by
hand from the example floor (tables tcp-1..tcp-6 feed the four $1 meters, tcp-7 and tcp-8 the $5
progressive ``tcp-progressive-5``) and a silence limit of 30 s.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from controller.config.floor import load_floor_config
from streams.adapters.memory import MemoryLog
from streams.adapters.sqlite import SqliteLog
from streams.embedded.engine import EmbeddedController
from streams.liveness.tracker import (
    HEARTBEAT_NOTED,
    LivenessTracker,
    batch_playability,
    meters_down,
    playability,
)
from tests.streams.http.support import AKQ_SPADES, CONFIG, full_round

FLOOR = load_floor_config(CONFIG.read_text(encoding="utf-8"), str(CONFIG))
TABLES = tuple(FLOOR.tables)
START = datetime(2026, 11, 29, 16, 0, 0, tzinfo=UTC)


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def heartbeat(table: str, n: int = 1) -> dict[str, object]:
    return {
        "event_id": f"hb-{table}-{n}",
        "type": "heartbeat",
        "table_id": table,
        "occurred_at": "2026-11-29T16:00:00Z",
        "schema_version": 2,
    }


def tracker(clock: FakeClock) -> LivenessTracker:
    return LivenessTracker(clock, wall=lambda: START)


# --- the tracker ---------------------------------------------------------------------------------


def test_every_table_is_unplayable_until_first_heard_and_the_reason_says_so() -> None:
    clock = FakeClock()
    live = tracker(clock)
    statuses = live.statuses(FLOOR)
    assert list(statuses) == list(TABLES)
    for status in statuses.values():
        assert not status.playable
        assert status.silent_seconds is None
        assert status.reason == (
            "not heard from since the controller started at 2026-11-29T16:00:00.000Z"
        )
    assert meters_down(FLOOR, statuses)["tcp-progressive-5"] == ["tcp-7", "tcp-8"]


def test_a_table_is_playable_up_to_the_limit_and_unplayable_after_it() -> None:
    clock = FakeClock()
    live = tracker(clock)
    live.heard(["tcp-1"])
    clock.advance(30)  # exactly the limit: still playable
    assert live.status("tcp-1", 30).playable
    clock.advance(12.5)
    status = live.status("tcp-1", 30)
    assert not status.playable
    assert status.silent_seconds == 42.5
    assert status.reason == "table feed silent for 42 s (limit 30 s)"
    # it became unplayable 30 s after it was last heard, 12.5 s before the wall clock's "now"
    assert status.since == "2026-11-29T15:59:47.500Z"
    live.heard(["tcp-1"])
    assert live.status("tcp-1", 30).row() == {"status": "playable", "silent_seconds": 0.0}


def test_the_limit_comes_from_the_configuration() -> None:
    text = CONFIG.read_text(encoding="utf-8").replace(
        "table_silence_limit_seconds = 30", "table_silence_limit_seconds = 5"
    )
    floor = load_floor_config(text, "five.toml")
    clock = FakeClock()
    live = tracker(clock)
    live.heard(TABLES)
    clock.advance(6)
    assert not any(s.playable for s in live.statuses(floor).values())
    assert all(s.playable for s in live.statuses(FLOOR).values())
    assert playability(floor, live)["limit_seconds"] == 5


def test_a_meter_is_not_in_play_only_when_every_linked_table_is_down() -> None:
    clock = FakeClock()
    live = tracker(clock)
    live.heard(["tcp-1", "tcp-2", "tcp-3", "tcp-4", "tcp-5", "tcp-6", "tcp-7"])
    report = playability(FLOOR, live)
    meters = report["meters"]
    assert isinstance(meters, dict)
    assert meters["tcp-progressive-5"] == {
        "status": "in_play",
        "tables": ["tcp-7", "tcp-8"],
        "unplayable_at": ["tcp-8"],
    }
    assert meters["tcp-progressive"]["status"] == "in_play"
    clock.advance(31)
    live.heard(["tcp-8"])
    meters = playability(FLOOR, live)["meters"]
    assert isinstance(meters, dict)
    assert meters["tcp-progressive"] == {
        "status": "unplayable",
        "tables": ["tcp-1", "tcp-2", "tcp-3", "tcp-4", "tcp-5", "tcp-6"],
        "unplayable_at": ["tcp-1", "tcp-2", "tcp-3", "tcp-4", "tcp-5", "tcp-6"],
    }
    assert meters["tcp-progressive-5"]["unplayable_at"] == ["tcp-7"]


def test_the_batch_answer_names_the_batch_tables_and_every_meter_down_anywhere() -> None:
    clock = FakeClock()
    live = tracker(clock)
    live.heard(["tcp-7", "tcp-1"])
    answer = batch_playability(FLOOR, live, ["tcp-7", "tcp-7", "nope"])
    assert answer["tables"] == {
        "tcp-7": {"status": "playable", "silent_seconds": 0.0, "meters": ["tcp-progressive-5"]}
    }
    down = answer["unplayable_meters"]
    assert isinstance(down, dict)
    assert down["tcp-progressive-5"] == {"tables": 1, "at": ["tcp-8"]}
    assert down["tcp-progressive"] == {
        "tables": 5,
        "at": ["tcp-2", "tcp-3", "tcp-4", "tcp-5", "tcp-6"],
    }
    assert list(down) == sorted(down)  # by meter id
    assert answer["unplayable_meters_total"] == 5
    # hearing from a listed table shows at once (the summary cache is dropped)
    live.heard(["tcp-8"])
    down = batch_playability(FLOOR, live, [])["unplayable_meters"]
    assert isinstance(down, dict)
    assert "tcp-progressive-5" not in down


# --- the engine: heartbeats are noted, never logged; meters never move -------------------------


def meters_bytes(controller: EmbeddedController) -> bytes:
    """The meters and their whole state, byte for byte."""
    return repr(sorted(controller.state.meters.items())).encode()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def started(log: MemoryLog | SqliteLog, clock: FakeClock) -> EmbeddedController:
    controller = EmbeddedController(log, log, monotonic=clock)
    controller.liveness = LivenessTracker(clock, wall=lambda: START)
    outcome = controller.start(CONFIG.read_text(encoding="utf-8"), str(CONFIG))
    assert outcome.status in ("accepted", "duplicate"), outcome
    return controller


def test_a_heartbeat_is_accepted_and_noted_but_never_logged(clock: FakeClock) -> None:
    log = MemoryLog()
    controller = started(log, clock)
    head = log.head()
    (outcome,) = controller.submit([heartbeat("tcp-3")])
    assert (outcome.status, outcome.reason) == ("accepted", HEARTBEAT_NOTED)
    assert log.head() == head
    assert controller.liveness.status("tcp-3", 30).playable
    # the same heartbeat again is simply noted again (no idempotency needed: it changes nothing)
    assert controller.submit([heartbeat("tcp-3")])[0].status == "accepted"
    assert log.head() == head


def test_a_heartbeat_for_an_unknown_table_or_a_bad_one_is_dead_lettered(clock: FakeClock) -> None:
    log = MemoryLog()
    controller = started(log, clock)
    unknown, bad = controller.submit([heartbeat("tcp-99"), heartbeat("tcp-1") | {"seq": 4}])
    assert unknown.status == "rejected"
    assert unknown.reason == (
        "unknown table 'tcp-99': a heartbeat names a table of the floor configuration "
        "(8 tables); check the device's table id"
    )
    assert bad.status == "rejected"
    assert bad.reason.startswith("heartbeat.seq: unknown field")
    records = [r.payload for r in log.read(after=0)]
    assert sum(b'"type":"event_rejected"' in payload for payload in records) == 2
    assert not controller.liveness.status("tcp-1", 30).playable


def test_an_accepted_event_is_a_sign_of_life_and_a_rejected_one_is_not(clock: FakeClock) -> None:
    controller = started(MemoryLog(), clock)
    outcomes = controller.submit(full_round(table="tcp-2"))
    assert {o.status for o in outcomes} == {"accepted"}
    assert controller.liveness.status("tcp-2", 30).playable
    rejected = controller.submit([full_round(table="tcp-4")[1]])  # a wager with no round open
    assert rejected[0].status == "rejected"
    assert not controller.liveness.status("tcp-4", 30).playable


def test_an_outage_and_its_recovery_leave_the_meters_byte_identical(clock: FakeClock) -> None:
    controller = started(MemoryLog(), clock)
    controller.submit(full_round(AKQ_SPADES, table="tcp-1"))
    controller.submit([heartbeat(t) for t in TABLES])
    before, position = meters_bytes(controller), controller.position
    assert all(s.playable for s in controller.liveness.statuses(controller.state.config).values())
    clock.advance(45)  # every table silent past the limit
    during = controller.liveness.statuses(controller.state.config)
    assert {s.playable for s in during.values()} == {False}
    assert meters_bytes(controller) == before
    controller.submit([heartbeat("tcp-1", 2)])
    after = controller.liveness.statuses(controller.state.config)
    assert after["tcp-1"].playable
    assert not after["tcp-2"].playable
    assert meters_bytes(controller) == before
    assert controller.position == position  # nothing was logged by the outage or the heartbeat


def test_a_restart_longer_than_the_limit_rebuilds_the_meters_and_knows_no_table(
    tmp_path: Path, clock: FakeClock
) -> None:
    log = SqliteLog(tmp_path / "jackpot.db")
    try:
        first = started(log, clock)
        first.submit(full_round(("Ks", "Kd", "Kh"), table="tcp-5"))
        first.submit([heartbeat(t) for t in TABLES])
        before = meters_bytes(first)
    finally:
        log.close()
    clock.advance(120)  # the service was down for two minutes
    log = SqliteLog(tmp_path / "jackpot.db")
    try:
        second = started(log, clock)
        assert meters_bytes(second) == before
        statuses = second.liveness.statuses(second.state.config)
        assert all(not s.playable and s.silent_seconds is None for s in statuses.values())
        second.submit([heartbeat("tcp-5")])
        assert second.liveness.status("tcp-5", 30).playable
        assert meters_bytes(second) == before
    finally:
        log.close()


def test_the_batch_answer_stays_compact_on_a_big_floor() -> None:
    """Thirty $1 meters each linked to one of thirty tables, none heard: twenty meters are named,
    the total says thirty."""
    body = CONFIG.read_text(encoding="utf-8").split("[meters.tcp-progressive]")[0]
    meters = "".join(
        f'[meters.m{n:02d}]\nprogressive = "pa-649a12e-A"\n\n'
        f'[tables.t{n:02d}]\ngame = "three_card_poker"\nseats = 7\nwager_unit = "1.00"\n'
        f'meters = {{ progressive = "m{n:02d}" }}\n\n'
        for n in range(30)
    )
    floor = load_floor_config(body + meters, "thirty.toml")
    answer = batch_playability(floor, tracker(FakeClock()), ["t05"])
    down = answer["unplayable_meters"]
    assert isinstance(down, dict)
    assert list(down) == [f"m{n:02d}" for n in range(20)]
    assert down["m00"] == {"tables": 1, "at": ["t00"]}
    assert answer["unplayable_meters_total"] == 30
    assert answer["tables"] == {
        "t05": {
            "status": "unplayable",
            "silent_seconds": None,
            "since": "2026-11-29T16:00:00.000Z",
            "reason": "not heard from since the controller started at 2026-11-29T16:00:00.000Z",
            "meters": ["m05"],
        }
    }
