"""The Kafka meter processor runs a ceiling's overflow as the reference core does (NY 5320.8,
NJ 13:69E-1.39A): ``carry`` on the meter itself, ``divert:<meter>`` as a record keyed by the target
meter (another partition's single writer), which the target applies exactly once."""

from __future__ import annotations

import json

import pytest

from controller.config.floor import load_floor_config
from controller.meter import ContributionClaim
from controller.model.errors import ConfigError
from streams.adapters.kafka.topics import TopicNames
from streams.codec import Output
from streams.scaleout.meter_ops import claim_op, op_to_bytes
from streams.scaleout.meters import (
    MeterProcessor,
    MeterRecord,
    meter_record_from_bytes,
    meter_record_to_bytes,
)
from streams.scaleout.records import SourcePos
from tests.controller.scenario import PA
from tests.controller.test_mystery import MYSTERY

NAMES = TopicNames(prefix="t")
PLAIN = '[meters.tcp-progressive]\nprogressive = "pa-649a12e-A"\n'


def floor(limits: str) -> str:
    assert PLAIN in PA
    return PA.replace(PLAIN, PLAIN + limits + "\n")


def contribution(seq: int) -> bytes:
    claim = ContributionClaim(
        meter_id="tcp-progressive",
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
    return op_to_bytes(claim_op(claim, seq, 0))


def test_carry_stops_the_meter_at_the_ceiling_and_keeps_the_rest() -> None:
    # $1,000 + $0.14 = $1,000.14; the 2nd $0.14 keeps $0.06 and carries $0.08 (ceiling $1,000.20).
    config = load_floor_config(floor('ceiling = "1000.20"'), "floor.toml")
    processor = MeterProcessor(config, NAMES)
    record: MeterRecord | None = None
    events = []
    for offset in (1, 2):
        pos = SourcePos(topic=NAMES.meter_claims, partition=0, offset=offset)
        done = processor.process(record, "tcp-progressive", contribution(offset), pos)
        record = done.record
        events += [json.loads(o.value) for o in done.outputs if o.topic == NAMES.events]
    assert record is not None
    meter = record.meter
    assert (meter.amount_sub, meter.overflow_sub) == (100_020_000_000, 8_000_000)
    assert meter.explained_sub() == meter.held_sub()
    assert [e.get("overflow_sub") for e in events if e["type"] == "contribution_recorded"] == [
        0,
        8_000_000,
    ]


def test_divert_sends_the_excess_as_a_record_the_target_applies_once() -> None:
    # NY 5320.8 / NJ 13:69E-1.39A: $1,000 + $0.14 = $1,000.14; the 2nd $0.14 keeps $0.06 on the
    # meter (ceiling $1,000.20) and contributes $0.08 to tcp-five-card ($10,000.00 seed).
    config = load_floor_config(
        floor('ceiling = "1000.20"\noverflow = "divert:tcp-five-card"'), "floor.toml"
    )
    processor = MeterProcessor(config, NAMES)
    record: MeterRecord | None = None
    diverted: list[Output] = []
    for offset in (1, 2):
        pos = SourcePos(topic=NAMES.meter_claims, partition=0, offset=offset)
        done = processor.process(record, "tcp-progressive", contribution(offset), pos)
        record = done.record
        diverted += [o for o in done.outputs if o.topic == NAMES.meter_claims]
    assert record is not None
    assert (record.meter.amount_sub, record.meter.overflow_sub) == (100_020_000_000, 0)
    assert record.meter.transferred_sub == -8_000_000
    [onward] = diverted  # one record, keyed by the target, in the batch of the diverting claim
    assert (onward.key, onward.dedupe_id) == ("tcp-five-card", "tcp-progressive@3>tcp-five-card")
    target: MeterRecord | None = None
    outcomes: list[str] = []
    for offset in (7, 8):  # the same record delivered twice (offsets moved back): applied once
        pos = SourcePos(topic=NAMES.meter_claims, partition=3, offset=offset)
        done = processor.process(target, "tcp-five-card", onward.value, pos)
        target, outcomes = done.record, [*outcomes, done.outcome]
        assert target is not None
        target = meter_record_from_bytes(meter_record_to_bytes(target))  # through the changelog
    assert outcomes == ["applied", "duplicate"]
    assert target is not None
    assert target.meter.amount_sub == 1_000_000_000_000 + 8_000_000
    assert target.meter.transferred_sub == 8_000_000
    for meter in (record.meter, target.meter):
        assert meter.explained_sub() == meter.held_sub()
    # Across both meters nothing appeared or vanished: the transfers cancel out.
    assert record.meter.transferred_sub + target.meter.transferred_sub == 0


def test_a_forged_divert_record_is_dead_lettered() -> None:
    config = load_floor_config(floor('ceiling = "1000.20"'), "floor.toml")
    processor = MeterProcessor(config, NAMES)
    forged = b'{"claim":{"amount_sub":-5},"from_seq":1,"kind":"divert","meter_id":"tcp-five-card"}'
    pos = SourcePos(topic=NAMES.meter_claims, partition=3, offset=1)
    done = processor.process(None, "tcp-five-card", forged, pos)
    assert done.outcome == "dead_letter"
    assert [o.topic for o in done.outputs] == [NAMES.dead_letter]


def test_a_mystery_level_without_a_key_is_refused_at_start() -> None:
    # Its triggers are sealed with the key: without one the worker refuses rather than never hit.
    with pytest.raises(ConfigError) as info:
        MeterProcessor(load_floor_config(MYSTERY, "floor.toml"), NAMES)
    assert info.value.key == "meters.tcp-mystery.progressive"
    assert "--mystery-key" in str(info.value)
