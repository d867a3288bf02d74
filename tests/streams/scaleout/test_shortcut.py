"""Claims applied in the table event's transaction (`streams.scaleout.shortcut`): only when no
earlier claim of the same table on the same meter can still wait in the meter-claims topic, or
the meter's watermark would skip it later and its money would vanish."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from confluent_kafka import KafkaError, KafkaException

from controller.config.floor import load_floor_config
from controller.meter import ContributionClaim
from streams.adapters.kafka.sink import partition_of
from streams.adapters.kafka.topics import TopicNames
from streams.codec import Output
from streams.scaleout.meters import (
    IN_PLACE,
    MeterProcessor,
    MeterRecord,
    meter_record_from_bytes,
    meter_record_to_bytes,
)
from streams.scaleout.records import SourcePos, claim_op, op_to_bytes
from streams.scaleout.shortcut import Shortcut
from streams.scaleout.store import Lane, PartitionState
from tests.controller.scenario import PA

NAMES = TopicNames(prefix="t")
METER = "tcp-progressive"
PARTITIONS = 6
PART = partition_of(METER.encode(), PARTITIONS)
CLAIMS = (NAMES.meter_claims, PART)
TABLES = (NAMES.table_events, 0)


@dataclass
class Batch:
    """The two fields of `streams.scaleout.txloop.Batch` the shortcut writes."""

    states: dict[tuple[str, int], dict[bytes, Any]] = field(default_factory=dict)
    outcomes: dict[str, list[str]] = field(default_factory=dict)


def claim(seq: int) -> Output:
    """Table tcp-1's contribution claim of $0.14 (step 0 of its event ``seq``), as the round lane
    outputs it."""
    step = ContributionClaim(
        meter_id=METER,
        table_id="tcp-1",
        round_id=f"r{seq}",
        seat=1,
        wager="progressive",
        on="own",
        wager_cents=100,
        primary_sub=14_000_000,
        reserve_sub=0,
        occurred_at="2026-01-01T00:00:00Z",
    )
    return Output(NAMES.meter_claims, METER, op_to_bytes(claim_op(step, seq, 0)), f"e{seq}#0")


def setup(ends: dict[int, int]) -> tuple[Shortcut, Lane[MeterRecord]]:
    config = load_floor_config(PA, "floor.toml")
    processor = MeterProcessor(config, NAMES)
    lane: Lane[MeterRecord] = Lane(
        "meter",
        NAMES.meter_claims,
        NAMES.changelog("meters"),
        processor.process,
        meter_record_to_bytes,
        meter_record_from_bytes,
    )
    return Shortcut(lane, NAMES.table_events, PARTITIONS, lambda p: ends.get(p, 0)), lane


def owned(progress: int) -> dict[tuple[str, int], PartitionState[Any]]:
    return {TABLES: PartitionState(), CLAIMS: PartitionState(progress=progress)}


def contributed(outputs: list[Output]) -> list[int]:
    """The ``amount_sub`` of each contribution_recorded among ``outputs``."""
    events = [json.loads(o.value) for o in outputs if o.topic == NAMES.events]
    return [e["primary_sub"] for e in events if e.get("type") == "contribution_recorded"]


def test_a_claim_on_an_owned_caught_up_meter_becomes_its_meter_events_in_place() -> None:
    shortcut, _ = setup({PART: 40})
    batch, states = Batch(), owned(progress=40)
    other = Output(NAMES.events, "tcp-1", b"{}", "e1")
    outputs = shortcut.outputs(batch, states, 0, [other, claim(1)], 0)
    assert outputs[0] is other
    assert all(o.topic != NAMES.meter_claims for o in outputs)
    assert contributed(outputs) == [14_000_000]
    record = batch.states[CLAIMS][METER.encode()]
    assert record.marks == {"tcp-1": (1, 0)}
    assert record.offset == IN_PLACE  # seeded here: no meter-claims offset is claimed as read
    assert batch.outcomes["meter"][-1] == "applied"


def test_a_claim_for_a_meter_partition_not_owned_goes_through_the_topic() -> None:
    shortcut, _ = setup({PART: 40})
    batch, states = Batch(), owned(progress=40)
    del states[CLAIMS]
    assert shortcut.outputs(batch, states, 0, [claim(1)], 0) == [claim(1)]
    assert batch.states == {}


def test_a_meter_lane_behind_the_fence_sends_claims_through_the_topic_until_it_applied_them() -> (
    None
):
    """The meter-claims partition ends at 40 when the table partition is first seen: earlier
    claims of its tables may sit below it. Claims go through the topic until the meter lane read
    past 40, and then until the meter applied the last of them (its watermark for the table)."""
    shortcut, lane = setup({PART: 40})
    batch, states = Batch(), owned(progress=39)
    assert shortcut.outputs(batch, states, 0, [claim(1)], 0) == [claim(1)]
    states[CLAIMS].progress = 41  # read past the fence, but claim 1 (sent after it) not yet
    assert shortcut.outputs(batch, states, 0, [claim(2)], 0) == [claim(2)]
    assert shortcut.outputs(batch, states, 0, [claim(3)], 0) == [claim(3)]  # order kept
    record = None
    for offset, seq in ((41, 1), (42, 2)):  # the meter lane applies 1 and 2 from the topic
        pos = SourcePos(NAMES.meter_claims, PART, offset)
        record = lane.process(record, METER, claim(seq).value, pos).record
    assert record is not None
    states[CLAIMS].records[METER.encode()] = record
    assert shortcut.outputs(batch, states, 0, [claim(4)], 0) == [claim(4)]  # 3 still waits
    for offset, seq in ((43, 3), (44, 4)):
        record = lane.process(record, METER, claim(seq).value, SourcePos(*CLAIMS, offset)).record
    states[CLAIMS].records[METER.encode()] = record
    outputs = shortcut.outputs(Batch(), states, 0, [claim(5)], 0)
    assert contributed(outputs) == [14_000_000], "5 follows the last one sent: in place"


def test_the_fence_is_taken_again_when_the_table_partition_is_assigned_again() -> None:
    ends = {PART: 40}
    shortcut, _ = setup(ends)
    states = owned(progress=45)
    assert shortcut.fence(states, 0)[PART] == 40
    ends[PART] = 50
    assert shortcut.fence(states, 0)[PART] == 40  # same assignment: kept
    states[TABLES] = PartitionState()  # revoked and assigned again: restored afresh
    assert shortcut.fence(states, 0)[PART] == 50
    assert shortcut.outputs(Batch(), states, 0, [claim(1)], 0) == [claim(1)]


def test_a_claim_applied_in_place_is_a_duplicate_if_it_ever_comes_through_the_topic() -> None:
    shortcut, lane = setup({PART: 0})
    batch, states = Batch(), owned(progress=0)
    shortcut.outputs(batch, states, 0, [claim(1)], 0)
    record = batch.states[CLAIMS][METER.encode()]
    again = lane.process(record, METER, claim(1).value, SourcePos(*CLAIMS, 0))
    assert again.outcome == "duplicate"
    assert contributed(list(again.outputs)) == []


@pytest.mark.parametrize(
    ("key", "signed"),
    [  # Kafka's own murmur2 vectors (clients' UtilsTest.testMurmur2)
        (b"21", -973932308),
        (b"foobar", -790332482),
        (b"a-little-bit-long-string", -985981536),
        (b"a-little-bit-longer-string", -1486304829),
        (b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971),
        (b"abc", 479470107),
    ],
)
def test_partition_of_is_kafkas_murmur2(key: bytes, signed: int) -> None:
    partitions = 1_000_003
    assert partition_of(key, partitions) == (signed & 0x7FFFFFFF) % partitions


def test_the_ends_are_asked_once_for_the_table_partitions_assigned_together() -> None:
    asked: list[int] = []

    def end_of(part: int) -> int:
        asked.append(part)
        return 7

    _, lane = setup({})
    shortcut = Shortcut(lane, NAMES.table_events, PARTITIONS, end_of)
    states = {**owned(progress=0), (NAMES.table_events, 1): PartitionState()}
    assert shortcut.fence(states, 0) == shortcut.fence(states, 1) == dict.fromkeys(range(6), 7)
    assert asked == list(range(PARTITIONS))


def test_ends_not_readable_send_the_claims_through_the_topic() -> None:
    """The broker away while the fence is taken: no fence, so nothing is applied in place."""

    def away(part: int) -> int:
        raise KafkaException(KafkaError(KafkaError._TRANSPORT))

    _, lane = setup({})
    shortcut = Shortcut(lane, NAMES.table_events, PARTITIONS, away)
    batch = Batch()
    assert shortcut.outputs(batch, owned(progress=10**6), 0, [claim(1)], 0) == [claim(1)]
    assert batch.states == {}
