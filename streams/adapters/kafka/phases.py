"""Where a transactional batch's time goes: one JSON line per committed batch, opt-in.

The latency bench (`bench.kafka_latency`) asks a worker for it with ``JACKPOT_KAFKA_PHASES=<path>``
(the worker writes ``<path>.<pid>``); nothing is written without it. Per batch, wall-clock seconds
(`time.time`, comparable with records' CreateTimes): ``t0`` the loop asked for records, ``taken``
they came (`streams.scaleout.batch.take`), ``decided``, ``finished`` the previous batch's commit
was waited for, ``produced`` the transaction began and the outputs and state were produced;
the commit thread's ``offsets_sent`` (``send_offsets_to_transaction`` returned) and
``committed``; per source topic the records taken and the oldest and newest CreateTime among
them; and per topic written the partitions the transaction wrote (``written``: what the commit's
markers cost grows with it, docs/kafka.md "Speed"). A batch's own line is written once its
commit is known (by the next batch), so the line holds the whole batch.

Measured this way (bench/PROPOSALS.md, "Kafka latency"): what a round's latency is made of, hop by
hop, without a debugger or librdkafka's debug log (which costs the CPU it measures).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import IO

from confluent_kafka import Message

PHASES_ENV = "JACKPOT_KAFKA_PHASES"


@dataclass(slots=True)
class BatchPhases:
    """One batch's stamps (module docstring); ``lanes``: per topic, [records, oldest, newest]."""

    t0: float
    taken: float = 0.0
    decided: float = 0.0
    finished: float = 0.0
    produced: float = 0.0
    offsets_sent: float = 0.0
    committed: float = 0.0
    lanes: dict[str, list[float]] = field(default_factory=dict)
    #: per topic written, the partitions the transaction added (its delivery reports; the
    #: group's offsets add one partition of ``__consumer_offsets`` besides)
    written: dict[str, list[int]] = field(default_factory=dict)

    def delivered(self, error: object, message: Message) -> None:
        """A delivery report of the batch's transaction: note its topic and partition."""
        if error is None:
            parts = self.written.setdefault(message.topic() or "", [])
            if message.partition() not in parts:
                parts.append(message.partition() or 0)

    def took(self, records: Iterable[Message], at: float | None = None) -> None:
        """The records came (``at``, now if None: more records joining a batch keep its time
        taken): their count and CreateTime span per topic."""
        self.taken = time.time() if at is None else at
        for message in records:
            created = message.timestamp()[1] / 1000
            span = self.lanes.setdefault(message.topic() or "", [0, created, created])
            span[0] += 1
            span[1], span[2] = min(span[1], created), max(span[2], created)


class PhaseLog:
    """Writes `BatchPhases` lines to ``<JACKPOT_KAFKA_PHASES>.<pid>``; disabled without it."""

    def __init__(self, path: str | None = None) -> None:
        where = os.environ.get(PHASES_ENV) if path is None else path
        self._out: IO[str] | None = None
        if where:
            self._out = open(f"{where}.{os.getpid()}", "a", buffering=1, encoding="utf-8")  # noqa: SIM115 - open for the worker's life

    @property
    def enabled(self) -> bool:
        """Whether batches are traced (the loop skips the stamps otherwise)."""
        return self._out is not None

    def write(self, phases: BatchPhases) -> None:
        """One batch's line (its commit known)."""
        if self._out is not None:
            self._out.write(json.dumps(asdict(phases), separators=(",", ":")) + "\n")

    def close(self) -> None:
        """Close the file, if any."""
        if self._out is not None:
            self._out.close()
            self._out = None


def stamp(phases: BatchPhases | None, name: str) -> None:
    """Set one stamp of a traced batch to now (nothing when untraced)."""
    if phases is not None:
        setattr(phases, name, time.time())
