"""``jackpot mystery-audit --kafka-prefix P``: every mystery reveal of the Kafka engine checked
against the commitment logged at its arming (`controller.mystery.audit`), by anyone, with no key.
"""

from __future__ import annotations

from confluent_kafka import KafkaException

from controller.model.errors import StoreUnavailable
from controller.mystery import MysteryAudit, audit
from streams.adapters.kafka.read import read_topic
from streams.adapters.kafka.topics import TopicNames
from streams.codec import decode
from streams.scaleout.reconcile import log_of


def audit_topic(bootstrap: str, names: TopicNames) -> MysteryAudit:
    """The audit of the events topic laid out as one log (`streams.scaleout.reconcile.log_of`:
    read_committed, each dedupe id once; a meter's events sit in one partition in its single
    writer's order, so each arming precedes its reveal)."""
    try:
        log = log_of(read_topic(bootstrap, names.events))
    except KafkaException as exc:
        msg = f"cannot read {names.events}: {exc}"
        raise StoreUnavailable(msg) from exc
    return audit(decode(record.payload) for record in log.read())
