"""The bytes the embedded engine writes: stable, so a retry of an event logged by an older
version is still recognised byte for byte, and each record is exactly `encode` of its event."""

from __future__ import annotations

import json

import pytest

from controller.codec import event_from_dict, event_to_dict
from controller.model.errors import InvalidEvent
from controller.model.events import ConfigActivated
from streams.adapters.memory import MemoryLog
from streams.codec import decode, encode, fold_log
from streams.embedded.engine import EmbeddedController
from tests.streams.http.support import CONFIG, full_round


def _json_dumps_bytes(value: object) -> bytes:
    """The log encoding as it has always been written."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True).encode()


def _started() -> tuple[EmbeddedController, MemoryLog]:
    log = MemoryLog()
    controller = EmbeddedController(log, log, clock=lambda: "2026-11-29T16:00:00Z")
    controller.start(CONFIG.read_text(encoding="utf-8"), str(CONFIG))
    return controller, log


def test_encode_writes_what_json_dumps_wrote_including_escaped_non_ascii() -> None:
    _, log = _started()
    config_record = next(iter(log.read()))
    event = decode(config_record.payload)
    assert isinstance(event, ConfigActivated)
    assert "§" in event.text  # the example floor cites its rules
    assert encode(event) == _json_dumps_bytes(event_to_dict(event))
    assert b"\\u00a7" in config_record.payload
    assert config_record.payload.isascii()


def test_every_record_the_engine_appends_is_encode_of_its_event() -> None:
    controller, log = _started()
    before = log.head()
    outcomes = controller.submit(full_round() + full_round(table="tcp-2"))
    assert {o.status for o in outcomes} == {"accepted"}
    records = list(log.read(after=before))
    assert len(records) > len(outcomes)  # contributions and meter events too
    for record in records:
        assert record.payload == encode(decode(record.payload))


def test_a_retry_of_a_logged_batch_is_a_duplicate_and_appends_nothing() -> None:
    controller, log = _started()
    controller.submit(full_round())
    head = log.head()
    again = controller.submit(full_round())
    assert [o.status for o in again] == ["duplicate"] * len(again)
    assert log.head() == head


def test_decode_reads_what_json_loads_read_and_refuses_a_non_object() -> None:
    controller, log = _started()
    controller.submit(full_round())
    for record in log.read():
        assert decode(record.payload) == event_from_dict(json.loads(record.payload))
    with pytest.raises(InvalidEvent, match="not an event object"):
        decode(b"[1, 2]")


def test_a_refused_input_whose_id_holds_a_lone_surrogate_replays() -> None:
    """Found by the hostile run on Kafka: a refused event's id may hold a lone surrogate, which
    the encoder writes as a \\ud800 escape; msgspec refuses to parse that escape, so a log holding
    such a dead letter could not be replayed (a restart would fail). json.loads reads it back."""
    controller, log = _started()
    before = log.head()
    hostile = {"event_id": "hostile:\ud800", "type": "round_opened", "table_id": "tcp-1"}
    (outcome,) = controller.submit([hostile])
    assert outcome.status == "rejected"
    (record,) = log.read(after=before)
    assert b"\\ud800" in record.payload
    assert decode(record.payload) == event_from_dict(json.loads(record.payload))
    assert fold_log(log)[0] == controller.state
