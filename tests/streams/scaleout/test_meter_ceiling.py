"""The Kafka meter processor runs a ceiling's ``carry`` overflow exactly as the reference core does
(NY 5320.8, NJ 13:69E-1.39A), and refuses ``divert:`` at start rather than drop the excess."""

from __future__ import annotations

import json

import pytest

from controller.config.floor import load_floor_config
from controller.meter import ContributionClaim
from controller.model.errors import ConfigError
from streams.adapters.kafka.topics import TopicNames
from streams.scaleout.meters import MeterProcessor, MeterRecord
from streams.scaleout.records import SourcePos, claim_op, op_to_bytes
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


def test_divert_is_refused_at_start() -> None:
    config = load_floor_config(
        floor('ceiling = "1000.20"\noverflow = "divert:tcp-five-card"'), "floor.toml"
    )
    with pytest.raises(ConfigError) as info:
        MeterProcessor(config, NAMES)
    assert info.value.key == "meters.tcp-progressive.overflow"


def test_a_mystery_level_is_refused_at_start() -> None:
    # The Kafka engine does not draw or seal triggers yet: it refuses rather than never hit.
    with pytest.raises(ConfigError) as info:
        MeterProcessor(load_floor_config(MYSTERY, "floor.toml"), NAMES)
    assert info.value.key == "meters.tcp-mystery.progressive"
    assert "mystery" in str(info.value)
