"""The simulator's keep-alive: heartbeats the v2 contract accepts, one per table per beat, fresh
event ids on every beat and every run, a wait between beats and none after the last."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from streams.door.fast_decode import decode_event
from streams.door.heartbeat import Heartbeat
from streams.door.validation import validate_table_event
from streams.sim.heartbeat import keep_alive

TABLES = ["tcp-1", "tcp-2", "tcp-7"]


class Recorder:
    def __init__(self) -> None:
        self.batches: list[list[dict[str, object]]] = []

    def post(self, events: Sequence[dict[str, object]]) -> dict[str, Any]:
        self.batches.append(list(events))
        return {"results": [{"status": "accepted"} for _ in events]}


class Clock:
    def __init__(self) -> None:
        self.at = datetime(2026, 11, 29, 16, 0, tzinfo=UTC)
        self.waits: list[float] = []

    def now(self) -> datetime:
        return self.at

    def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.at += timedelta(seconds=seconds)


def beat(beats: int, clock: Clock) -> Recorder:
    recorder = Recorder()
    sent = keep_alive(recorder, TABLES, 10.0, beats=beats, sleep=clock.sleep, now=clock.now)
    assert sent == beats
    return recorder


def test_each_beat_is_one_valid_heartbeat_per_table() -> None:
    clock = Clock()
    recorder = beat(3, clock)
    assert clock.waits == [10.0, 10.0]  # between beats, not after the last
    assert [[e["table_id"] for e in batch] for batch in recorder.batches] == [TABLES] * 3
    for batch in recorder.batches:
        for event in batch:
            assert validate_table_event(event)["type"] == "heartbeat"
            decoded = decode_event(json.dumps(event))
            assert isinstance(decoded, Heartbeat)
            assert decoded.table_id == event["table_id"]
    times = [batch[0]["occurred_at"] for batch in recorder.batches]
    assert times == [
        "2026-11-29T16:00:00.000Z",
        "2026-11-29T16:00:10.000Z",
        "2026-11-29T16:00:20.000Z",
    ]


def test_event_ids_never_repeat_within_or_across_runs() -> None:
    first = beat(2, Clock())
    later = Clock()
    later.at += timedelta(microseconds=1)
    second = beat(2, later)
    ids = [e["event_id"] for r in (first, second) for batch in r.batches for e in batch]
    assert len(ids) == len(set(ids)) == 12
