"""Records a rogue producer can put on the table-events topic must be refused, never crash a batch.

A batch that raises ends the worker, and its restart is handed the same record again: a record
that makes the round processor raise stops every table of its partition for good. Found by
``tests/integration/test_kafka_hostile.py``; here the same records go through the pure processor
(and the loop's state lookup) without Kafka, and every output must be producible: a key that
encodes as UTF-8 and stays short, and a record well under the broker's 1 MiB limit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest

from controller.config.floor import load_floor_config
from controller.model.errors import InvalidEvent
from streams.adapters.kafka.topics import TopicNames
from streams.codec import Output
from streams.scaleout.diverts import divert_from_bytes, is_divert
from streams.scaleout.ingest import TableEventProducer
from streams.scaleout.meter_ops import op_from_bytes
from streams.scaleout.records import SourcePos
from streams.scaleout.rounds import RoundProcessor
from streams.scaleout.store import PartitionState, progress_key
from tests.hostile.corpus import by_name

CONFIG = Path(__file__).resolve().parents[3] / "examples" / "pa-three-card-poker.toml"
NAMES = TopicNames("rogue")
OPENING = {
    "event_id": "rogue:1",
    "type": "round_opened",
    "table_id": "tcp-1",
    "round_id": "R1",
    "seq": 1,
    "occurred_at": "2026-11-29T16:00:01Z",
    "game": "three_card_poker",
}


def _process(key: str | None, raw: bytes) -> tuple[str, tuple[Output, ...]]:
    config = load_floor_config(CONFIG.read_text(encoding="utf-8"), str(CONFIG))
    pos = SourcePos(NAMES.table_events, 0, 7, 1_796_000_000_000)
    done = RoundProcessor(config, NAMES).process(None, key, raw, pos)
    return done.outcome, done.outputs


def _producible(outputs: tuple[Output, ...]) -> None:
    for out in outputs:
        key = (
            out.key.encode()
        )  # what streams.adapters.kafka.sink does; a lone surrogate raised here
        assert len(key) <= 4 * 64
        assert len(key) + len(out.value) < 300_000


def test_a_lone_surrogate_table_id_is_dead_lettered_with_an_encodable_key() -> None:
    raw = by_name("table-id-lone-surrogate").payload()
    outcome, outputs = _process("tcp-\udfff", raw)
    assert outcome == "rejected"
    assert "surrogate" in json.loads(outputs[1].value)["reason"]
    _producible(outputs)
    assert outputs[1].key == "tcp-?"


def test_a_megabyte_table_id_does_not_become_a_megabyte_key() -> None:
    raw = json.dumps({"table_id": "t" * 1_040_000}).encode()
    outcome, outputs = _process("tcp-1", raw)
    assert outcome == "rejected"
    assert "over the limit of 65536 bytes" in json.loads(outputs[1].value)["reason"]
    _producible(outputs)
    assert outputs[1].key == "t" * 64


def test_a_huge_key_is_shortened_in_the_reason() -> None:
    huge = (b"\xff" * 400_000).decode("utf-8", "replace")  # as the stage decodes a key
    outcome, outputs = _process(huge, json.dumps(OPENING).encode())
    assert outcome == "rejected"
    reason = json.loads(outputs[1].value)["reason"]
    assert reason.startswith(f"record key {chr(0xFFFD) * 64!r} is not the event's table_id")
    _producible(outputs)


@pytest.mark.parametrize("key", [None, "tcp-2", "\x00next:0"])
def test_a_valid_event_under_another_key_is_refused(key: str | None) -> None:
    outcome, outputs = _process(key, json.dumps(OPENING).encode())
    assert outcome == "rejected"
    reason = json.loads(outputs[1].value)["reason"]
    assert reason.startswith(f"record key {key!r} is not the event's table_id 'tcp-1'")
    _producible(outputs)


def test_a_record_keyed_like_a_progress_mark_is_not_read_as_a_table_state() -> None:
    """The loop looks a record's key up in its partition's state before the processor sees it;
    under a reserved key the faust-era stage found the stored progress (b"123") and failed to
    decode it as a table. Reserved keys have no state."""
    state = PartitionState[Any](records={progress_key(0): cast(Any, b"123")}, progress=123)
    assert state.get(progress_key(0)) is None
    assert state.get(None) is None


def test_a_deeply_nested_meter_claim_is_invalid_not_a_crash() -> None:
    """The meter processor dead-letters an `InvalidEvent`; a RecursionError failed its batch."""
    with pytest.raises(InvalidEvent, match="not a meter operation"):
        op_from_bytes(b"[" * 100_000 + b"]" * 100_000)


@pytest.mark.parametrize("number", [b"1e999", b"-1e999", b"Infinity", b"NaN"])
def test_a_meter_claim_with_an_endless_number_is_invalid_not_a_crash(number: bytes) -> None:
    """json reads ``1e999`` as inf and ``int(inf)`` raises OverflowError, which escaped the
    reader and failed the worker's batch on every restart (found by Hypothesis): it is an
    `InvalidEvent` for the meter processor to dead-letter like any other damaged claim."""
    claim = (b'{"kind": "seed", "meter_id": "m", "table_id": "t", "table_seq": ' + number
             + b', "index": 0, "occurred_at": "z"}')  # fmt: skip
    with pytest.raises(InvalidEvent, match="not a meter operation"):
        op_from_bytes(claim)


@pytest.mark.parametrize("number", [b"1e999", b"-1e999", b"Infinity"])
def test_a_divert_with_an_endless_number_is_invalid_not_a_crash(number: bytes) -> None:
    """The divert reader had the same OverflowError as the claim reader above."""
    record = (b'{"kind":"divert","meter_id":"m2","from_seq":3,"claim":{"meter_id":"m2",'
              b'"from_meter_id":"m1","table_id":"t","round_id":"r","amount_sub":' + number
              + b',"occurred_at":"z"}}')  # fmt: skip
    assert is_divert(record)
    with pytest.raises(InvalidEvent, match="not a divert record"):
        divert_from_bytes(record)


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        (by_name("table-id-lone-surrogate").payload(), b"tcp-?"),
        (json.dumps({"table_id": "t" * 100_000}).encode(), b"t" * 64),
    ],
)
def test_ingest_produces_a_rogue_table_id_under_a_safe_key(raw: bytes, key: bytes) -> None:
    """`jackpot kafka ingest` crashed on a line whose table_id could not be a key (found by the
    hostile run); now the line goes on the topic, for the round processor's door to refuse."""
    produced: list[tuple[str, bytes | None, bytes]] = []

    class Recording(TableEventProducer):
        def _produce(self, topic: str, key: bytes | None, value: bytes) -> None:
            produced.append((topic, key, value))

    Recording("127.0.0.1:9", NAMES).send(raw, "hostile:1")
    assert produced == [(NAMES.table_events, key, raw)]
