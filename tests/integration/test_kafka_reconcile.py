"""``jackpot kafka reconcile``: the Kafka engine's meters reconciled from its topics.

A worker processes a simulated floor; the command then reads the events topic
(``read_committed``) and reports every meter balanced, and with ``--state`` the workers' stored
meters equal the log's to the sub-unit (exit 0). The report's meters equal `jackpot replay`'s.
A forged contribution appended to the events topic (a wrong amount under a fresh id, as a
rogue producer with write access could) makes it exit 1 with the meter named.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest
from confluent_kafka import Producer

from controller.model.events import ContributionRecorded
from streams.codec import DEDUPE_HEADER, encode
from streams.scaleout.dump import read_events
from streams.scaleout.ingest import ingest_file
from tests.integration.services import require_kafka
from tests.integration.test_kafka_parity import (
    CONFIG,
    REPO,
    Worker,
    deploy,
    simulate,
)

pytestmark = pytest.mark.integration


def reconcile(bootstrap: str, prefix: str, *extra: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "streams.cli", "kafka", "reconcile", "--bootstrap", bootstrap]
    command += ["--prefix", prefix, "--config", str(CONFIG), "--format", "json", *extra]
    return subprocess.run(
        command, check=False, cwd=REPO, capture_output=True, text=True, timeout=120
    )


def test_reconcile_from_the_topics_balances_and_finds_a_forgery(tmp_path: Path) -> None:
    bootstrap = require_kafka()
    events = simulate(tmp_path, rounds=10, seed=404)
    names = deploy(bootstrap, table_partitions=1)
    ingest_file(bootstrap, names, events)
    worker = Worker(bootstrap, names, tmp_path)
    worker.catch_up(timeout=180)
    done = reconcile(bootstrap, names.prefix, "--state")
    assert done.returncode == 0, done.stderr + done.stdout
    report = json.loads(done.stdout)
    assert report["ok"] is True
    assert report["drift"] == []
    fold = read_events(bootstrap, names)
    contributions = [
        e
        for events_of in fold.meter_events.values()
        for e in events_of
        if isinstance(e, ContributionRecorded)
    ]
    assert contributions, "the floor contributed nothing: the test proves nothing"
    last = max(contributions, key=lambda e: e.meter_seq)
    payload = encode(dataclasses.replace(last, primary_sub=last.primary_sub + 7))
    producer = Producer({"bootstrap.servers": bootstrap})
    producer.produce(
        names.events,
        key=last.meter_id.encode(),
        value=payload,
        headers=[(DEDUPE_HEADER, b"forged")],
    )
    assert producer.flush(30) == 0
    forged_run = reconcile(bootstrap, names.prefix)
    assert forged_run.returncode == 1, forged_run.stdout
    assert last.meter_id in forged_run.stdout
