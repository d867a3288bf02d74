"""Kafka ACLs end to end: each role's user can do its job on a SASL broker with the authorizer on,
and the forgeries the roles exist to stop are refused by the broker.

The module starts a broker of its own with ``scripts/kafka.sh`` (SASL/SCRAM, so the authorizer
is on; ports from ``KAFKA_ACL_TEST_PORT`` / ``KAFKA_ACL_TEST_CONTROLLER_PORT``, else free ones; a
temporary run dir) and stops it at the end. The admin user (a super user) provisions a prefix and,
with ``jackpot kafka grant``, gives each role to a user of its own, added with ``scripts/kafka.sh
add-user`` (password on stdin). Then:

- the device user ingests a simulated stream, but producing to meter-claims or events is refused
  with TOPIC_AUTHORIZATION_FAILED, and resuming (which reads the topic) says what to do;
- a worker running as the worker user processes the stream: meters, awards and rejections equal
  ``jackpot replay`` to the cent (one partition), and the reader user's ``dump`` shows the same;
- the signage user reads the events in its own group, but cannot read table-events, use
  another group, or write the events topic; it runs the projector with the faust liveness
  watch (its GlobalTable's group under the role's prefix) and both boards are written;
- ``jackpot kafka readside`` runs as the readside user: its aggregates (its changelog) equal the
  sums of the committed events topic, its log has no authorization error; as that user another
  group (whose topics it may not create) is one line and exit 2, and writing events, reading
  table-events or joining the worker's group is refused;
- granting again adds nothing; only the admin may grant or list;
- the controller listener authenticates too: a wrong password is refused there (were it
  PLAINTEXT, its principal User:ANONYMOUS would have to be a super user for the broker to
  register, and anyone on the host could alter the cluster through it).

Under CI a broker that cannot start fails the test (never skips), as in `test_kafka_sasl`.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

from controller.config.floor import load_floor_config
from controller.model.errors import StoreUnavailable
from streams.adapters.kafka.security import KafkaSecurity, activate, check_access
from streams.adapters.kafka.topics import TopicNames
from streams.adapters.redis.read_model import RedisReadModel
from streams.cli.replay import replay_file
from tests.integration.services import require_redis
from tests.integration.test_kafka_parity import CONFIG, REPO, simulate
from tests.integration.test_kafka_readside import expected_sums, stored_sums
from tests.integration.test_kafka_sasl import (
    SaslBroker,
    SaslWorker,
    _env,
    _kafka_sh,
    assert_fold_is_the_replay,
    free_port,
    jackpot,
)

pytestmark = pytest.mark.integration

ADMIN = "acl-admin"
ROLES = ("device", "worker", "signage", "reader", "readside")


@dataclass(frozen=True)
class AclBroker:
    """A SASL broker with the authorizer on: the admin's side, and one user per role."""

    admin: SaslBroker
    users: dict[str, KafkaSecurity]  # role -> its user's settings
    envs: dict[str, dict[str, str]]  # role -> the environment its commands run with
    controller: str  # the controller listener's address

    @property
    def bootstrap(self) -> str:
        return self.admin.bootstrap


def _secret(folder: Path, name: str) -> tuple[str, Path]:
    password = secrets.token_hex(24)
    path = folder / f"{name}.password"
    path.write_text(password + "\n", encoding="utf-8")
    path.chmod(0o600)
    return password, path


def _client_env(user: str, password_file: Path) -> dict[str, str]:
    return _env(
        KAFKA_SECURITY_PROTOCOL="SASL_PLAINTEXT",
        KAFKA_SASL_MECHANISM="SCRAM-SHA-512",
        KAFKA_SASL_USERNAME=user,
        KAFKA_SASL_PASSWORD_FILE=str(password_file),
        KAFKA_SASL_PASSWORD="",  # empty is unset: `Worker` merges this into os.environ
    )


def _ports() -> tuple[int, int]:
    port = int(os.environ.get("KAFKA_ACL_TEST_PORT") or free_port())
    controller = int(os.environ.get("KAFKA_ACL_TEST_CONTROLLER_PORT") or free_port())
    while controller == port:  # two probes may get the same ephemeral port back
        controller = free_port()
    return port, controller


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AclBroker]:
    folder = tmp_path_factory.mktemp("kafka-acls")
    password, password_file = _secret(folder, ADMIN)
    port, controller = _ports()
    admin_env = _client_env(ADMIN, password_file)
    service_env = {
        **admin_env,
        "KAFKA_PORT": str(port),
        "KAFKA_CONTROLLER_PORT": str(controller),
        "KAFKA_RUN_DIR": str(folder / "run"),
    }
    _kafka_sh("start", service_env)
    try:
        users, envs = {}, {}
        for role in ROLES:
            user = f"acl-{role}"
            secret, path = _secret(folder, user)
            added = subprocess.run(
                [str(REPO / "scripts" / "kafka.sh"), "add-user", user],
                input=secret + "\n",
                env=service_env,
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            assert added.returncode == 0, added.stderr
            users[role] = KafkaSecurity("SASL_PLAINTEXT", "SCRAM-SHA-512", user, secret)
            envs[role] = _client_env(user, path)
        admin = KafkaSecurity("SASL_PLAINTEXT", "SCRAM-SHA-512", ADMIN, password)
        activate(admin)
        sasl = SaslBroker(f"127.0.0.1:{port}", admin, admin_env, folder)
        yield AclBroker(sasl, users, envs, f"127.0.0.1:{controller}")
    finally:
        activate(None)
        _kafka_sh("stop", service_env)


@pytest.fixture(scope="module")
def names(broker: AclBroker) -> TopicNames:
    """A prefix the admin provisioned (one table partition) and granted each role on."""
    names = TopicNames(f"a{uuid.uuid4().hex[:10]}")
    common = ("--bootstrap", broker.bootstrap, "--prefix", names.prefix)
    layout = ("--table-partitions", "1", "--config", str(CONFIG))  # Kafka's order = the file's
    done = jackpot(broker.admin.client_env, "kafka", "provision", *common, *layout)
    assert done.returncode == 0, done.stderr
    for role in ROLES:
        principal = f"User:{broker.users[role].username}"
        done = jackpot(
            broker.admin.client_env, "kafka", "grant", *common, "--role", role,
            "--principal", principal,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert f"{principal} has the {role} role" in done.stdout
        assert "0 already there" in done.stdout
    return names


@pytest.fixture(scope="module")
def ingested(
    broker: AclBroker, names: TopicNames, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """A simulated stream ingested by the device user (no resume: a device only writes)."""
    events = simulate(tmp_path_factory.mktemp("acl-stream"), rounds=6, seed=20261202)
    common = ("--bootstrap", broker.bootstrap, "--prefix", names.prefix)
    done = jackpot(broker.envs["device"], "kafka", "ingest", *common, "--no-resume", str(events))
    return events, done


@pytest.fixture(scope="module")
def processed(
    broker: AclBroker, names: TopicNames, ingested: tuple[Path, subprocess.CompletedProcess[str]]
) -> str:
    """The ingested stream processed by a worker running as the worker user; its log."""
    _events, done = ingested
    assert done.returncode == 0, done.stderr
    worker = SaslWorker(broker.admin, names, broker.envs["worker"])
    worker.catch_up(timeout=180)
    return worker.logs(None)


def produce_one(broker: AclBroker, role: str, topic: str, *, idempotent: bool) -> str | None:
    """Produce one record as ``role``'s user; the delivery error's name, None if stored."""
    producer = Producer(
        {"bootstrap.servers": broker.bootstrap, **broker.users[role].client_config()}
        | {"log_level": 0}
        | {"enable.idempotence": idempotent, "acks": "all"}
    )
    outcome: list[str | None] = []
    producer.produce(
        topic,
        key=b"tcp-1",
        value=b'{"forged": true}',
        on_delivery=lambda error, _message: outcome.append(None if error is None else error.name()),
    )
    assert producer.flush(30) == 0
    return outcome[0]


def first_record(broker: AclBroker, role: str, topic: str, group: str) -> str:
    """Subscribe as ``role``'s user in ``group``: ``record`` once one arrives (and its offset is
    committed), else the name of the error the broker answered with."""
    consumer = Consumer(
        {"bootstrap.servers": broker.bootstrap, **broker.users[role].client_config()}
        | {"log_level": 0}
        | {"group.id": group, "auto.offset.reset": "earliest", "enable.auto.commit": False}
    )
    consumer.subscribe([topic])
    deadline = time.monotonic() + 30
    try:
        while time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is None:
                continue
            error = message.error()
            if error is not None:
                return str(error.name())
            consumer.commit(message=message, asynchronous=False)
            return "record"
        return "nothing"
    finally:
        consumer.close()


def test_a_device_writes_table_events_but_cannot_forge_claims_or_events(
    broker: AclBroker, names: TopicNames, ingested: tuple[Path, subprocess.CompletedProcess[str]]
) -> None:
    events, done = ingested
    assert done.returncode == 0, done.stderr
    assert f"produced {len(events.read_bytes().splitlines())}" in done.stderr
    for forged in (names.meter_claims, names.events, names.awards, names.liveness):
        refused = produce_one(broker, "device", forged, idempotent=True)  # as ingest produces
        assert refused == "TOPIC_AUTHORIZATION_FAILED", forged
    common = ("--bootstrap", broker.bootstrap, "--prefix", names.prefix)
    resumed = jackpot(broker.envs["device"], "kafka", "ingest", *common, str(events))
    assert resumed.returncode == 1
    # the device may read neither the topic nor the reader group: the broker refuses whichever
    # the client asks for first (both orders seen in CI)
    assert re.search(r"(GROUP|TOPIC)_AUTHORIZATION_FAILED", resumed.stderr), resumed.stderr
    assert "--no-resume, or as a user with the reader role" in resumed.stderr


def test_the_worker_user_processes_the_stream_like_the_replay(
    broker: AclBroker,
    names: TopicNames,
    ingested: tuple[Path, subprocess.CompletedProcess[str]],
    processed: str,
) -> None:
    events, _done = ingested
    assert "AuthorizationFailed" not in processed
    assert_fold_is_the_replay(broker.bootstrap, names, events)
    reference: dict[str, Any] = replay_file(CONFIG, events)
    common = ("--bootstrap", broker.bootstrap, "--prefix", names.prefix, "--config", str(CONFIG))
    for source in ("events", "state"):
        dump = jackpot(broker.envs["reader"], "kafka", "dump", *common, "--source", source)
        assert dump.returncode == 0, dump.stderr
        assert json.loads(dump.stdout)["meters"] == reference["meters"], source
    refused = jackpot(broker.envs["signage"], "kafka", "dump", *common)
    assert refused.returncode == 1
    assert "AUTHORIZATION_FAILED" in refused.stderr


def test_signage_reads_events_in_its_groups_and_nothing_else(
    broker: AclBroker, names: TopicNames
) -> None:
    group = f"{names.prefix}-signage-acl"  # the projector's groups are <p>-signage*
    assert first_record(broker, "signage", names.events, group) == "record"  # the config record
    refused = first_record(broker, "signage", names.table_events, group)
    assert refused == "TOPIC_AUTHORIZATION_FAILED"
    other_group = first_record(broker, "signage", names.events, names.app_id)
    assert other_group == "GROUP_AUTHORIZATION_FAILED"
    # a plain producer, so the refusal is the topic's (an idempotent one, with no WRITE on any
    # topic, is refused the producer id first: CLUSTER_AUTHORIZATION_FAILED)
    forged = produce_one(broker, "signage", names.events, idempotent=False)
    assert forged == "TOPIC_AUTHORIZATION_FAILED"


def committed_offsets(broker: AclBroker, group: str, topic: str, ends: dict[int, int]) -> bool:
    """Whether ``group`` committed up to ``ends`` on ``topic`` (asked as the admin)."""
    consumer = Consumer(
        {"bootstrap.servers": broker.bootstrap, **broker.admin.security.client_config()}
        | {"group.id": group, "log_level": 0}
    )
    try:
        parts = [TopicPartition(topic, p) for p in ends]
        committed = {tp.partition: tp.offset for tp in consumer.committed(parts, timeout=10)}
    finally:
        consumer.close()
    return all(committed[p] >= end for p, end in ends.items())


def test_the_read_side_runs_under_its_role_and_is_refused_outside_it(
    broker: AclBroker, names: TopicNames, processed: str, tmp_path: Path
) -> None:
    common = ("--bootstrap", broker.bootstrap, "--prefix", names.prefix)
    log_path = tmp_path / "readside.log"
    command = [sys.executable, "-m", "streams.cli", "kafka", "readside", *common, "--tick", "1"]
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command, cwd=REPO, env=broker.envs["readside"], stdout=log, stderr=subprocess.STDOUT
        )
    try:
        expected, ends = expected_sums(broker.bootstrap, names)  # read as the admin
        assert sum(c["contributions"] for (_t, kind, _s), c in expected.items() if kind == "d")
        deadline = time.monotonic() + 120
        while not committed_offsets(broker, names.readside_id, names.events, ends):
            assert process.poll() is None, log_path.read_text(errors="replace")[-3000:]
            assert time.monotonic() < deadline, log_path.read_text(errors="replace")[-3000:]
            time.sleep(1.0)
        assert stored_sums(broker.bootstrap, names.readside_id) == expected
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)
    log_text = log_path.read_text(errors="replace")
    assert "Worker ready" in log_text
    assert "AUTHORIZATION_FAILED" not in log_text
    assert "AuthorizationFailed" not in log_text
    # outside its role: another group (its changelog may not be created), others' topics, groups
    other = jackpot(broker.envs["readside"], "kafka", "readside", *common, "--group", "x-other")
    assert other.returncode == 2
    assert other.stderr.count("\n") == 1, other.stderr
    assert "x-other-aggregates-changelog" in other.stderr
    assert "jackpot kafka provision" in other.stderr
    # its alerts topic it may write (faust's producer at least once: not idempotent), events not
    assert produce_one(broker, "readside", names.readside_alerts, idempotent=False) is None
    forged = produce_one(broker, "readside", names.events, idempotent=False)
    assert forged == "TOPIC_AUTHORIZATION_FAILED"
    refused = first_record(broker, "readside", names.table_events, names.readside_id)
    assert refused == "TOPIC_AUTHORIZATION_FAILED"
    assert first_record(broker, "readside", names.events, names.app_id) == (
        "GROUP_AUTHORIZATION_FAILED"
    )


def test_granting_again_adds_nothing_and_only_the_admin_may_grant(
    broker: AclBroker, names: TopicNames
) -> None:
    common = ("--bootstrap", broker.bootstrap, "--prefix", names.prefix)
    worker = f"User:{broker.users['worker'].username}"
    again = jackpot(
        broker.admin.client_env, "kafka", "grant", *common, "--role", "worker",
        "--principal", worker,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    # 23: the 23 bindings tests/streams/adapters/kafka/test_acls.py pins by hand
    assert "0 ACL(s) added, 26 already there" in again.stdout
    listed = jackpot(broker.admin.client_env, "kafka", "grant", *common, "--list")
    assert listed.returncode == 0, listed.stderr
    for role in ROLES:
        assert f"User:acl-{role} ALLOW" in listed.stdout
    for args in (("--list",), ("--role", "worker", "--principal", "User:acl-device")):
        refused = jackpot(broker.envs["device"], "kafka", "grant", *common, *args)
        assert refused.returncode == 2
        assert "only a super user (the admin) may grant or list ACLs" in refused.stderr


def test_the_controller_port_wants_authentication_too(broker: AclBroker) -> None:
    impostor = KafkaSecurity("SASL_PLAINTEXT", "PLAIN", ADMIN, secrets.token_hex(24))
    with pytest.raises(StoreUnavailable, match="Authentication failed: Invalid username or pass"):
        check_access(broker.controller, impostor, timeout=10)


def test_the_signage_user_runs_the_projector_with_the_faust_liveness_watch(
    broker: AclBroker, names: TopicNames, processed: str, tmp_path: Path
) -> None:
    """``jackpot kafka signage --liveness faust`` as the signage user: the faust GlobalTable's
    group (``<p>-signage-liveness``, under the role's ``<p>-signage*`` prefix) joins, recovers
    the liveness topic and the board is written; the meters are published; nothing is refused."""
    url = require_redis()
    redis_prefix = f"acl-{uuid.uuid4().hex[:8]}"
    common = ("--bootstrap", broker.bootstrap, "--prefix", names.prefix)
    command = [sys.executable, "-m", "streams.cli", "kafka", "signage", *common]
    command += ["--config", str(CONFIG), "--redis", url, "--redis-prefix", redis_prefix]
    command += ["--liveness", "faust"]
    log_path = tmp_path / "signage.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command, cwd=REPO, env=broker.envs["signage"], stdout=log, stderr=subprocess.STDOUT
        )
    model = RedisReadModel(url, prefix=redis_prefix)
    meter_ids = sorted(load_floor_config(CONFIG.read_text(encoding="utf-8"), str(CONFIG)).meters)
    try:
        deadline = time.monotonic() + 120
        while not ("as_of" in model.read_playability() and all(model.read_all(meter_ids).values())):
            assert process.poll() is None, log_path.read_text(errors="replace")[-3000:]
            assert time.monotonic() < deadline, log_path.read_text(errors="replace")[-3000:]
            time.sleep(0.5)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0, log_path.read_text(errors="replace")[-3000:]
    finally:
        model.close()
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)
    log_text = log_path.read_text(errors="replace")
    assert "AUTHORIZATION_FAILED" not in log_text
    assert "AuthorizationFailed" not in log_text
