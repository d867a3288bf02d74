"""What an operator sees of a worker: its log says when it is assigned partitions, ready (state
restored) and revoked, and SIGTERM stops it within 10 s even in the middle of a backlog, with
nothing lost: a second worker finishes the input and the result equals `jackpot replay`.
(The faust worker once stayed up ignoring SIGTERM for 30 s: issue 13.)"""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient

from controller.config.floor import load_floor_config
from streams.cli.replay import replay_file
from streams.scaleout.dump import fold_document, read_events
from streams.scaleout.ingest import ingest_file
from tests.integration.services import require_kafka
from tests.integration.test_kafka_parity import (
    CONFIG,
    Worker,
    check_log,
    deploy,
    simulate,
    wait_caught_up,
)

pytestmark = pytest.mark.integration

STOP_WITHIN_S = 10.0


def test_sigterm_stops_a_busy_worker_within_10_s_and_loses_nothing(tmp_path: Path) -> None:
    bootstrap = require_kafka()
    events = simulate(tmp_path, rounds=40, seed=5150)
    names = deploy(bootstrap, table_partitions=1)
    ingest_file(bootstrap, names, events)
    worker = Worker(bootstrap, names, tmp_path)
    worker.start()
    try:
        deadline = time.monotonic() + 60
        while "ready " not in worker.logs(None) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)  # into the backlog
        assert worker.process is not None
        worker.process.send_signal(signal.SIGTERM)
        stopped = time.monotonic()
        code = worker.process.wait(timeout=30)
        took = time.monotonic() - stopped
        first = worker.logs(None)
        worker.start()
        wait_caught_up(worker, timeout=180)
    finally:
        worker.stop()
    assert code == 0, first
    assert took < STOP_WITHIN_S, f"SIGTERM took {took:.1f}s:\n{first}"
    for word in ("assigned ", "ready ", "stopping (signal 15)", "revoked "):
        assert word in first, first
    fold = read_events(bootstrap, names)
    assert fold.duplicates == 0
    check_log(bootstrap, names, fold, events)
    config = load_floor_config(CONFIG.read_text(encoding="utf-8"), str(CONFIG))
    document: dict[str, Any] = fold_document(config, fold.meters, fold)
    assert document["meters"] == replay_file(CONFIG, events)["meters"]


def test_a_worker_in_a_slot_is_a_static_member_whose_restart_takes_its_place(
    tmp_path: Path,
) -> None:
    """A supervised slot (``--slot``) is the group's ``group.instance.id`` (KIP-345): SIGKILLed
    and restarted in its slot, the worker takes its predecessor's place (one member, a new
    member id, the same instance id) instead of waiting out the dead member's session; a worker
    started without a slot stays a dynamic member."""
    bootstrap = require_kafka()
    events = simulate(tmp_path, rounds=4, seed=7)
    names = deploy(bootstrap, table_partitions=1)
    ingest_file(bootstrap, names, events)
    worker = Worker(bootstrap, names, tmp_path)
    try:
        worker.start(slot="w0")
        first = _members_once_ready(worker, names.app_id)
        worker.kill()
        worker.start(slot="w0")
        second = _members_once_ready(worker, names.app_id)
    finally:
        worker.stop()
    slot_id = f"{names.app_id}-w0"
    assert [m.group_instance_id for m in first] == [slot_id]
    assert [m.group_instance_id for m in second] == [slot_id]
    assert first[0].member_id != second[0].member_id


def test_a_worker_without_a_slot_is_a_dynamic_member(tmp_path: Path) -> None:
    bootstrap = require_kafka()
    names = deploy(bootstrap, table_partitions=1)
    worker = Worker(bootstrap, names, tmp_path)
    try:
        worker.start(slot="")
        members = _members_once_ready(worker, names.app_id)
    finally:
        worker.stop()
    assert [m.group_instance_id for m in members] == [None]


def _members_once_ready(worker: Worker, group: str) -> list[Any]:
    """The group's members once the running worker logged ``ready`` (its partitions restored)."""
    log = worker.folder / f"worker-{worker.starts}.log"
    deadline = time.monotonic() + 60
    while "ready " not in log.read_text(errors="replace") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert "ready " in log.read_text(errors="replace"), worker.logs()
    admin = AdminClient({"bootstrap.servers": worker.bootstrap})
    (future,) = admin.describe_consumer_groups([group]).values()
    return list(future.result(timeout=10).members)
