"""``jackpot kafka migrate-changelog`` on a real broker: a deployment of the two changelogs of
before moves to the shared one, and its workers resume where they stopped.

Half of a simulated floor runs on the old layout; the command refuses while a worker runs, then
copies, checks and deletes; the stored meters read the same from the shared changelog; the other
half runs on it. Had any state or progress mark been lost, the worker would process the first
half again (duplicates on the events topic) or from a wrong state (meters off the replay).
"""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from controller.model.errors import AdapterError
from streams.adapters.kafka.topics import (
    Layout,
    TopicNames,
    legacy_changelogs,
    partition_counts,
    provision,
    topic_specs,
)
from streams.cli.kafka import activate
from streams.scaleout.dump import read_events, worker_meters
from streams.scaleout.ingest import ingest_file
from streams.scaleout.migrate import refuse_running_workers
from streams.scaleout.store import changelog_topics
from tests.integration.services import require_kafka
from tests.integration.test_kafka_parity import (
    CONFIG,
    REPO,
    Worker,
    assert_matches_replay,
    check_log,
    simulate,
    wait_caught_up,
)

pytestmark = pytest.mark.integration


def deploy_of_before(bootstrap: str) -> TopicNames:
    """A deployment provisioned with the two old changelogs (and, as `provision` adds it on
    such a deployment, the shared one, empty); one table partition, so order is the file's."""
    names = TopicNames(f"mig{uuid.uuid4().hex[:10]}")
    layout = Layout(table_partitions=1, meter_partitions=6, other_partitions=3)
    created = provision(bootstrap, [*topic_specs(names, layout), *legacy_changelogs(names, layout)])
    activate(bootstrap, names, CONFIG, first=names.events in created)
    return names


def migrate_cli(bootstrap: str, names: TopicNames, *extra: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "streams.cli", "kafka", "migrate-changelog"]
    command += ["--bootstrap", bootstrap, "--prefix", names.prefix, *extra]
    return subprocess.run(
        command, check=False, cwd=REPO, capture_output=True, text=True, timeout=300
    )


def wait_group_empty(bootstrap: str, names: TopicNames, timeout: float = 60.0) -> None:
    """Until the stopped worker has left its group (a SIGKILLed one stays a member until its
    session times out)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            refuse_running_workers(bootstrap, names)
            return
        except AdapterError:
            if time.monotonic() > deadline:
                raise
            time.sleep(1)


def halves(events: Path) -> tuple[Path, Path]:
    lines = events.read_bytes().splitlines(keepends=True)
    first, second = events.with_name("first.jsonl"), events.with_name("second.jsonl")
    first.write_bytes(b"".join(lines[: len(lines) // 2]))
    second.write_bytes(b"".join(lines[len(lines) // 2 :]))
    return first, second


def test_a_deployment_of_before_moves_to_the_shared_changelog(tmp_path: Path) -> None:
    bootstrap = require_kafka()
    events = simulate(tmp_path, rounds=30, seed=20261203)
    first, second = halves(events)
    names = deploy_of_before(bootstrap)
    ingest_file(bootstrap, names, first)
    worker = Worker(bootstrap, names, tmp_path)
    worker.start()
    try:
        wait_caught_up(worker, timeout=180)
        refused = migrate_cli(bootstrap, names, "--delete-old")
        assert refused.returncode == 2, refused.stdout
        assert "stop every worker" in refused.stderr
        assert len(refused.stderr.strip().splitlines()) == 1
    finally:
        worker.stop()
    wait_group_empty(bootstrap, names)
    stored = worker_meters(bootstrap, names)  # from the old meters changelog
    assert stored

    done = migrate_cli(bootstrap, names, "--delete-old")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("read back equal") == 2
    assert set(partition_counts(bootstrap, changelog_topics(names))) == {names.state_changelog}
    assert worker_meters(bootstrap, names) == stored  # now from the shared one
    assert "nothing to move" in migrate_cli(bootstrap, names).stdout

    ingest_file(bootstrap, names, second)
    worker.catch_up(timeout=180)
    fold = read_events(bootstrap, names)
    assert fold.duplicates == 0, "the worker processed records again: progress was lost"
    assert_matches_replay(fold, events)
    check_log(bootstrap, names, fold, events)
