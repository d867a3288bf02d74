"""Kafka ACLs per role, so a principal can do its role's job on one deployment and nothing more.

Authentication says who a client is; without ACLs every authenticated user may write every topic,
so whoever holds any password could forge contributions on ``<p>.meter-claims`` or awards on
``<p>.events``. With the broker's authorizer on (``scripts/kafka.sh`` in SASL mode;
``allow.everyone.if.no.acl.found=false``) a user may do only what it was granted here:

=========  ======================================================================================
role       may (for prefix ``<p>``)
=========  ======================================================================================
device     write ``<p>.table-events`` (and ``<p>.dead-letter``: ingest puts an oversize line
           there); nothing else, not even read its own topic (``ingest --no-resume``)
worker     read ``<p>.table-events`` and ``<p>.meter-claims``; write ``<p>.meter-claims``,
           ``.events``, ``.awards``, ``.dead-letter``, ``.liveness``; read and write its
           changelog ``<p>-controller-state-changelog`` (a deployment of before: its two,
           ``-rounds-`` and ``-meters-``); group ``<p>-controller``; transactional ids
           ``<p>-controller-*`` (one per worker); reader groups (a partition's state is
           restored by reading its changelog directly)
signage    read ``<p>.events`` and ``<p>.liveness``; groups ``<p>-signage*``
reader     read every ``<p>.*`` topic and the worker's changelogs (dump, replay, audit,
           ``ingest``'s resume); reader groups ``jackpot-reader-*``
readside   the faust read side (``jackpot kafka readside``, app id ``<p>-readside``): read
           ``<p>.events``; write ``<p>.readside-alerts``; read and write its table's changelog
           ``<p>-readside-aggregates-changelog``; group ``<p>-readside`` (faust's consumer
           group is its app id). It has no repartition topic (no ``group_by``) and runs without
           faust's leader topic (``topic_disable_leader``: no ``on_leader`` timer)
=========  ======================================================================================

Only the worker may write ``<p>.meter-claims``. Nobody but the admin (a super user) may create
the deployment's topics (``jackpot kafka provision``, the read side's two included: the read
side's faust app declares none) or grant. The reader groups are never
joined and hold no offsets (`streams.adapters.kafka.read`): librdkafka only wants a group id.

`role_grants` is pure (the table above as data, tested without a broker); `grant` and `list_acls`
talk to the broker with confluent-kafka's AdminClient.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from confluent_kafka import KafkaException

# confluent_kafka.admin does not re-export these for type checkers; its _acl, _config and
# _resource define them (as kafka_topics takes NewTopic from cimpl).
from confluent_kafka.admin._acl import (
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
)
from confluent_kafka.admin._config import ConfigResource
from confluent_kafka.admin._resource import ResourcePatternType, ResourceType

from controller.model.errors import AdapterError, StoreUnavailable
from streams.adapters.kafka.topics import TopicNames, admin_client

ROLES = ("device", "worker", "signage", "reader", "readside")
#: The group prefix of `streams.adapters.kafka.read.reader` (shared by every deployment: see the
#: docstring).
READER_GROUP_PREFIX = "jackpot-reader-"
TOPIC, GROUP, TRANSACTIONAL_ID = "TOPIC", "GROUP", "TRANSACTIONAL_ID"
NO_AUTHORIZER = (
    "Kafka at {bootstrap} has no authorizer, so ACLs mean nothing there: start it with SASL "
    "(scripts/kafka.sh with KAFKA_SECURITY_PROTOCOL=SASL_PLAINTEXT) or set authorizer.class.name"
)
NOT_ADMIN = "Kafka at {bootstrap} refused: only a super user (the admin) may grant or list ACLs"
LITERAL, PREFIXED = "LITERAL", "PREFIXED"


@dataclass(frozen=True, slots=True, order=True)
class Grant:
    """One allowed operation on one resource (or every resource with a name prefix)."""

    resource: str  # TOPIC, GROUP or TRANSACTIONAL_ID
    name: str
    pattern: str  # LITERAL or PREFIXED
    operation: str  # an AclOperation name: READ, WRITE, DESCRIBE, CREATE

    def describe(self) -> str:
        """For output: ``WRITE topic floor1.events`` or ``READ group floor1-signage*``."""
        star = "*" if self.pattern == PREFIXED else ""
        return f"{self.operation} {self.resource.lower()} {self.name}{star}"


def _topic(name: str, *operations: str, pattern: str = LITERAL) -> list[Grant]:
    return [Grant(TOPIC, name, pattern, op) for op in operations]


def _group(name: str, *operations: str, pattern: str = LITERAL) -> list[Grant]:
    return [Grant(GROUP, name, pattern, op) for op in operations]


def role_grants(names: TopicNames, role: str) -> tuple[Grant, ...]:
    """What ``role`` needs on deployment ``names`` (module docstring), sorted; AdapterError for an
    unknown role."""
    match role:
        case "device":
            grants = _topic(names.table_events, "WRITE", "DESCRIBE")
            grants += _topic(names.dead_letter, "WRITE", "DESCRIBE")
        case "worker":
            grants = _worker_grants(names)
        case "signage":
            grants = _topic(names.events, "READ", "DESCRIBE")
            grants += _topic(names.liveness, "READ", "DESCRIBE")
            grants += _group(f"{names.prefix}-signage", "READ", pattern=PREFIXED)
        case "reader":
            grants = _topic(f"{names.prefix}.", "READ", "DESCRIBE", pattern=PREFIXED)
            for table in ("meters", "rounds", "state"):  # dump --source state reads the meters
                grants += _topic(names.changelog(table), "READ", "DESCRIBE")
            grants += _group(READER_GROUP_PREFIX, "READ", pattern=PREFIXED)
        case "readside":
            grants = _topic(names.events, "READ", "DESCRIBE")
            grants += _topic(names.readside_alerts, "WRITE", "DESCRIBE")
            grants += _topic(names.readside_changelog(), "READ", "WRITE", "DESCRIBE")
            grants += _group(names.readside_id, "READ")
        case _:
            msg = f"unknown role {role!r}: use one of {', '.join(ROLES)}"
            raise AdapterError(msg)
    return tuple(sorted(set(grants)))


def _worker_grants(names: TopicNames) -> list[Grant]:
    """The transactional worker: its inputs, its outputs, its changelogs, its group and its
    transactional ids (`streams.scaleout.worker`: ``<p>-controller-<slot or random>``)."""
    grants = _topic(names.table_events, "READ", "DESCRIBE")
    grants += _topic(names.meter_claims, "READ", "WRITE", "DESCRIBE")
    for output in (names.events, names.awards, names.dead_letter, names.liveness):
        grants += _topic(output, "WRITE", "DESCRIBE")
    for table in ("rounds", "meters", "state"):  # provisioned: it creates no topic
        grants += _topic(names.changelog(table), "READ", "WRITE", "DESCRIBE")
    grants += _group(names.app_id, "READ")
    grants += _group(READER_GROUP_PREFIX, "READ", pattern=PREFIXED)
    grants += [
        Grant(TRANSACTIONAL_ID, f"{names.app_id}-", PREFIXED, op) for op in ("WRITE", "DESCRIBE")
    ]
    return grants


def bindings(grants: Iterable[Grant], principal: str) -> list[AclBinding]:
    """The ALLOW bindings of ``grants`` for ``principal`` from any host."""
    return [
        AclBinding(
            ResourceType[g.resource],
            g.name,
            ResourcePatternType[g.pattern],
            principal,
            "*",
            AclOperation[g.operation],
            AclPermissionType.ALLOW,
        )
        for g in grants
    ]


def _principal_ok(principal: str) -> str:
    """``User:NAME`` as the broker's principals are spelled; AdapterError otherwise."""
    kind, _, name = principal.partition(":")
    if kind != "User" or not name or name == "*":
        msg = f"principal {principal!r}: give one user as User:NAME (the SASL username)"
        raise AdapterError(msg)
    return principal


def _everything(principal: str | None = None) -> AclBindingFilter:
    """A filter for every ALLOW binding (of ``principal``, if given). None matches anything; the
    library's hints say ``str``, its docstring and code accept None."""
    anything: Any = None
    return AclBindingFilter(
        ResourceType.ANY,
        anything,
        ResourcePatternType.ANY,
        principal if principal is not None else anything,
        anything,
        AclOperation.ANY,
        AclPermissionType.ALLOW,
    )


def _refusal(bootstrap: str, exc: KafkaException) -> StoreUnavailable:
    """The broker's refusal as a message that says what to do."""
    error = exc.args[0]
    code = error.name() if hasattr(error, "name") else str(error)
    if code == "SECURITY_DISABLED":
        msg = NO_AUTHORIZER.format(bootstrap=bootstrap)
    elif code == "CLUSTER_AUTHORIZATION_FAILED":
        msg = NOT_ADMIN.format(bootstrap=bootstrap)
    else:
        msg = f"Kafka at {bootstrap} refused the ACL request: {exc}"
    return StoreUnavailable(msg)


def current_grants(bootstrap: str, principal: str | None = None) -> dict[str, set[Grant]]:
    """Every ALLOW binding on the broker (of ``principal``), as Grants by principal."""
    admin = admin_client(bootstrap)
    try:
        found = admin.describe_acls(_everything(principal), request_timeout=30).result()
    except KafkaException as exc:
        raise _refusal(bootstrap, exc) from exc
    out: dict[str, set[Grant]] = {}
    for binding in found:
        grant = Grant(
            binding.restype.name,
            binding.name,
            binding.resource_pattern_type.name,
            binding.operation.name,
        )
        out.setdefault(binding.principal, set()).add(grant)
    return out


def grant(bootstrap: str, principal: str, grants: Iterable[Grant]) -> tuple[Grant, ...]:
    """Add the ALLOW bindings of ``grants`` for ``principal`` that are missing; the ones added.
    Idempotent: granting a role again adds nothing."""
    _principal_ok(principal)
    have = current_grants(bootstrap, principal).get(principal, set())
    missing = tuple(sorted(set(grants) - have))
    if not missing:
        return ()
    admin = admin_client(bootstrap)
    futures = admin.create_acls(bindings(missing, principal), request_timeout=30)
    try:
        for future in futures.values():
            future.result()
    except KafkaException as exc:
        raise _refusal(bootstrap, exc) from exc
    return missing


def belongs_to(grant: Grant, prefix: str) -> bool:
    """Whether ``grant`` is about deployment ``prefix``: its topics, groups, transactional ids."""
    return grant.name.startswith((f"{prefix}.", f"{prefix}-"))


def list_acls(bootstrap: str, prefix: str) -> list[tuple[str, Grant]]:
    """(principal, grant) for every ALLOW binding about ``prefix``, sorted; a principal with any
    of those also shows its reader-group grant (shared by every deployment)."""
    found = current_grants(bootstrap)
    _require_describe(bootstrap)
    rows = []
    for principal, grants in found.items():
        own = [g for g in grants if belongs_to(g, prefix)]
        if own:
            rows += [(principal, g) for g in grants if g in own or g.name == READER_GROUP_PREFIX]
    return sorted(rows)


def _require_describe(bootstrap: str) -> None:
    """StoreUnavailable unless this broker has an authorizer and this user may describe its
    ACLs: without either, the broker's answer to a listing reaches us as an empty list (the
    client drops its error code), which would read as "no ACLs"."""
    admin = admin_client(bootstrap)
    try:
        cluster = admin.describe_cluster(
            include_authorized_operations=True, request_timeout=30
        ).result()
        if AclOperation.DESCRIBE not in (cluster.authorized_operations or ()):
            raise StoreUnavailable(NOT_ADMIN.format(bootstrap=bootstrap))
        broker = ConfigResource(ResourceType.BROKER, str(cluster.nodes[0].id))
        configs = admin.describe_configs([broker], request_timeout=30)[broker].result()
    except KafkaException as exc:
        raise _refusal(bootstrap, exc) from exc
    entry = configs.get("authorizer.class.name")
    if entry is None or not entry.value:
        raise StoreUnavailable(NO_AUTHORIZER.format(bootstrap=bootstrap))
