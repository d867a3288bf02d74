"""The host's costs of a Kafka contender (`bench.kafka_host`) and the row's figures made of them
(`bench.kafka.costs`): what says where the 2 cores went besides the wall time."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bench import kafka, kafka_host
from bench.kafka_parts import Timing


def timing(cpu: float | None, broker: float | None, runq: float | None) -> Timing:
    return Timing(wall=9.0, startup=1.0, steady=2.0, cpu=cpu, broker_cpu=broker, runq=runq)


def test_costs_are_medians_an_input_event_each_where_read() -> None:
    """1,000 events: the median of each figure over the repetitions, in µs an event; a figure
    no repetition read is left out, one some did not read is their median."""
    timings = [timing(0.030, 0.020, None), timing(0.020, None, None), timing(0.028, 0.040, None)]
    assert kafka.costs("worker", timings, 1_000) == {
        "worker_cpu_us_per_event": 28,
        "worker_broker_cpu_us_per_event": 30,
    }
    assert kafka.costs("plain", [timing(None, None, 0.005)], 1_000) == {
        "plain_runq_wait_us_per_event": 5
    }


def test_the_broker_is_named_or_found_in_the_run_dir(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``BENCH_KAFKA_BROKER_PID`` first, else ``$KAFKA_RUN_DIR/kafka.pid`` (`scripts/kafka.sh`),
    else none."""
    monkeypatch.delenv(kafka_host.BROKER_PID_ENV, raising=False)
    monkeypatch.delenv("KAFKA_RUN_DIR", raising=False)
    assert kafka_host.broker_pid() is None
    (tmp_path / "kafka.pid").write_text("4321\n")
    monkeypatch.setenv("KAFKA_RUN_DIR", str(tmp_path))
    assert kafka_host.broker_pid() == 4321
    monkeypatch.setenv(kafka_host.BROKER_PID_ENV, "77")
    assert kafka_host.broker_pid() == 77
    monkeypatch.setenv(kafka_host.BROKER_PID_ENV, "")
    (tmp_path / "kafka.pid").write_text("gone")
    assert kafka_host.broker_pid() is None


def test_spent_is_the_difference_of_two_marks_or_none() -> None:
    """The run-queue wait thread by thread: thread 2 ended between the marks (its 0.5 s would
    have made the sum's difference negative), thread 3 began (counted whole)."""
    first = kafka_host.Mark(cpu=1.0, broker_cpu=None, runq={"1": 0.5, "2": 0.5}, at=10.0)
    last = kafka_host.Mark(cpu=1.25, broker_cpu=3.0, runq={"1": 0.75, "3": 0.125}, at=12.0)
    assert kafka_host.spent(first, last, "cpu") == pytest.approx(0.25)
    assert kafka_host.spent(first, last, "runq") == pytest.approx(0.375)
    assert kafka_host.spent(first, last, "broker_cpu") is None
    assert kafka_host.spent(None, last, "cpu") is None


def test_this_process_marks_its_own_costs() -> None:
    """Read from /proc where there is one (Linux; None elsewhere); this process as its own
    "broker" reads the same CPU."""
    here = os.getpid()
    before = kafka_host.mark(here, here)
    sum(i * i for i in range(200_000))  # some CPU between the two marks
    after = kafka_host.mark(here, here)
    if before.cpu is None:
        return
    assert after.cpu is not None
    assert after.cpu >= before.cpu
    assert after.broker_cpu is not None
    assert before.broker_cpu is not None
    assert after.broker_cpu >= before.broker_cpu
    assert after.at > before.at
