"""Kafka with SASL/SCRAM-SHA-512, end to end, configured from settings only.

The module starts a broker of its own with ``scripts/kafka.sh`` (``KAFKA_SECURITY_PROTOCOL=
SASL_PLAINTEXT``, a fresh random password in a 0600 file, free loopback ports, a temporary run
dir) and stops it at the end. The commands get their credentials as a deployment does, from the
environment with a password file (``KAFKA_SASL_PASSWORD_FILE``); the calls made in this process
use `streams.adapters.kafka.security.activate`.

- a simulated stream provisioned, ingested, processed by a worker and read back equals
  ``jackpot replay`` to the cent (one partition, so Kafka's order is the file's);
- a wrong password and a plaintext client are refused, each with a message saying why, and the
  commands that tried changed nothing.

Under CI a broker that cannot start fails the test (never skips).
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from controller.config.floor import load_floor_config
from controller.model.errors import StoreUnavailable
from streams.adapters.kafka.security import KafkaSecurity, activate, check_access
from streams.adapters.kafka.topics import TopicNames, partition_counts
from streams.cli.replay import replay_file
from streams.scaleout.dump import award_sort_key, fold_document, read_events
from tests.integration.services import in_ci
from tests.integration.test_kafka_parity import (
    CONFIG,
    REPO,
    Worker,
    comparable_reasons,
    simulate,
)

pytestmark = pytest.mark.integration

USER = "jackpot-test"
#: Variables of the surrounding shell that must not leak into this broker's commands.
INHERITED = (
    "KAFKA_BOOTSTRAP",
    "KAFKA_SECURITY_PROTOCOL",
    "KAFKA_SASL_MECHANISM",
    "KAFKA_SASL_USERNAME",
    "KAFKA_SASL_PASSWORD",
    "KAFKA_SASL_PASSWORD_FILE",
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass(frozen=True)
class SaslBroker:
    """A running SASL broker and the environment its clients need."""

    bootstrap: str
    security: KafkaSecurity
    client_env: dict[str, str]
    folder: Path


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in INHERITED}
    return {**env, **extra}


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SaslBroker]:
    folder = tmp_path_factory.mktemp("kafka-sasl")
    password = secrets.token_hex(24)
    password_file = folder / "kafka-password"
    password_file.write_text(password + "\n", encoding="utf-8")
    password_file.chmod(0o600)
    port = int(os.environ.get("KAFKA_SASL_TEST_PORT") or free_port())
    controller_port = int(os.environ.get("KAFKA_SASL_TEST_CONTROLLER_PORT") or free_port())
    while controller_port == port:  # two probes may get the same ephemeral port back
        controller_port = free_port()
    client_env = _env(
        KAFKA_SECURITY_PROTOCOL="SASL_PLAINTEXT",
        KAFKA_SASL_MECHANISM="SCRAM-SHA-512",
        KAFKA_SASL_USERNAME=USER,
        KAFKA_SASL_PASSWORD_FILE=str(password_file),
        KAFKA_SASL_PASSWORD="",  # empty is unset: `Worker` merges this into os.environ
    )
    service_env = {
        **client_env,
        "KAFKA_PORT": str(port),
        "KAFKA_CONTROLLER_PORT": str(controller_port),
        "KAFKA_RUN_DIR": str(folder / "run"),
    }
    _kafka_sh("start", service_env)
    security = KafkaSecurity("SASL_PLAINTEXT", "SCRAM-SHA-512", USER, password)
    activate(security)
    try:
        yield SaslBroker(f"127.0.0.1:{port}", security, client_env, folder)
    finally:
        activate(None)
        _kafka_sh("stop", service_env)


def _kafka_sh(command: str, env: dict[str, str]) -> None:
    done = subprocess.run(
        [str(REPO / "scripts" / "kafka.sh"), command],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if done.returncode != 0:
        message = f"scripts/kafka.sh {command} (SASL) failed:\n{done.stderr[-3000:]}"
        if in_ci() or command != "start":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)


class SaslWorker(Worker):
    """A `Worker` whose every start (restarts too) gets the same credentials."""

    def __init__(self, broker: SaslBroker, names: TopicNames, env: dict[str, str]) -> None:
        super().__init__(broker.bootstrap, names, broker.folder / names.prefix)
        self.folder.mkdir()
        self.env = env

    def start(self, env: dict[str, str] | None = None, slot: str = "w0") -> None:
        super().start({**self.env, **(env or {})}, slot)


def jackpot(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """``jackpot ARGS`` in a child process with ``env``."""
    return subprocess.run(
        [sys.executable, "-m", "streams.cli", *args],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_stream_through_sasl_matches_the_replay_to_the_cent(
    broker: SaslBroker, tmp_path: Path
) -> None:
    events = simulate(tmp_path, rounds=6, seed=20261201)
    names = TopicNames(f"s{uuid.uuid4().hex[:10]}")
    common = ("--bootstrap", broker.bootstrap, "--prefix", names.prefix)
    layout = ("--table-partitions", "1", "--config", str(CONFIG))  # Kafka's order = the file's
    provision = jackpot(broker.client_env, "kafka", "provision", *common, *layout)
    assert provision.returncode == 0, provision.stderr
    ingest = jackpot(broker.client_env, "kafka", "ingest", *common, str(events))
    assert ingest.returncode == 0, ingest.stderr
    worker = SaslWorker(broker, names, broker.client_env)
    worker.catch_up(timeout=180)
    assert_fold_is_the_replay(broker.bootstrap, names, events)


def assert_fold_is_the_replay(bootstrap: str, names: TopicNames, events: Path) -> None:
    """The events topic's fold: the meters, awards and rejection reasons `jackpot replay` gives
    for ``events`` (the stream is big enough to mean something)."""
    fold = read_events(bootstrap, names)
    config = load_floor_config(CONFIG.read_text(encoding="utf-8"), str(CONFIG))
    document: dict[str, Any] = fold_document(config, fold.meters, fold)
    reference: dict[str, Any] = replay_file(CONFIG, events)
    assert fold.problems == []
    assert document["meters"] == reference["meters"]
    assert document["awards"] == sorted(reference["awards"], key=award_sort_key)
    assert comparable_reasons(document["rejected"]) == comparable_reasons(reference["rejected"])
    assert len(fold.accepted_ids) > 500


def test_a_wrong_password_and_a_plaintext_client_are_refused_with_the_reason(
    broker: SaslBroker, tmp_path: Path
) -> None:
    wrong = KafkaSecurity("SASL_PLAINTEXT", "SCRAM-SHA-512", USER, secrets.token_hex(24))
    with pytest.raises(StoreUnavailable, match=r"refused .* invalid credentials"):
        check_access(broker.bootstrap, wrong)
    with pytest.raises(StoreUnavailable, match="closed the connection of a PLAINTEXT client"):
        check_access(broker.bootstrap, KafkaSecurity())
    check_access(broker.bootstrap, broker.security)

    wrong_file = tmp_path / "wrong-password"
    wrong_file.write_text(secrets.token_hex(24), encoding="utf-8")
    names = TopicNames(f"s{uuid.uuid4().hex[:10]}")
    common = ("--bootstrap", broker.bootstrap, "--prefix", names.prefix)
    impostor = {**broker.client_env, "KAFKA_SASL_PASSWORD_FILE": str(wrong_file)}
    refused = jackpot(impostor, "kafka", "provision", *common)
    assert refused.returncode == 2
    assert "invalid credentials" in refused.stderr, refused.stderr
    plaintext = jackpot(_env(), "kafka", "provision", *common)
    assert plaintext.returncode == 2
    assert "requires authentication" in plaintext.stderr, plaintext.stderr
    worker = SaslWorker(broker, names, impostor)
    worker.start()
    assert worker.process is not None
    assert worker.process.wait(timeout=60) != 0
    assert "invalid credentials" in worker.logs()
    assert partition_counts(broker.bootstrap, [names.table_events, names.events]) == {}
