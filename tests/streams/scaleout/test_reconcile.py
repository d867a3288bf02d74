"""`streams.scaleout.reconcile` without a broker: how the events topic becomes one log, and the
stored meters compared with the log's to the sub-unit."""

from __future__ import annotations

from dataclasses import dataclass

from controller.model.state import MeterState
from streams.codec import DEDUPE_HEADER
from streams.reconcile.live import compare_live
from streams.scaleout.reconcile import StateMeters, log_of


@dataclass
class FakeMessage:
    """What `log_of` reads of a confluent-kafka message."""

    key_: bytes
    value_: bytes
    partition_: int
    dedupe: str

    def key(self) -> bytes:
        return self.key_

    def value(self) -> bytes:
        return self.value_

    def partition(self) -> int:
        return self.partition_

    def headers(self) -> list[tuple[str, bytes]]:
        return [(DEDUPE_HEADER, self.dedupe.encode())]


def test_configuration_first_then_partitions_in_order_each_id_once() -> None:
    messages = [
        FakeMessage(b"m1", b"a", 1, "m1@1"),
        FakeMessage(b"tcp-1", b"b", 0, "e1"),
        FakeMessage(b"floor", b"config", 2, "config:x"),
        FakeMessage(b"m1", b"c", 1, "m1@2"),
        FakeMessage(b"m1", b"a", 1, "m1@1"),  # the same record again: kept once
        FakeMessage(b"tcp-1", b"d", 0, "e2"),
    ]
    log = log_of(messages)  # type: ignore[arg-type]
    assert [(r.position, r.payload) for r in log.read()] == [
        (1, b"config"),
        (2, b"b"),
        (3, b"d"),
        (4, b"a"),
        (5, b"c"),
    ]


def test_stored_meters_that_differ_by_one_subunit_are_drift() -> None:
    log_meter = MeterState(meter_id="m1", amount_sub=1_000_000_001, reserve_sub=5, seq=9)
    same = StateMeters({"m1": log_meter})
    assert compare_live([log_meter], same) == ()
    off = MeterState(meter_id="m1", amount_sub=1_000_000_000, reserve_sub=5, seq=9)
    drifts = compare_live([log_meter], StateMeters({"m1": off}))
    assert [(d.field, d.status) for d in drifts] == [("amount", "drift")]
    missing = compare_live([log_meter], StateMeters({}))
    assert [(d.meter_id, d.status) for d in missing] == [("m1", "missing")]
