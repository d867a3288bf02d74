"""Heartbeats on the Kafka engine (issue 7): the round processor accepts them without
dead-lettering them and without sending them to the events topic, and counts them in its metrics.

A simulated stream with a heartbeat from every table every 20 lines (and one from a table the
floor does not have) goes through a real broker and one worker, on one partition so the order is
the file's: the meters, awards and rejections equal the embedded engine's for the same lines, no
heartbeat id is on the events topic, the only heartbeat dead-lettered is the unknown table's, and
``jackpot_inputs_total{outcome="heartbeat",processor="round"}`` counts the others.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from streams.adapters.kafka.read import read_values
from streams.scaleout.dump import award_sort_key, fold_document, read_events
from streams.scaleout.ingest import ingest_file
from tests.integration.services import require_kafka
from tests.integration.test_kafka_parity import (
    CONFIG,
    REPO,
    Worker,
    _config,
    _embedded,
    comparable_reasons,
    deploy,
    simulate,
    wait_caught_up,
)

pytestmark = pytest.mark.integration

TABLES = [f"tcp-{n}" for n in range(1, 9)]


def heartbeat(table: str, n: int) -> bytes:
    body = {
        "event_id": f"hb-{table}-{n}",
        "type": "heartbeat",
        "table_id": table,
        "occurred_at": "2026-11-29T16:00:00Z",
        "schema_version": 2,
    }
    return json.dumps(body, separators=(",", ":")).encode()


def with_heartbeats(events: Path) -> tuple[Path, int]:
    """Every 20th line followed by a heartbeat from each table; one from an unknown table."""
    out: list[bytes] = []
    beats = 0
    for number, line in enumerate(events.read_bytes().splitlines()):
        out.append(line)
        if number % 20 == 5:
            out.extend(heartbeat(table, number) for table in TABLES)
            beats += len(TABLES)
    out.insert(7, heartbeat("tcp-99", 0))
    path = events.with_name("with-heartbeats.jsonl")
    path.write_bytes(b"\n".join(out) + b"\n")
    return path, beats


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def heartbeat_outcomes(port: int) -> float:
    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
    line = r'^jackpot_inputs_total\{outcome="heartbeat",processor="round"\} (\S+)$'
    found = re.search(line, text, flags=re.MULTILINE)
    return float(found.group(1)) if found else 0.0


def start_with_metrics(worker: Worker, port: int) -> None:
    """`Worker.start`, with the worker's Prometheus endpoint on ``port``."""
    worker.starts += 1
    log = (worker.folder / f"worker-{worker.starts}.log").open("wb")
    command = [sys.executable, "-m", "streams.scaleout.worker", "--bootstrap", worker.bootstrap]
    command += ["--prefix", worker.names.prefix, "--config", str(CONFIG)]
    command += ["--data-dir", str(worker.folder / "data"), "--loglevel", "warning"]
    command += ["--metrics-port", str(port)]
    worker.process = subprocess.Popen(
        command, cwd=REPO, stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ)
    )
    log.close()


def test_heartbeats_pass_the_round_processor_and_change_nothing(tmp_path: Path) -> None:
    bootstrap = require_kafka()
    events, beats = with_heartbeats(simulate(tmp_path, rounds=6, seed=17))
    names = deploy(bootstrap, table_partitions=1)
    ingest_file(bootstrap, names, events, resume=False)
    port = free_port()
    worker = Worker(bootstrap, names, tmp_path)
    start_with_metrics(worker, port)
    try:
        wait_caught_up(worker, timeout=180)
        counted = heartbeat_outcomes(port)
    finally:
        worker.stop()
    assert counted == beats, worker.logs()
    fold = read_events(bootstrap, names)
    assert fold.problems == []
    assert not [i for i in fold.accepted_ids if i.startswith("hb-")]
    document: dict[str, Any] = fold_document(_config(), fold.meters, fold)
    embedded = _embedded(events)
    assert document["meters"] == embedded["meters"]
    assert document["awards"] == sorted(embedded["awards"], key=award_sort_key)
    assert comparable_reasons(document["rejected"]) == comparable_reasons(embedded["rejected"])
    dead = [json.loads(v) for v in read_values(bootstrap, names.dead_letter)]
    beats_dead = [d for d in dead if '"type":"heartbeat"' in d["raw"]]
    assert [d["reason"][:22] for d in beats_dead] == ["unknown table 'tcp-99'"]
