"""What signs and surveillance are told about silent tables (`streams.live.playability`), and the
Kafka round processor's handling of heartbeats; both with an injected clock, nothing sleeps."""

from __future__ import annotations

import json

from streams.adapters.kafka.topics import TopicNames
from streams.live.playability import PlayabilityWatch
from streams.liveness.tracker import LivenessTracker
from streams.scaleout.records import SourcePos
from streams.scaleout.rounds import RoundProcessor
from tests.streams.liveness.test_tracker import FLOOR, START, TABLES, FakeClock, heartbeat


def watch(clock: FakeClock) -> tuple[LivenessTracker, PlayabilityWatch]:
    live = LivenessTracker(clock, wall=lambda: START)
    return live, PlayabilityWatch(
        lambda: live, lambda: FLOOR, clock=clock, wall=lambda: "2026-11-29T16:10:00.000Z"
    )


def test_the_first_tick_says_how_many_tables_are_unknown_in_one_alert() -> None:
    clock = FakeClock()
    live, seen = watch(clock)
    live.heard(["tcp-1"])
    change = seen.tick()
    assert change is not None
    assert change.meters is not None
    assert change.meters["tcp-progressive-5"] == {
        "status": "unplayable",
        "unplayable_at": ["tcp-7", "tcp-8"],
    }
    assert change.meters["tcp-progressive"]["status"] == "in_play"
    (alert,) = change.alerts
    assert alert["alert"] == "tables_unknown"
    assert str(alert["reason"]).startswith("7 of 8 tables not heard from since the controller")
    assert seen.tick(force=True) is None  # nothing changed
    live.heard(["tcp-7"])  # first heard after the start: in play again, but no alert
    clock.advance(1)
    change = seen.tick()
    assert change is not None
    assert change.alerts == []
    assert change.meters is not None
    assert change.meters["tcp-progressive-5"] == {"status": "in_play", "unplayable_at": ["tcp-8"]}


def test_silence_and_recovery_each_raise_one_alert_and_ticks_are_rate_limited() -> None:
    clock = FakeClock()
    live, seen = watch(clock)
    live.heard(TABLES)
    seen.tick()
    clock.advance(20)
    live.heard([t for t in TABLES if t != "tcp-8"])
    clock.advance(11)  # tcp-8 silent for 31 s
    change = seen.tick()
    assert change is not None
    rows = [(a["alert"], a["table_id"], a["reason"], a["occurred_at"]) for a in change.alerts]
    silent = "table feed silent for 31 s (limit 30 s)"
    assert rows == [("table_silent", "tcp-8", silent, "2026-11-29T15:59:59.000Z")]
    live.heard(["tcp-8"])
    assert seen.tick() is None  # within half a second of the last tick
    clock.advance(0.5)
    change = seen.tick()
    assert change is not None
    assert [(a["alert"], a["table_id"], a["occurred_at"]) for a in change.alerts] == [
        ("table_heard", "tcp-8", "2026-11-29T16:10:00.000Z")
    ]
    clock.advance(1)
    assert seen.tick() is None


def test_the_kafka_round_processor_notes_heartbeats_and_dead_letters_bad_ones() -> None:
    names = TopicNames("t")
    rounds = RoundProcessor(FLOOR, names)
    pos = SourcePos(names.table_events, 0, 7)
    noted = rounds.process(None, "tcp-2", json.dumps(heartbeat("tcp-2")).encode(), pos)
    assert (noted.outcome, noted.record) == ("heartbeat", None)
    (beat,) = noted.outputs  # only its sign of life: no event, no dead letter
    assert (beat.topic, beat.key) == (names.liveness, "tcp-2")
    unknown = rounds.process(None, "tcp-99", json.dumps(heartbeat("tcp-99")).encode(), pos)
    assert unknown.outcome == "rejected"
    assert [out.topic for out in unknown.outputs] == [names.events, names.dead_letter]
    assert b"unknown table 'tcp-99'" in unknown.outputs[1].value
    wrong_key = rounds.process(None, "tcp-3", json.dumps(heartbeat("tcp-2")).encode(), pos)
    assert wrong_key.outcome == "rejected"
