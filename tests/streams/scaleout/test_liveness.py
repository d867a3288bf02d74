"""Playability on the Kafka engine (issue 7): the round processor's liveness records, the watch
that dates them by the broker's stamp, and the board it writes to Redis.

Worked by hand on the example floor (tcp-1..tcp-6 feed the four $1 meters, tcp-7 and tcp-8 the $5
``tcp-progressive-5``; limit 30 s). Clocks are injected: the broker's stamps and the host's wall
clock are milliseconds on one timeline, the monotonic clock a `FakeClock`; nothing sleeps.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from confluent_kafka import TopicPartition
from hypothesis import given
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry, generate_latest

from controller.model.errors import StoreUnavailable
from streams.adapters.kafka.topics import TopicNames
from streams.adapters.redis.playability_board import statuses_from
from streams.codec import Output
from streams.live.feed import LiveFeed
from streams.live.redis_source import watch_board
from streams.scaleout.liveness import Clocks, LivenessFeed, LivenessWatch, Sighting
from streams.scaleout.records import SourcePos, coalesced
from streams.scaleout.rounds import RoundProcessor
from tests.streams.http.support import full_round
from tests.streams.liveness.test_tracker import FLOOR, START, FakeClock

NAMES = TopicNames("t")
START_MS = int(START.timestamp() * 1000)


class Board:
    """The playability hash as Redis keeps it; can be emptied or made to fail."""

    def __init__(self) -> None:
        self.fields: dict[str, str] = {}
        self.writes: list[tuple[int, bool]] = []  # (fields written, replace)
        self.down = False

    def write_playability(self, fields: dict[str, str], *, replace: bool = False) -> bool:
        if self.down:
            raise StoreUnavailable("Redis read model: write playability failed")
        lost = "as_of" not in self.fields
        if replace:
            self.fields = {}
        self.fields.update(fields)
        self.writes.append((len(fields), replace))
        return lost


class Times:
    """The monotonic clock and the wall clock moving together."""

    def __init__(self) -> None:
        self.mono = FakeClock()
        self.ms = START_MS

    def advance(self, seconds: float) -> None:
        self.mono.advance(seconds)
        self.ms += int(seconds * 1000)

    def wall(self) -> datetime:
        return START + timedelta(milliseconds=self.ms - START_MS)

    def clocks(self) -> Clocks:
        return Clocks(monotonic=self.mono, wall=self.wall, wall_ms=lambda: self.ms)


def watched() -> tuple[Times, Board, LivenessWatch, CollectorRegistry]:
    times, board, registry = Times(), Board(), CollectorRegistry()
    watch = LivenessWatch(FLOOR, board, registry=registry, clocks=times.clocks())
    return times, board, watch, registry


def meter(board: Board, meter_id: str) -> dict[str, object]:
    value: dict[str, object] = json.loads(board.fields[f"meter:{meter_id}"])
    return value


def test_every_sign_of_life_writes_a_liveness_record_and_a_refusal_writes_none() -> None:
    rounds, record = RoundProcessor(FLOOR, NAMES), None
    outputs: list[Output] = []
    for offset, event in enumerate(full_round(table="tcp-3")):
        pos = SourcePos(NAMES.table_events, 0, offset)
        done = rounds.process(record, "tcp-3", json.dumps(event).encode(), pos)
        assert done.outcome == "accepted"
        record, outputs = done.record, [*outputs, *done.outputs]
    heard = [o for o in outputs if o.topic == NAMES.liveness]
    assert len(heard) == len(full_round())  # one per accepted event
    assert {o.key for o in heard} == {"tcp-3"}
    assert [json.loads(o.value)["event_id"] for o in heard] == [
        e["event_id"] for e in full_round(table="tcp-3")
    ]
    again = full_round(table="tcp-3")[0]
    pos = SourcePos(NAMES.table_events, 0, 99)
    duplicate = rounds.process(record, "tcp-3", json.dumps(again).encode(), pos)
    assert duplicate.outcome == "duplicate"
    assert [json.loads(o.value)["heard"] for o in duplicate.outputs] == ["duplicate"]
    late = {**full_round(table="tcp-3")[1], "event_id": "late", "seq": 2}
    refused = rounds.process(record, "tcp-3", json.dumps(late).encode(), pos)
    assert refused.outcome == "rejected"
    assert NAMES.liveness not in {o.topic for o in refused.outputs}
    first = SourcePos(NAMES.table_events, 0, 0)
    redelivered = rounds.process(record, "tcp-3", json.dumps(again).encode(), first)
    assert (redelivered.outcome, redelivered.outputs) == ("redelivered", ())


def test_records_are_dated_by_the_broker_stamp_so_a_restart_knows_who_spoke_lately() -> None:
    times, board, watch, _ = watched()
    times.advance(100)
    recent = [Sighting(f"tcp-{n}", times.ms - 5_000) for n in range(1, 7)]  # 5 s ago
    watch.take([*recent, Sighting("tcp-7", times.ms - 40_000)])  # 40 s ago: past the limit
    watch.tick()
    assert meter(board, "tcp-progressive") == {"status": "in_play", "unplayable_at": []}
    assert meter(board, "tcp-progressive-5") == {
        "status": "unplayable",
        "unplayable_at": ["tcp-7", "tcp-8"],
    }
    read = statuses_from(board.fields, FLOOR, times.wall())
    assert read["tcp-7"].reason == "table feed silent for 40 s (limit 30 s)"
    assert read["tcp-8"].silent_seconds is None  # never heard since the projector started
    assert "projector started" in read["tcp-8"].reason
    assert read["tcp-1"].playable
    assert board.fields["limit_seconds"] == "30"


def test_silence_past_the_limit_turns_a_meter_not_in_play_and_a_sighting_brings_it_back() -> None:
    times, board, watch, _ = watched()
    watch.take([Sighting(t, times.ms) for t in FLOOR.tables])
    watch.tick()
    assert all(json.loads(v)["status"] != "unplayable" for v in board.fields.values() if "{" in v)
    times.advance(31)  # nobody spoke: the controller (or every feed) is down past the limit
    watch.tick()
    for meter_id in FLOOR.meters:
        assert meter(board, meter_id)["status"] == "unplayable"
    read = statuses_from(board.fields, FLOOR, times.wall())
    assert read["tcp-5"].reason == "table feed silent for 31 s (limit 30 s)"
    watch.take([Sighting("tcp-7", times.ms)])
    watch.tick()
    assert meter(board, "tcp-progressive-5") == {"status": "in_play", "unplayable_at": ["tcp-8"]}
    assert meter(board, "tcp-progressive")["status"] == "unplayable"


def test_only_changed_fields_are_written_and_a_lost_board_is_written_whole() -> None:
    times, board, watch, _ = watched()
    watch.take([Sighting(t, times.ms) for t in FLOOR.tables])
    watch.tick()
    everything = len(board.fields)  # 8 tables + 5 meters + as_of + limit
    assert everything == len(FLOOR.tables) + len(FLOOR.meters) + 2
    assert board.writes[-1] == (everything, True)
    times.advance(1)
    watch.tick()
    assert board.writes[-1] == (2, False)  # nothing changed: as_of and the limit only
    board.down = True
    times.advance(1)
    watch.tick()  # refused: remembered, nothing raised
    board.down = False
    times.advance(1)
    watch.tick()
    assert board.writes[-1] == (everything, True)
    board.fields.clear()  # Redis restarted empty
    times.advance(1)
    watch.tick()
    assert board.writes[-1] == (everything, True)
    assert len(board.fields) == everything


def test_a_stale_or_missing_board_reads_as_every_table_unplayable() -> None:
    times, board, watch, _ = watched()
    watch.take([Sighting(t, times.ms) for t in FLOOR.tables])
    watch.tick()
    fresh = statuses_from(board.fields, FLOOR, times.wall() + timedelta(seconds=30))
    assert all(s.playable for s in fresh.values())
    stale = statuses_from(board.fields, FLOOR, times.wall() + timedelta(seconds=31))
    assert not any(s.playable for s in stale.values())
    since = "playability not published since 2026-11-29T16:00:00.000Z"  # START, the last tick
    assert stale["tcp-1"].reason.startswith(since)
    missing = statuses_from({}, FLOOR, times.wall())
    assert not any(s.playable for s in missing.values())


def test_unconfigured_tables_are_counted_and_the_gauges_match_the_embedded_names() -> None:
    times, _, watch, registry = watched()
    watch.take([Sighting("tcp-1", times.ms), Sighting("tcp-99", times.ms)])
    text = generate_latest(registry).decode()
    assert 'jackpot_kafka_liveness_records_total{outcome="unconfigured"} 1.0' in text
    assert 'jackpot_kafka_liveness_records_total{outcome="heard"} 1.0' in text
    assert 'jackpot_progressive_unplayable{meter="tcp-progressive",table="tcp-1"} 0.0' in text
    assert 'jackpot_progressive_unplayable{meter="tcp-progressive",table="tcp-2"} 1.0' in text
    assert 'jackpot_meter_unplayable_tables{meter="tcp-progressive"} 5.0' in text
    assert "tcp-99" not in text.replace('outcome="unconfigured"', "")


def test_a_stamp_from_the_future_counts_as_now_and_never_ages_a_newer_sighting() -> None:
    times, _, watch, _ = watched()
    watch.take([Sighting("tcp-1", times.ms + 5_000)])  # the broker's clock is ahead
    assert watch.tracker.status("tcp-1", 30).silent_seconds == 0.0
    times.advance(10)
    watch.take([Sighting("tcp-1", times.ms - 20_000)])  # older than what is known: ignored
    assert watch.tracker.status("tcp-1", 30).silent_seconds == 10.0


def statuses_shown(feed: LiveFeed) -> set[object]:
    shown = feed.meters_snapshot()["playability"]
    assert isinstance(shown, dict)
    return {status["status"] for status in shown.values()}


def test_pages_fed_from_redis_show_the_board_as_the_embedded_feed_shows_the_tracker() -> None:
    times, board, watch, _ = watched()
    feed = LiveFeed(labels={m: (m, "") for m in FLOOR.meters})
    watch_board(feed, lambda: board.fields, FLOOR, wall=times.wall)
    watch.take([Sighting(t, times.ms) for t in FLOOR.tables])
    watch.tick()
    feed.tick(force=True)
    assert statuses_shown(feed) == {"in_play"}
    times.advance(31)
    watch.take([Sighting(t, times.ms) for t in FLOOR.tables if t != "tcp-8"])
    watch.tick()
    feed.tick(force=True)
    shown = feed.meters_snapshot()["playability"]
    assert isinstance(shown, dict)
    assert shown["tcp-progressive-5"] == {"status": "in_play", "unplayable_at": ["tcp-8"]}
    recent = feed.activity_snapshot()["recent"]
    assert isinstance(recent, list)
    assert [(r["alert"], r["table_id"]) for r in recent] == [("table_silent", "tcp-8")]
    assert recent[0]["reason"] == "table feed silent for 31 s (limit 30 s)"
    times.advance(40)  # the projector stopped: the board goes stale, nobody vouches for a table
    feed.tick(force=True)
    assert statuses_shown(feed) == {"unplayable"}


class Message:
    """A liveness record as confluent-kafka hands it over."""

    def __init__(self, table_id: str, stamp_ms: int, partition: int, offset: int) -> None:
        self._fields = (table_id, stamp_ms, partition, offset)

    def error(self) -> None:
        return None

    def key(self) -> bytes:
        return self._fields[0].encode()

    def timestamp(self) -> tuple[int, int]:
        return (2, self._fields[1])  # TIMESTAMP_LOG_APPEND_TIME

    def partition(self) -> int:
        return self._fields[2]

    def offset(self) -> int:
        return self._fields[3]


class Consumer:
    """Hands out queued records; its position is the next offset of each partition."""

    def __init__(self) -> None:
        self.queued: list[Message] = []
        self.next: dict[int, int] = {}

    def consume(self, num_messages: int, timeout: float) -> list[Message]:
        taken, self.queued = self.queued[:num_messages], self.queued[num_messages:]
        for message in taken:
            self.next[message.partition()] = message.offset() + 1
        return taken

    def position(self, partitions: list[TopicPartition]) -> list[TopicPartition]:
        return [
            TopicPartition(tp.topic, tp.partition, self.next.get(tp.partition, -1001))
            for tp in partitions
        ]


def test_the_feed_is_ready_only_once_it_read_what_the_topic_held_at_the_start() -> None:
    times, _, watch, _ = watched()
    consumer = Consumer()
    feed = LivenessFeed(consumer, watch, NAMES.liveness, {0: 4, 1: 0, 2: 2})  # type: ignore[arg-type]
    assert not feed.ready
    consumer.queued = [Message("tcp-1", times.ms, 0, 1), Message("tcp-2", times.ms, 2, 1)]
    assert feed.poll() == 2
    assert not feed.ready  # partition 0 holds offsets up to 3 (compaction left a gap at 2)
    consumer.queued = [Message("tcp-7", times.ms, 0, 3)]
    assert feed.poll() == 1
    assert feed.ready
    assert watch.tracker.status("tcp-7", 30).playable


@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.booleans()), max_size=30))
def test_a_batch_keeps_only_the_last_latest_wins_record_of_each_key(
    drawn: list[tuple[str, bool]],
) -> None:
    outputs = [
        Output(NAMES.liveness if latest else NAMES.events, key, b"%d" % n, f"{n}", latest)
        for n, (key, latest) in enumerate(drawn)
    ]
    kept = coalesced(outputs)
    assert [o for o in kept if not o.latest_wins] == [o for o in outputs if not o.latest_wins]
    newest = {o.key: o for o in outputs if o.latest_wins}  # the last one of each key wins
    assert [o for o in kept if o.latest_wins] == [o for o in outputs if newest.get(o.key) is o]
