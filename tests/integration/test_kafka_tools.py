"""The broker's own CLI shipped with the scripts (issue 13, "For the operator"): kafka-topics,
kafka-console-consumer and kafka-consumer-groups through ``scripts/kafka-tools.sh`` (and
``scripts/kafka.sh``, which forwards to it), on the real broker.

A fresh prefix gets its topics and ``LINES`` table events; a consumer group commits ``COMMITTED``
of them. The tools must list every topic of the prefix, show the group's lag as
``LINES - COMMITTED`` (what the test made, not what a tool said before), and print the first
records as they were produced.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from confluent_kafka import Consumer, TopicPartition

from streams.adapters.kafka.topics import TopicNames
from streams.scaleout.ingest import TableEventProducer
from tests.integration.services import require_kafka
from tests.integration.test_kafka_heartbeats import heartbeat
from tests.integration.test_kafka_parity import REPO, deploy
from tests.integration.test_kafka_sasl import (
    SaslBroker,
    broker,  # noqa: F401 (the SASL broker fixture)
)

pytestmark = pytest.mark.integration

LINES, COMMITTED = 30, 12
TOOLS = REPO / "scripts" / "kafka-tools.sh"


def run_tool(
    bootstrap: str, *args: str, script: str = "kafka-tools.sh", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(REPO / "scripts" / script), *args],
        env={**(os.environ if env is None else env), "KAFKA_BOOTSTRAP": bootstrap},
        capture_output=True,
        text=True,
        timeout=900,  # the first call fetches the jars
        check=False,
    )


def tool(bootstrap: str, *args: str, script: str = "kafka-tools.sh") -> str:
    """Run a tool; its stdout (a failure shows stderr)."""
    run = run_tool(bootstrap, *args, script=script)
    assert run.returncode == 0, f"{script} {' '.join(args)}:\n{run.stdout}\n{run.stderr}"
    return run.stdout


def produce(bootstrap: str, names: TopicNames) -> list[bytes]:
    producer = TableEventProducer(bootstrap, names, client_id="tools-test")
    lines = [heartbeat("tcp-1", n) for n in range(LINES)]
    for line in lines:
        producer.send(line)
    producer.flush()
    return lines


def commit(bootstrap: str, group: str, topic: str, offset: int) -> None:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "log_level": 0})
    try:
        consumer.commit(offsets=[TopicPartition(topic, 0, offset)], asynchronous=False)
    finally:
        consumer.close()


def test_topics_lag_and_records_through_the_brokers_own_cli() -> None:
    bootstrap = require_kafka()
    names = deploy(bootstrap, table_partitions=1)
    lines = produce(bootstrap, names)
    group = f"{names.prefix}-probe"
    commit(bootstrap, group, names.table_events, COMMITTED)

    listed = set(tool(bootstrap, "topics", "--list").split())
    ours = {t for t in listed if t.startswith(names.prefix)}
    wanted = {names.table_events, names.meter_claims, names.events, names.awards}
    wanted |= {names.dead_letter, names.liveness}
    assert wanted <= ours, f"missing: {wanted - ours}"
    # scripts/kafka.sh forwards the same verbs.
    described = tool(bootstrap, "topics", "--describe", "--topic", names.events, script="kafka.sh")
    assert f"Topic: {names.events}" in described

    table = tool(bootstrap, "consumer-groups", "--describe", "--group", group)
    row = next(line.split() for line in table.splitlines() if names.table_events in line)
    header = next(line.split() for line in table.splitlines() if "LAG" in line.split())
    cells = dict(zip(header, row, strict=False))
    assert (cells["CURRENT-OFFSET"], cells["LOG-END-OFFSET"]) == (str(COMMITTED), str(LINES))
    assert int(cells["LAG"]) == LINES - COMMITTED

    printed = tool(
        bootstrap,
        "console-consumer",
        *("--topic", names.table_events, "--from-beginning", "--max-messages", "3"),
        *("--isolation-level", "read_committed", "--timeout-ms", "30000"),
    )
    records = [json.loads(line) for line in printed.splitlines() if line.startswith("{")]
    assert records == [json.loads(line) for line in lines[:3]]


def test_the_tools_are_the_brokers_release() -> None:
    # Both poms name one release; kafka-tools.sh refuses to run when they differ.
    version = re.compile(r"<kafka.version>(.+)</kafka.version>")
    poms = [REPO / "deploy" / "kafka" / name for name in ("pom.xml", "tools-pom.xml")]
    found = {version.findall(p.read_text(encoding="utf-8"))[0] for p in poms}
    assert len(found) == 1, found


def test_on_a_sasl_broker_the_tools_log_in_and_leave_no_password_behind(
    broker: SaslBroker,  # noqa: F811 (the fixture imported above)
    tmp_path: Path,
) -> None:
    # The same KAFKA_SASL_* settings as every client; the password goes into a 0600 file that is
    # removed afterwards (TMPDIR is watched), never onto a command line.
    env = {**broker.client_env, "TMPDIR": str(tmp_path)}
    listed = run_tool(broker.bootstrap, "topics", "--list", env=env)
    assert listed.returncode == 0, listed.stderr
    assert list(tmp_path.iterdir()) == []
    wrong = tmp_path.parent / "wrong-password"
    wrong.write_text("not-the-password\n", encoding="utf-8")
    refused = run_tool(
        broker.bootstrap,
        *("topics", "--list"),
        env={**env, "KAFKA_SASL_PASSWORD_FILE": str(wrong)},
    )
    assert refused.returncode != 0
    assert "Authentication failed" in refused.stdout + refused.stderr
    assert list(tmp_path.iterdir()) == []
