"""Parity: one simulated stream through the embedded reference and the Kafka engine.

The worker is the transactional one (`streams.scaleout.txloop`); every reader here reads
``read_committed``.

- **Exact** (table-events on one partition, so Kafka's order is the file's order): meters,
  awards and rejection reasons equal ``jackpot replay`` to the cent, and the workers' stored meter
  state equals a fold of the events topic.
- **Device retries** (one partition): a stream with exact repeats of recent events and one id
  reused for different content gives the embedded engine's (`EmbeddedController`) meters, awards
  and rejections; a repeat is a duplicate on both engines, never a second wager.
- **Scale-out** (six partitions): tables interleave differently, so percentage-of-meter amounts may
  legitimately differ; every meter still conserves money, and contributions, hit counts and the
  fixed and envy awards equal the reference exactly.

The helpers here (worker process, catching up) are shared with `test_kafka_faults`.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from controller.config.floor import FloorConfig, load_floor_config
from controller.model.errors import RuleViolation, StoreUnavailable
from controller.model.events import ProgressiveHit
from controller.model.views import awards_view, meters_view, rejected_view
from streams.adapters.kafka.read import read_values
from streams.adapters.kafka.topics import Layout, TopicNames, provision, topic_specs
from streams.adapters.memory import MemoryLog
from streams.cli.kafka import activate
from streams.cli.replay import replay_file
from streams.codec import decode
from streams.door.json_lines import parse_json_line
from streams.embedded.engine import EmbeddedController
from streams.scaleout.dump import (
    Fold,
    award_sort_key,
    consumer_lag,
    fold_document,
    read_events,
    worker_meters,
)
from streams.scaleout.ingest import event_id_of, ingest_file
from tests.integration.services import require_kafka

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / "examples" / "pa-three-card-poker.toml"
#: Lines the door refuses (malformed JSON, schema, unknown table): dead letters on both engines.
BAD_LINES = (
    b'{"type": "round_opened", "event_id": 1,}',
    b'{"type":"wager_placed","event_id":"bad-1","table_id":"tcp-1","round_id":"x","seq":1}',
    b'{"event_id":"bad-2","game":"three_card_poker","occurred_at":"2026-11-29T12:00:00Z",'
    b'"round_id":"nowhere-R1","seq":1,"table_id":"nowhere","type":"round_opened"}',
)


def simulate(folder: Path, rounds: int, seed: int, config: Path = CONFIG) -> Path:
    """A seeded simulated floor with the `BAD_LINES` spread through it."""
    raw = folder / "sim.jsonl"
    subprocess.run(
        [
            *(sys.executable, "-m", "streams.cli", "simulate", "--config", str(config)),
            *("--rounds", str(rounds), "--seed", str(seed), "--forced-hands", "0.05"),
            *("--out", str(raw)),
        ],
        check=True,
        capture_output=True,
        cwd=REPO,
    )
    lines = raw.read_bytes().splitlines()
    step = max(1, len(lines) // (len(BAD_LINES) + 1))
    for number, bad in enumerate(BAD_LINES, start=1):
        lines.insert(number * step, bad)
    events = folder / "events.jsonl"
    events.write_bytes(b"\n".join(lines) + b"\n")
    return events


def deploy(bootstrap: str, table_partitions: int, config: Path = CONFIG) -> TopicNames:
    """Fresh topics under a unique prefix, the configuration recorded and every meter seeded."""
    names = TopicNames(f"t{uuid.uuid4().hex[:10]}")
    layout = Layout(table_partitions=table_partitions, meter_partitions=6, other_partitions=3)
    created = provision(bootstrap, topic_specs(names, layout))
    activate(bootstrap, names, config, first=names.events in created)
    return names


def stop_process(process: subprocess.Popen[bytes] | None) -> None:
    """SIGTERM a child still running, SIGKILL it after 30 s; wait for it either way."""
    if process is None or process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=30)


class Worker:
    """``python -m streams.scaleout.worker`` as a child process, logging to a file."""

    def __init__(
        self, bootstrap: str, names: TopicNames, folder: Path, config: Path = CONFIG
    ) -> None:
        self.bootstrap, self.names, self.folder, self.config = bootstrap, names, folder, config
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self.metrics_port = 0  # set: every start serves /metrics there (--metrics-port)

    def start(self, env: dict[str, str] | None = None, slot: str = "w0") -> None:
        """Start the worker of ``slot``: a restart in the same slot reuses its transactional id,
        so its predecessor's open transaction is aborted at once (as under a StatefulSet)."""
        self.starts += 1
        log = (self.folder / f"worker-{self.starts}.log").open("wb")
        command = [sys.executable, "-m", "streams.scaleout.worker", "--bootstrap", self.bootstrap]
        command += ["--prefix", self.names.prefix, "--config", str(self.config)]
        command += ["--loglevel", "info", "--slot", slot]
        if self.metrics_port:
            command += ["--metrics-port", str(self.metrics_port)]
        self.process = subprocess.Popen(
            command,
            cwd=REPO,
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, **(env or {})},
        )
        log.close()

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL: no shutdown, no commit, buffers lost."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        stop_process(self.process)

    def catch_up(self, timeout: float) -> None:
        """Start the worker, wait until it has committed every input (`wait_caught_up`), stop it
        whatever happened: the whole life of a worker in most of these tests."""
        self.start()
        try:
            wait_caught_up(self, timeout=timeout)
        finally:
            self.stop()

    def logs(self, tail: int | None = 3000) -> str:
        """The workers' logs (the last ``tail`` characters of each; None: all)."""
        texts = [p.read_text(errors="replace") for p in sorted(self.folder.glob("worker-*.log"))]
        return "\n".join(t[-tail:] if tail else t for t in texts)


def wait_caught_up(worker: Worker, timeout: float, idle: Any = None, poll: float = 1.0) -> None:
    """Until the worker's group has committed every record of both input topics (twice in a
    row, ``poll`` seconds apart, so claims produced by the last round batch are counted);
    restart a dead worker."""
    names, deadline, zeros = worker.names, time.monotonic() + timeout, 0
    while zeros < 2:
        if time.monotonic() > deadline:
            pytest.fail(f"the worker did not catch up in {timeout}s:\n{worker.logs()}")
        if not worker.alive():
            worker.start()
        if idle is not None:
            idle()
        topics = [names.table_events, names.meter_claims]
        try:
            lag = consumer_lag(worker.bootstrap, names.app_id, topics)
        except StoreUnavailable:  # e.g. the group coordinator moving after a broker restart
            lag = -1
        zeros = zeros + 1 if lag == 0 else 0
        time.sleep(poll)


def check_log(bootstrap: str, names: TopicNames, fold: Fold, events: Path) -> None:
    """No step differed between deliveries, no meter_seq gap, the stored state equals the fold,
    every input line accepted exactly once or dead-lettered, every hit recorded once."""
    assert fold.problems == []
    assert worker_meters(bootstrap, names) == fold.meters
    lines = [line for line in events.read_bytes().splitlines() if line.strip()]
    ids = {i for line in lines if (i := event_id_of(line))}
    accepted = Counter(fold.accepted_ids)
    assert max(accepted.values()) == 1
    refused = {r.event_id for r in fold.rejected} & ids
    assert set(accepted) | refused == ids
    assert not set(accepted) & refused
    assert len(accepted) + len(fold.rejected) == len(lines)
    hits = [a.hit_id for a in fold.awards if isinstance(a, ProgressiveHit)]
    assert len(hits) == len(set(hits))
    assert len(set(read_values(bootstrap, names.dead_letter))) == len(fold.rejected)


def assert_matches_replay(fold: Fold, events: Path, config: Path = CONFIG) -> None:
    """Meters, awards and rejection reasons from the events topic equal ``jackpot replay`` of the
    same input file to the cent (the exact reference when the table events had one partition)."""
    floor = load_floor_config(config.read_text(encoding="utf-8"), str(config))
    document: dict[str, Any] = fold_document(floor, fold.meters, fold)
    reference: dict[str, Any] = replay_file(config, events)
    assert document["meters"] == reference["meters"]
    assert document["awards"] == sorted(reference["awards"], key=award_sort_key)
    assert comparable_reasons(document["rejected"]) == comparable_reasons(reference["rejected"])


def test_single_partition_stream_matches_the_embedded_engine_to_the_cent(tmp_path: Path) -> None:
    bootstrap = require_kafka()
    events = simulate(tmp_path, rounds=50, seed=20261129)
    names = deploy(bootstrap, table_partitions=1)
    assert ingest_file(bootstrap, names, events).produced == len(events.read_bytes().splitlines())
    worker = Worker(bootstrap, names, tmp_path)
    worker.catch_up(timeout=180)
    fold = read_events(bootstrap, names)
    assert_matches_replay(fold, events)
    check_log(bootstrap, names, fold, events)
    assert len(fold.accepted_ids) > 9_000


def test_partitioned_stream_conserves_and_matches_what_order_cannot_change(tmp_path: Path) -> None:
    bootstrap = require_kafka()
    events = simulate(tmp_path, rounds=30, seed=7)
    names = deploy(bootstrap, table_partitions=6)
    ingest_file(bootstrap, names, events)
    worker = Worker(bootstrap, names, tmp_path)
    worker.catch_up(timeout=180)
    fold = read_events(bootstrap, names)
    check_log(bootstrap, names, fold, events)
    for meter in fold.meters.values():
        assert meter.explained_sub() == meter.held_sub()
    document: dict[str, Any] = fold_document(_config(), fold.meters, fold)
    reference: dict[str, Any] = replay_file(CONFIG, events)
    for mine, theirs in zip(document["meters"], reference["meters"], strict=True):
        assert (mine["meter_id"], mine["contributed"], mine["hits"]) == (
            theirs["meter_id"],
            theirs["contributed"],
            theirs["hits"],
        )
    assert _order_free(document["awards"]) == _order_free(reference["awards"])
    assert comparable_reasons(document["rejected"]) == comparable_reasons(reference["rejected"])


def test_device_retries_are_duplicates_as_on_the_embedded_engine(tmp_path: Path) -> None:
    bootstrap = require_kafka()
    events = _with_retries(simulate(tmp_path, rounds=12, seed=31))
    names = deploy(bootstrap, table_partitions=1)
    ingest_file(bootstrap, names, events, resume=False)
    worker = Worker(bootstrap, names, tmp_path)
    worker.catch_up(timeout=180)
    fold = read_events(bootstrap, names)
    assert fold.problems == []
    document: dict[str, Any] = fold_document(_config(), fold.meters, fold)
    embedded = _embedded(events)
    assert document["meters"] == embedded["meters"]
    assert document["awards"] == sorted(embedded["awards"], key=award_sort_key)
    assert comparable_reasons(document["rejected"]) == comparable_reasons(embedded["rejected"])
    assert any(
        "already accepted for a different event" in r
        for r in comparable_reasons(embedded["rejected"])
    )


def _with_retries(events: Path) -> Path:
    """Every 50th event sent again a few lines later, and one id reused for another event."""
    lines = events.read_bytes().splitlines()
    out: list[bytes] = []
    for number, line in enumerate(lines):
        out.append(line)
        if number % 50 == 10:
            out.append(lines[number - 3])
    reused = json.loads(lines[200])
    reused["seq"] = reused["seq"] + 100_000
    out.insert(400, json.dumps(reused).encode())
    retried = events.with_name("retried.jsonl")
    retried.write_bytes(b"\n".join(out) + b"\n")
    return retried


def _embedded(events: Path) -> dict[str, Any]:
    """The embedded engine's meters, awards and rejections for the same lines."""
    log = MemoryLog()
    controller = EmbeddedController(log, MemoryLog())
    controller.start(CONFIG.read_text(encoding="utf-8"), str(CONFIG))
    for line in events.read_bytes().splitlines():
        try:
            raw = parse_json_line(line)
        except RuleViolation as exc:
            controller.record_rejection(line.decode("utf-8", "replace"), str(exc))
            continue
        controller.submit([raw])
    logged = [decode(r.payload) for r in log.read()]
    return {
        "meters": meters_view(controller.state),
        "awards": list(awards_view(logged)),
        "rejected": list(rejected_view(logged)),
    }


def _config() -> FloorConfig:
    return load_floor_config(CONFIG.read_text(encoding="utf-8"), str(CONFIG))


def comparable_reasons(rows: list[dict[str, object]]) -> list[str]:
    """The reasons, sorted; a malformed line's number is left out: `jackpot ingest` reads a file
    and names the line ("line 308: malformed JSON ..."), the Kafka door reads a record ("line:
    malformed JSON ..."): the same refusal, each saying where it can."""
    return sorted(re.sub(r"^line \d+: ", "line: ", str(r["reason"])) for r in rows)


def _order_free(rows: list[dict[str, object]]) -> list[tuple[str, ...]]:
    """Awards with what the interleaving of tables cannot change: fixed and envy in full,
    progressive without the amount (priced from the meter as the partitions interleaved)."""
    return sorted(
        award_sort_key({**r, "amount": "" if r["kind"] == "progressive" else r["amount"]})
        for r in rows
    )
