"""What a reader outside the project consumes is spelled as the table-event contract spells money
(a decimal string of dollars with two decimals), and every such record matches its schema in
schemas/: the awards topic, the dead-letter and liveness topics, and the signage meter hash.

The records are made by the code that writes them, from a simulated floor run through the embedded
engine (the same core the Kafka processors call), and checked three ways: against the JSON Schema,
against the exact integer amounts of the event they came from, and by a mutated record (money in
integer cents, the old spelling) that the schema must refuse."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator, FormatChecker

from controller.config.floor import load_floor_config
from controller.model.events import EnvyAwarded, Event, FixedAwarded, ProgressiveHit
from controller.model.state import FloorState
from streams.adapters.kafka.topics import TopicNames
from streams.adapters.memory import MemoryLog
from streams.cli.simulate import sim_tables
from streams.codec import decode, encode
from streams.embedded.engine import EmbeddedController
from streams.embedded.signage_feed import SignageFeed
from streams.scaleout.records import SourcePos, dead_letter, event_output
from streams.scaleout.rounds import heard_output
from streams.sim.floor import AKQ_SPADES, COMMUNITY_ROYAL, FloorSimulator, ForcedHands

ROOT = Path(__file__).resolve().parents[3]
SCHEMAS = ROOT / "schemas"
CONFIG = ROOT / "examples" / "pa-three-card-poker.toml"
NAMES = TopicNames("floor1")
AT = "2026-11-29T12:00:00.000Z"
POS = SourcePos("floor1.table-events", 2, 41, 1_764_417_600_000)


@cache
def validator(name: str) -> Draft202012Validator:
    schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, format_checker=FormatChecker())


def errors(name: str, record: object) -> list[str]:
    return [f"{e.json_path}: {e.message}" for e in validator(name).iter_errors(record)]


def cents(dollars: str) -> int:
    """A contract amount as cents, exactly (Decimal, never float)."""
    value = Decimal(dollars) * 100
    assert value == value.to_integral_value(), dollars
    return int(value)


class Capture:
    """A `MeterReadModel` keeping every publication as the Redis hash stores it (fields + seq)."""

    def __init__(self) -> None:
        self.hashes: dict[str, dict[str, str]] = {}

    def publish(self, meter_id: str, seq: int, fields: dict[str, str]) -> bool:
        self.hashes[meter_id] = {**fields, "seq": str(seq)}  # RedisReadModel.PUBLISH_SCRIPT
        return True

    def read(self, meter_id: str) -> dict[str, str] | None:
        return self.hashes.get(meter_id)


@cache
def floor_run() -> tuple[tuple[Event, ...], Capture]:
    """A simulated floor with forced jackpots through the embedded engine: its log and what its
    signage feed published."""
    events, signs, _ = engine_run()
    return events, signs


@cache
def engine_run() -> tuple[tuple[Event, ...], Capture, FloorState]:
    """`floor_run`, with the engine's final state."""
    log, signs = MemoryLog(), Capture()
    engine = EmbeddedController(log, log)
    feed = SignageFeed(signs, lambda: engine.state, clock=lambda: AT)
    engine.subscribe(feed.listener)
    text = CONFIG.read_text(encoding="utf-8")
    engine.start(text, str(CONFIG))
    config = load_floor_config(text, str(CONFIG))
    forced = ForcedHands(probability=0.15, deals=(AKQ_SPADES, COMMUNITY_ROYAL))
    start = datetime(2026, 11, 29, 12, tzinfo=UTC)
    simulator = FloorSimulator(sim_tables(config), random.Random(13), start, forced_hands=forced)
    raws = list(simulator.events(3_000))
    for i in range(0, len(raws), 20):
        engine.submit(raws[i : i + 20])
    return tuple(decode(record.payload) for record in log.read()), signs, engine.state


def awards() -> list[ProgressiveHit | FixedAwarded | EnvyAwarded]:
    events, _ = floor_run()
    return [e for e in events if isinstance(e, ProgressiveHit | FixedAwarded | EnvyAwarded)]


def test_every_award_record_matches_the_schema_and_its_event_to_the_cent() -> None:
    kinds = {ProgressiveHit: "progressive", FixedAwarded: "fixed", EnvyAwarded: "envy"}
    seen = set()
    for number, award in enumerate(awards()):
        out = event_output(NAMES.awards, award.table_id, award, f"a{number}")
        record = json.loads(out.value)
        assert not errors("award.v1.json", record), (record, errors("award.v1.json", record))
        assert record["award_id"] == out.dedupe_id == f"a{number}"
        assert record["kind"] == kinds[type(award)]
        assert cents(record["amount"]) == award.amount_cents
        assert sum(cents(p["amount"]) for p in record["paid"]) == award.amount_cents
        if isinstance(award, ProgressiveHit):
            assert [(p["seat"], cents(p["amount"])) for p in record["paid"]] == [
                (w.seat, w.amount_cents) for w in award.winners
            ]
        else:
            assert [p["seat"] for p in record["paid"]] == [award.seat]
        seen.add(record["kind"])
    assert {"progressive", "fixed"} <= seen, f"the run made too few kinds of award: {seen}"


def test_the_events_topic_keeps_the_logs_bytes() -> None:
    # The events topic is the controller's log (the embedded engine's bytes, compared byte for
    # byte on a retry, folded by dump, reconcile and signage): its integer units stay.
    for award in awards()[:20]:
        assert event_output(NAMES.events, award.table_id, award, "x").value == encode(award)


def test_the_old_spellings_are_refused_by_the_award_schema() -> None:
    award = awards()[0]
    record = json.loads(event_output(NAMES.awards, award.table_id, award, "a").value)
    as_cents: dict[str, Any] = {**record, "amount": award.amount_cents}
    assert errors("award.v1.json", as_cents)
    with_units = {**record, "amount_cents": award.amount_cents}
    assert errors("award.v1.json", with_units)
    assert errors("award.v1.json", {**record, "amount": "12.5"})  # not whole cents
    assert errors("award.v1.json", encode_dict(award))  # the log's record is not an award record


def encode_dict(event: Event) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(encode(event))
    return result


def test_dead_letter_and_liveness_records_match_their_schemas() -> None:
    raw = b'{"type":"wager_placed","amount":"1.005"}'
    letter = json.loads(dead_letter(NAMES.dead_letter, "tcp-1", raw, "bad amount", POS).value)
    assert not errors("dead-letter.v1.json", letter), errors("dead-letter.v1.json", letter)
    assert letter["raw"] == raw.decode()
    heard = json.loads(heard_output(NAMES.liveness, "tcp-1", "heartbeat", "hb-1", POS).value)
    assert not errors("liveness.v1.json", heard), errors("liveness.v1.json", heard)
    assert errors("liveness.v1.json", {**heard, "heard": "rumour"})


def test_every_signage_hash_matches_the_schema_in_dollars() -> None:
    _, signs = floor_run()
    assert signs.hashes, "the feed published no meter"
    for meter_id, fields in signs.hashes.items():
        assert not errors("signage-meter.v1.json", fields), (meter_id, fields)
        assert fields["meter_id"] == meter_id
    assert any(cents(f["paid"]) > 0 for f in signs.hashes.values()), "no meter paid a hit"
    bad = {**next(iter(signs.hashes.values())), "amount": "100014000000"}  # sub-units
    assert errors("signage-meter.v1.json", bad)


@pytest.mark.parametrize("name", sorted(p.name for p in SCHEMAS.glob("*.json")))
def test_every_schema_is_valid_2020_12(name: str) -> None:
    schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    assert validator(name).schema == schema
    assert str(schema["$id"]).endswith(name)
