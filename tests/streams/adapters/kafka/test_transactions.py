"""Which failures of a transaction say the worker was fenced (a zombie), and which do not: the
log and the zombie test tell them apart (`streams.adapters.kafka.transactions.fencing`)."""

from __future__ import annotations

import pytest
from confluent_kafka import KafkaError, KafkaException

from streams.adapters.kafka.transactions import fencing


@pytest.mark.parametrize(
    "code",
    [
        KafkaError.UNKNOWN_MEMBER_ID,  # its session expired: the group dropped it (KIP-447)
        KafkaError.ILLEGAL_GENERATION,  # the group rebalanced past it
        KafkaError.PRODUCER_FENCED,  # a producer with its transactional id started
        KafkaError.INVALID_PRODUCER_EPOCH,  # the coordinator bumped its epoch on abort
        KafkaError._FENCED,
        KafkaError._STATE,  # produce after the coordinator aborted its transaction
    ],
)
def test_a_zombie_is_fenced(code: int) -> None:
    assert fencing(KafkaException(KafkaError(code))) is not None


@pytest.mark.parametrize(
    "code", [KafkaError.NOT_COORDINATOR, KafkaError._TIMED_OUT, KafkaError._MSG_TIMED_OUT]
)
def test_a_broker_hiccup_is_not_a_fencing(code: int) -> None:
    assert fencing(KafkaException(KafkaError(code))) is None


def test_an_error_that_is_not_kafkas_is_not_a_fencing() -> None:
    assert fencing(ValueError("boom")) is None
