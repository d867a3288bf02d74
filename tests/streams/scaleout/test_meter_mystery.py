"""Must-hit-by ("mystery") levels in the Kafka meter processor (GLI-12 mystery progressives, as
restated by N.J.A.C. 13:69E-1.39B: the hit amount is drawn at random at the reset, lies in
[reset, must_hit_by), and is not knowable to anyone before the hit).

The floor of `tests.controller.test_mystery`: tcp-7 and tcp-8 fund ``tcp-mystery`` from $100.00 to
$110.00 at $2.50 a $5 wager. The draw is the OS's (`secrets`), so the tests check what must hold
for any draw: the range, the commitment, the seal, conservation, the re-arming.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

import pytest

from controller.config.floor import load_floor_config
from controller.meter import ContributionClaim
from controller.model.errors import ConfigError
from controller.mystery import commitment_of
from streams.adapters.kafka.topics import TopicNames
from streams.scaleout.meter_ops import claim_op, op_to_bytes, seed_op
from streams.scaleout.meters import (
    MeterProcessor,
    MeterRecord,
    meter_record_from_bytes,
    meter_record_to_bytes,
)
from streams.scaleout.records import SourcePos
from tests.controller.test_mystery import MYSTERY
from tests.streams.adapters.test_outward_schemas import errors

NAMES = TopicNames(prefix="t")
CONFIG = load_floor_config(MYSTERY, "floor.toml")
KEY = bytes(range(32))
METER = "tcp-mystery"
AT = "2026-01-01T00:00:00Z"
STAKE_SUB = 250_000_000  # 50% of a $5 wager, in sub-units ($0.01 = 1,000,000)


def contribution(table: str, seq: int, index: int = 0, seat: int = 1) -> bytes:
    claim = ContributionClaim(
        meter_id=METER,
        table_id=table,
        round_id=f"r{seq}",
        seat=seat,
        wager="progressive",
        on="own",
        wager_cents=500,
        primary_sub=STAKE_SUB,
        reserve_sub=0,
        occurred_at=AT,
    )
    return op_to_bytes(claim_op(claim, seq, index))


class Lane:
    """One meter's record through a processor, as the transactional loop keeps it."""

    def __init__(self, processor: MeterProcessor, record: MeterRecord | None = None) -> None:
        self.processor, self.record, self.offset = processor, record, 0
        self.events: list[dict[str, Any]] = []
        self.awards: list[dict[str, Any]] = []

    def feed(self, raw: bytes) -> str:
        self.offset += 1
        pos = SourcePos(topic=NAMES.meter_claims, partition=2, offset=self.offset)
        done = self.processor.process(self.record, METER, raw, pos)
        self.record = done.record or self.record
        self.events += [json.loads(o.value) for o in done.outputs if o.topic == NAMES.events]
        self.awards += [json.loads(o.value) for o in done.outputs if o.topic == NAMES.awards]
        return done.outcome

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == kind]


def test_the_level_is_armed_at_its_seed_and_the_changelog_keeps_the_trigger_sealed() -> None:
    lane = Lane(MeterProcessor(CONFIG, NAMES, KEY))
    assert lane.feed(op_to_bytes(seed_op(METER, AT))) == "seeded"
    [armed] = lane.of("mystery_armed")
    assert lane.record is not None
    meter = lane.record.meter
    assert armed["commitment"] == meter.mystery_commitment
    assert commitment_of(meter.mystery_trigger_cents, meter.mystery_salt) == armed["commitment"]
    assert 10_000 <= meter.mystery_trigger_cents < 11_000
    stored = json.loads(meter_record_to_bytes(lane.record))["meter"]
    assert (stored["mystery_trigger_cents"], stored["mystery_salt"]) == (-1, "")
    assert meter.mystery_salt not in meter_record_to_bytes(lane.record).decode()
    assert meter.mystery_salt not in json.dumps(armed)


def test_every_hit_is_the_trigger_in_range_and_reveals_its_commitment() -> None:
    lane = Lane(MeterProcessor(CONFIG, NAMES, KEY))
    lane.feed(op_to_bytes(seed_op(METER, AT)))
    for seq in range(1, 400):
        lane.feed(contribution("tcp-7" if seq % 2 else "tcp-8", seq))
    hits, reveals, armings = lane.of("progressive_hit"), lane.of("mystery_revealed"), []
    armings = lane.of("mystery_armed")
    assert len(hits) == len(reveals) >= 80  # $2.50 a wager, a hit every 4 or 5 wagers
    assert len(armings) in (len(hits), len(hits) + 1)
    for arming, hit, reveal in zip(armings, hits, reveals, strict=False):
        assert reveal["commitment"] == arming["commitment"]
        assert commitment_of(reveal["trigger_cents"], reveal["salt"]) == arming["commitment"]
        assert 10_000 <= hit["amount_cents"] == reveal["trigger_cents"] < 11_000
        assert hit["meter_before_sub"] >= hit["amount_cents"] * 1_000_000
    assert len({a["commitment"] for a in armings}) == len(armings)
    # The awards topic's record of each hit is the outward contract (schemas/award.v1.json).
    assert len(lane.awards) == len(hits)
    assert all(errors("award.v1.json", award) == [] for award in lane.awards)
    assert lane.record is not None
    meter = lane.record.meter
    assert meter.explained_sub() == meter.held_sub()
    assert meter.contributed_sub == 399 * STAKE_SUB


def test_the_rest_of_the_winning_lock_cannot_win_again() -> None:
    # "the level is unarmed for the rest of that lock (the engine arms it before the next input)":
    # seven seats of one lock, the meter starting past any trigger ($100 + $2.50 x 4 = $110).
    lane = Lane(MeterProcessor(CONFIG, NAMES, KEY))
    lane.feed(op_to_bytes(seed_op(METER, AT)))
    for index in range(4):
        lane.feed(contribution("tcp-7", 1, index, seat=index + 1))
    assert len(lane.of("progressive_hit")) == 1
    for index in range(4, 7):
        lane.feed(contribution("tcp-7", 1, index, seat=index + 1))
    assert len(lane.of("progressive_hit")) == 1
    assert len(lane.of("mystery_armed")) == 1  # not re-armed inside the lock
    lane.feed(contribution("tcp-8", 1))
    assert len(lane.of("mystery_armed")) == 2  # armed before the next table event's claim


def test_a_new_owner_unseals_the_same_trigger_and_its_hit_reveals_it() -> None:
    first = Lane(MeterProcessor(CONFIG, NAMES, KEY))
    first.feed(op_to_bytes(seed_op(METER, AT)))
    [armed] = first.of("mystery_armed")
    assert first.record is not None
    restored = meter_record_from_bytes(meter_record_to_bytes(first.record))  # the changelog
    assert restored.meter.mystery_trigger_cents == -1
    second = Lane(MeterProcessor(CONFIG, NAMES, KEY), restored)
    second.offset = first.offset
    for seq in range(1, 6):
        second.feed(contribution("tcp-7", seq))
    [reveal] = second.of("mystery_revealed")[:1]
    assert reveal["commitment"] == armed["commitment"]
    assert commitment_of(reveal["trigger_cents"], reveal["salt"]) == armed["commitment"]


def test_another_key_cannot_open_the_seal_and_stops_the_worker() -> None:
    first = Lane(MeterProcessor(CONFIG, NAMES, KEY))
    first.feed(op_to_bytes(seed_op(METER, AT)))
    assert first.record is not None
    restored = meter_record_from_bytes(meter_record_to_bytes(first.record))
    other = Lane(MeterProcessor(CONFIG, NAMES, secrets.token_bytes(32)), restored)
    other.offset = first.offset
    with pytest.raises(ConfigError) as info:
        other.feed(contribution("tcp-7", 1))
    assert info.value.key == f"meters.{METER}"
