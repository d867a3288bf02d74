"""The ACLs each role gets (`streams.adapters.kafka.acls.role_grants`), pinned by hand from what
each
command does, not copied from the code's output: a grant that widens (a role that may suddenly
write meter-claims) or narrows (a worker that can no longer write liveness) fails here before a
broker ever sees it. The broker's enforcement is `tests/integration/test_kafka_acls.py`.
"""

from __future__ import annotations

import argparse

import pytest
from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin._acl import AclOperation, AclPermissionType
from confluent_kafka.admin._resource import ResourcePatternType, ResourceType

from controller.model.errors import AdapterError, StoreUnavailable
from streams.adapters.kafka import acls
from streams.adapters.kafka.acls import (
    ROLES,
    Grant,
    _refusal,
    belongs_to,
    bindings,
    grant,
    role_grants,
)
from streams.adapters.kafka.topics import Layout, TopicNames, readside_specs, topic_specs
from streams.cli import build_parser, kafka_grant

NAMES = TopicNames("floor1")


def topic(name: str, op: str) -> tuple[str, str, str, str]:
    return ("TOPIC", name, "LITERAL", op)


def rows(role: str) -> set[tuple[str, str, str, str]]:
    return {(g.resource, g.name, g.pattern, g.operation) for g in role_grants(NAMES, role)}


def test_a_device_may_only_write_table_events_and_dead_letters() -> None:
    assert rows("device") == {
        topic("floor1.table-events", "WRITE"),
        topic("floor1.table-events", "DESCRIBE"),
        topic("floor1.dead-letter", "WRITE"),  # ingest sends an oversize line there
        topic("floor1.dead-letter", "DESCRIBE"),
    }


def test_the_worker_reads_its_inputs_writes_its_outputs_its_state_and_its_transactions() -> None:
    assert rows("worker") == {
        topic("floor1.table-events", "READ"),
        topic("floor1.table-events", "DESCRIBE"),
        topic("floor1.meter-claims", "READ"),
        topic("floor1.meter-claims", "WRITE"),
        topic("floor1.meter-claims", "DESCRIBE"),
        topic("floor1.events", "WRITE"),
        topic("floor1.events", "DESCRIBE"),
        topic("floor1.awards", "WRITE"),
        topic("floor1.awards", "DESCRIBE"),
        topic("floor1.dead-letter", "WRITE"),
        topic("floor1.dead-letter", "DESCRIBE"),
        topic("floor1.liveness", "WRITE"),
        topic("floor1.liveness", "DESCRIBE"),
        topic("floor1-controller-rounds-changelog", "READ"),  # restored on assignment
        topic("floor1-controller-rounds-changelog", "WRITE"),  # in each batch's transaction
        topic("floor1-controller-rounds-changelog", "DESCRIBE"),
        topic("floor1-controller-meters-changelog", "READ"),
        topic("floor1-controller-meters-changelog", "WRITE"),
        topic("floor1-controller-meters-changelog", "DESCRIBE"),
        topic("floor1-controller-state-changelog", "READ"),  # both lanes' state, one topic
        topic("floor1-controller-state-changelog", "WRITE"),
        topic("floor1-controller-state-changelog", "DESCRIBE"),
        ("GROUP", "floor1-controller", "LITERAL", "READ"),  # also send_offsets_to_transaction
        ("GROUP", "jackpot-reader-", "PREFIXED", "READ"),  # the changelog restore reads directly
        ("TRANSACTIONAL_ID", "floor1-controller-", "PREFIXED", "WRITE"),  # KIP-98 producer
        ("TRANSACTIONAL_ID", "floor1-controller-", "PREFIXED", "DESCRIBE"),
    }


def test_signage_reads_events_and_liveness_in_its_own_groups() -> None:
    assert rows("signage") == {
        topic("floor1.events", "READ"),
        topic("floor1.events", "DESCRIBE"),
        topic("floor1.liveness", "READ"),
        topic("floor1.liveness", "DESCRIBE"),
        ("GROUP", "floor1-signage", "PREFIXED", "READ"),
    }


def test_a_reader_reads_every_deployment_topic_and_the_stored_state() -> None:
    assert rows("reader") == {
        ("TOPIC", "floor1.", "PREFIXED", "READ"),
        ("TOPIC", "floor1.", "PREFIXED", "DESCRIBE"),
        topic("floor1-controller-meters-changelog", "READ"),
        topic("floor1-controller-meters-changelog", "DESCRIBE"),
        topic("floor1-controller-rounds-changelog", "READ"),
        topic("floor1-controller-rounds-changelog", "DESCRIBE"),
        topic("floor1-controller-state-changelog", "READ"),
        topic("floor1-controller-state-changelog", "DESCRIBE"),
        ("GROUP", "jackpot-reader-", "PREFIXED", "READ"),
    }


def test_the_read_side_reads_events_and_keeps_its_own_changelog_alerts_and_group() -> None:
    assert rows("readside") == {
        topic("floor1.events", "READ"),  # the agent's source, read_committed
        topic("floor1.events", "DESCRIBE"),
        topic("floor1.readside-alerts", "WRITE"),  # the contribution-rate alert records
        topic("floor1.readside-alerts", "DESCRIBE"),
        topic("floor1-readside-aggregates-changelog", "READ"),  # restored at assignment
        topic("floor1-readside-aggregates-changelog", "WRITE"),  # every table write
        topic("floor1-readside-aggregates-changelog", "DESCRIBE"),
        ("GROUP", "floor1-readside", "LITERAL", "READ"),  # faust's group is its app id
    }


def test_the_read_sides_topics_are_provisioned_with_fausts_names_and_partitions() -> None:
    alerts, changelog = readside_specs(NAMES, 6)
    assert (alerts.name, alerts.partitions) == ("floor1.readside-alerts", 1)
    assert (changelog.name, changelog.partitions) == ("floor1-readside-aggregates-changelog", 6)
    assert changelog.config["cleanup.policy"] == "compact"  # a table's state: last per key
    assert readside_specs(NAMES, 3, app_id="g")[1].name == "g-aggregates-changelog"


def writes(role: str, name: str) -> bool:
    """Whether ``role`` may write topic ``name`` by any of its grants."""
    return any(
        g.resource == "TOPIC"
        and g.operation in ("WRITE", "ALL")
        and (g.name == name if g.pattern == "LITERAL" else name.startswith(g.name))
        for g in role_grants(NAMES, role)
    )


@pytest.mark.parametrize("role", ROLES)
def test_only_the_worker_may_write_meter_claims_events_awards_and_liveness(role: str) -> None:
    for name in (NAMES.meter_claims, NAMES.events, NAMES.awards, NAMES.liveness):
        assert writes(role, name) == (role == "worker"), (role, name)


@pytest.mark.parametrize("role", ROLES)
def test_no_role_may_do_more_than_read_write_describe_or_create(role: str) -> None:
    for g in role_grants(NAMES, role):
        assert g.operation in {"READ", "WRITE", "DESCRIBE", "CREATE"}
        # never the cluster: no ACL or user admin; transactional ids only for the worker
        assert g.resource in (
            {"TOPIC", "GROUP"} | ({"TRANSACTIONAL_ID"} if role == "worker" else set())
        )
    assert all(
        belongs_to(g, "floor1") or g.name == "jackpot-reader-" for g in role_grants(NAMES, role)
    )


def test_every_provisioned_topic_is_readable_by_the_reader_or_the_worker() -> None:
    for spec in (*topic_specs(NAMES, Layout()), *readside_specs(NAMES, 6)):
        readable = {
            r
            for r in ROLES
            for g in role_grants(NAMES, r)
            if g.operation == "READ" and spec.name.startswith(g.name)
        }
        own = spec.name.startswith(("floor1-controller-", "floor1-readside-"))  # the state stores
        assert "reader" in readable or own, spec.name


def test_a_prefix_does_not_reach_a_longer_one() -> None:
    other = TopicNames("floor10")
    assert not writes("worker", other.events)
    assert not belongs_to(Grant("TOPIC", "floor10.events", "LITERAL", "READ"), "floor1")


def test_an_unknown_role_is_refused() -> None:
    with pytest.raises(AdapterError, match="unknown role 'admin'"):
        role_grants(NAMES, "admin")


def test_bindings_allow_from_any_host_for_the_principal() -> None:
    (binding,) = bindings([Grant("TOPIC", "floor1.events", "LITERAL", "READ")], "User:sign")
    assert (binding.principal, binding.host) == ("User:sign", "*")
    assert binding.restype == ResourceType.TOPIC
    assert binding.resource_pattern_type == ResourcePatternType.LITERAL
    assert binding.operation == AclOperation.READ
    assert binding.permission_type == AclPermissionType.ALLOW


@pytest.mark.parametrize("principal", ["bob", "User:", "User:*", "Group:x"])
def test_a_principal_must_be_one_user(principal: str) -> None:
    with pytest.raises(AdapterError, match="User:NAME"):
        grant("127.0.0.1:1", principal, role_grants(NAMES, "device"))


def test_broker_refusals_say_what_to_do() -> None:
    disabled = KafkaException(KafkaError(KafkaError.SECURITY_DISABLED))
    assert "no authorizer" in str(_refusal("b:1", disabled))
    forbidden = KafkaException(KafkaError(KafkaError.CLUSTER_AUTHORIZATION_FAILED))
    assert "only a super user" in str(_refusal("b:1", forbidden))
    assert isinstance(_refusal("b:1", forbidden), StoreUnavailable)


@pytest.mark.parametrize(
    "options",
    [
        {"role": "worker", "principal": None, "list": False},
        {"role": None, "principal": "User:w", "list": False},
        {"role": "worker", "principal": "User:w", "list": True},
        {"role": None, "principal": None, "list": False},
    ],
)
def test_grant_wants_a_role_and_a_principal_or_list_alone(
    options: dict[str, object], capsys: pytest.CaptureFixture[str]
) -> None:
    args = argparse.Namespace(prefix="floor1", bootstrap="127.0.0.1:1", **options)
    assert kafka_grant.handle_grant(args) == 2
    assert "give --role and --principal, or --list alone" in capsys.readouterr().err


class FakeFuture:
    def __init__(self, value: object) -> None:
        self.value = value

    def result(self) -> object:
        return self.value


class FakeAdmin:
    """Answers `_require_describe`'s two questions as a broker would."""

    def __init__(self, operations: list[AclOperation] | None, authorizer: str | None) -> None:
        self.operations, self.authorizer = operations, authorizer

    def describe_cluster(self, **_: object) -> FakeFuture:
        node = argparse.Namespace(id=1)
        return FakeFuture(argparse.Namespace(authorized_operations=self.operations, nodes=[node]))

    def describe_configs(self, resources: list[object], **_: object) -> dict[object, FakeFuture]:
        entries = {} if self.authorizer is None else {"authorizer.class.name": self.authorizer}
        configs = {k: argparse.Namespace(value=v) for k, v in entries.items()}
        return {resources[0]: FakeFuture(configs)}


@pytest.mark.parametrize(
    ("operations", "authorizer", "refusal"),
    [
        (None, "org.apache.kafka.metadata.authorizer.StandardAuthorizer", "only a super user"),
        ([AclOperation.DESCRIBE], "", "has no authorizer"),  # no authorizer: every operation
        ([AclOperation.DESCRIBE], None, "has no authorizer"),
        ([AclOperation.DESCRIBE], "org.apache.kafka.metadata.authorizer.StandardAuthorizer", ""),
    ],
)
def test_a_listing_needs_an_authorizer_and_the_admin(
    monkeypatch: pytest.MonkeyPatch,
    operations: list[AclOperation] | None,
    authorizer: str | None,
    refusal: str,
) -> None:
    fake = FakeAdmin(operations, authorizer)
    monkeypatch.setattr(acls, "admin_client", lambda _bootstrap: fake)
    if refusal:
        with pytest.raises(StoreUnavailable, match=refusal):
            acls._require_describe("b:1")
    else:
        acls._require_describe("b:1")


def test_grant_is_a_kafka_subcommand() -> None:
    args = build_parser().parse_args(["kafka", "grant", "--prefix", "p", "--list"])
    assert args.handler is kafka_grant.handle_grant
    assert (args.prefix, args.list, args.role, args.principal) == ("p", True, None, None)
