"""The Kafka rows (throughput, latency, the read side) skip cleanly without a broker; with one
(integration), they measure."""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable

import pytest

from bench import (
    kafka_host,
    kafka_latency,
    kafka_latency_child,
    kafka_latency_clock,
    kafka_readside,
)
from bench.common import PRESETS, Row, Settings
from bench.kafka import run_rows
from tests.integration.services import require_kafka


@pytest.mark.parametrize(
    "rows", [run_rows, kafka_latency.run_rows, kafka_readside.run_rows], ids=lambda f: f.__module__
)
def test_no_broker_skips_the_row(
    monkeypatch: pytest.MonkeyPatch, rows: Callable[[Settings], list[Row]]
) -> None:
    monkeypatch.delenv("KAFKA_BOOTSTRAP", raising=False)
    assert rows(PRESETS["tiny"]) == []


@pytest.mark.integration
def test_tiny_run_on_a_broker(monkeypatch: pytest.MonkeyPatch) -> None:
    """The row and, with the broker's process named (here this process, which reads the
    outputs: a broker in a container has no pid here), each contender's CPU, the broker's and
    the run-queue wait an event (`bench.kafka.costs`)."""
    monkeypatch.setenv("KAFKA_BOOTSTRAP", require_kafka())
    monkeypatch.setenv(kafka_host.BROKER_PID_ENV, str(os.getpid()))
    (row,) = run_rows(PRESETS["tiny"])
    assert row.value > 0
    assert row.reference is not None
    assert row.reference > 0
    for name in ("worker", "plain-tx", "plain"):
        for figure in ("cpu", "broker_cpu", "runq_wait"):
            value = row.extra[f"{name}_{figure}_us_per_event"]
            assert isinstance(value, int)
            assert value >= 0


@pytest.mark.integration
def test_tiny_latency_run_on_a_broker(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every round whose wagers_locked was sent after the warm-up has its latency measured:
    the reader saw all of its contributions."""
    monkeypatch.setenv("KAFKA_BOOTSTRAP", require_kafka())
    (row,) = kafka_latency.run_rows(PRESETS["tiny"])
    assert row.value > 0
    rounds = row.extra["defaults_rounds"]
    assert isinstance(rounds, int)
    assert rounds > 0
    assert rounds == row.extra["defaults_rounds_expected"]
    assert row.samples
    # the reference: the plain relay timed every one of the same rounds
    assert row.extra["plain_relay_rounds"] == row.extra["plain_relay_rounds_expected"] == rounds
    assert row.reference is not None
    assert row.reference > 0
    assert len(row.reference_samples) == rounds


def test_a_rounds_latency_splits_into_its_stages() -> None:
    """Hand-worked: a round of two contributions, sent at perf 10.000 (wall 1010.000), claims
    produced at wall 1010.004 and 1010.012 (last one counts), seen at 1010.020; contributions
    produced at 1010.030 and 1010.041, the last read at perf 10.050: 50 ms = 12 + 8 + 21 + 9."""
    where = ("tcp-1", "R000001")
    clock = kafka_latency_clock.Clock(Counter({where: 2}), epoch=1000.0)
    clock.due[where] = 10.0
    clock.claim(where, 1010.004, 1010.015)
    clock.claim(where, 1010.012, 1010.020)
    clock.read(where, 10.045, 1010.030)
    assert clock.latencies_ms == []  # one contribution of two: not yet
    clock.read(where, 10.050, 1010.041)
    assert clock.latencies_ms == [pytest.approx(50.0)]
    stages = {name: gaps[0] for name, gaps in clock.stages_ms.items()}
    assert stages == pytest.approx(
        {"to_claim": 12.0, "claim_commit": 8.0, "to_contribution": 21.0, "contribution_commit": 9.0}
    )
    hops = {name: gaps[0] for name, gaps in clock.hops_ms.items()}  # 50 = 41 + 9
    assert hops == pytest.approx({"to_output": 41.0, "output_visible": 9.0})


def test_a_round_sent_during_the_warmup_is_not_counted() -> None:
    where = ("tcp-1", "R000001")
    clock = kafka_latency_clock.Clock(Counter({where: 1}), epoch=1000.0, counted_from=11.0)
    clock.due[where] = 10.0
    clock.read(where, 10.050, 1010.041)
    assert clock.latencies_ms == []
    assert clock.stages_ms == {}


def test_a_round_whose_claims_were_not_read_has_a_latency_but_no_stages() -> None:
    """Seen in a run: a round's contributions read, its claims not; its stages were measured
    from 0 (to_contribution p99 1,796,206,408,154 ms)."""
    where = ("tcp-1", "R000001")
    clock = kafka_latency_clock.Clock(Counter({where: 1}), epoch=1000.0)
    clock.due[where] = 10.0
    clock.read(where, 10.050, 1010.041)
    assert clock.latencies_ms == [pytest.approx(50.0)]
    assert clock.stages_ms == {}


class Copied:
    """What `relayed_record` reads of a record the relay copied."""

    def __init__(self, raw: dict[str, object], created_ms: int) -> None:
        self.raw, self.created_ms = raw, created_ms

    def value(self) -> bytes:
        return json.dumps(self.raw).encode()

    def timestamp(self) -> tuple[int, int]:
        return (1, self.created_ms)


def test_the_relays_round_ends_with_its_wagers_locked_copy() -> None:
    """The relay's clock counts one record per round that has contributions (as the worker's
    contender counts the rounds); a copied table event of another type ends nothing."""
    where, quiet = ("tcp-1", "R000001"), ("tcp-2", "R000009")
    expected = kafka_latency_clock.relayed(Counter({where: 3, quiet: 0}))
    assert expected == Counter({where: 1})
    clock = kafka_latency_clock.Clock(expected, epoch=1000.0, relay=True)
    clock.due[where] = 10.0
    opened = {"type": "round_opened", "table_id": "tcp-1", "round_id": "R000001"}
    kafka_latency_clock.relayed_record(clock, Copied(opened, 1010020), 10.020)  # type: ignore[arg-type]
    assert clock.latencies_ms == []
    other = {"type": "wagers_locked", "table_id": "tcp-2", "round_id": "R000009"}
    kafka_latency_clock.relayed_record(clock, Copied(other, 1010025), 10.025)  # type: ignore[arg-type]
    assert not clock.seen  # the quiet round's copy: else `seen` never equals `expected`
    locked = {**opened, "type": "wagers_locked"}
    kafka_latency_clock.relayed_record(clock, Copied(locked, 1010030), 10.034)  # type: ignore[arg-type]
    assert clock.latencies_ms == [pytest.approx(34.0)]
    assert clock.seen == clock.expected  # so the reader stops without waiting out `DRAIN_S`
    assert clock.stages_ms == {}  # one hop, nothing to split
    hops = {name: gaps[0] for name, gaps in clock.hops_ms.items()}  # but split as the worker's
    assert hops == pytest.approx({"to_output": 30.0, "output_visible": 4.0})


def test_starved_is_per_second_of_the_run() -> None:
    """2 s of run: 0.5 s of the child's threads' run-queue wait, 0.3 s of host CPU pressure;
    what was unreadable at either end is left out. The wait thread by thread: thread "2" ended
    between the marks (with the sums compared, its 0.5 s made the wait 0), "3" began."""
    before = (10.0, {"1": 1.0, "2": 0.5}, 100.0)
    after = (12.0, {"1": 1.25, "3": 0.25}, 100.3)
    figures = kafka_latency_child.starved(before, after)
    assert figures == pytest.approx({"child_runq_wait_ms": 250.0, "host_cpu_pressure": 0.15})
    assert kafka_latency_child.starved((10.0, None, 1.0), (12.0, {"1": 1.0}, None)) == {}


def test_this_process_has_a_run_queue_wait() -> None:
    """Read from /proc where there is one (Linux; None elsewhere)."""
    wait = kafka_host.run_queue_wait_s(os.getpid())
    assert wait is None or wait >= 0.0
