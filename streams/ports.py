"""Ports: what the controller needs from the technologies at its edge, as `typing.Protocol`s.

Each port has an in-memory twin for tests (`streams.adapters.memory`) and one adapter per technology
(`streams.adapters.sqlite` for the embedded engine; Kafka and Redis adapters for the scale-out
engine).
Contract tests written once (`tests/streams/adapters/log_contract.py`) run against every adapter.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from controller.config.floor import FloorConfig


@dataclass(frozen=True, slots=True)
class LogRecord:
    """One event to append. ``key`` orders it (a table or meter id); ``dedupe_id`` makes the append
    idempotent (a table event's ``event_id``; empty for derived events)."""

    key: str
    payload: bytes
    dedupe_id: str = ""
    received_at: str = ""
    """The controller's own clock when it received the input (RFC 3339, UTC): gaming days,
    reports and pages go by it, never by a device's ``occurred_at`` (issue 15)."""


@dataclass(frozen=True, slots=True)
class StoredRecord:
    """A record as the log holds it; ``position`` is 1-based and strictly increasing."""

    position: int
    key: str
    payload: bytes
    received_at: str = ""
    """The controller's receive time ("" for records written before it was kept)."""


class EventLog(Protocol):
    """A durable, append-only log. State is only ever derived from it.

    Guarantees every adapter must pass (`tests/streams/adapters/log_contract.py`): a batch is
    appended
    atomically (all or nothing); records read back in append order, so order per key holds; a
    ``dedupe_id`` is accepted once; what was appended survives a reopen.
    """

    def append(self, batch: Sequence[LogRecord]) -> int:
        """Append atomically; the position of the last record. Raises DuplicateRecord if any
        ``dedupe_id`` in the batch is already in the log (then nothing is appended)."""
        ...

    def read(self, after: int = 0) -> Iterator[StoredRecord]:
        """Records with position > ``after``, in order."""
        ...

    def head(self) -> int:
        """The position of the last record (0 when empty)."""
        ...

    def contains(self, dedupe_id: str) -> bool:
        """Whether a record with this ``dedupe_id`` was appended."""
        ...

    def payload_of(self, dedupe_id: str) -> bytes | None:
        """The payload appended with this ``dedupe_id``, or None (a retry is compared with it)."""
        ...

    def payloads_of(self, dedupe_ids: Collection[str]) -> dict[str, bytes]:
        """`payload_of` for many ids at once (one query per ingest batch, not one per event):
        the ids that were appended, each with its payload; unknown ids are left out."""
        ...

    def close(self) -> None:
        """Release the log; appended records stay."""
        ...


@runtime_checkable
class ChainedLog(Protocol):
    """A log whose records are hash chained (`streams.adapters.sqlite.SqliteLog`): the engine
    walks the chain after its snapshot before it trusts the log's tail at start, the background
    full check from the first record (issue 15)."""

    def verify(self, after: int = 0) -> int:
        """Walk the chain from the stored hash at ``after`` (0: from the first record) to the
        head; the records checked, or LogTampered at the first break."""
        ...


class SnapshotStore(Protocol):
    """Snapshots of derived state at a log position, so a restart replays only the tail."""

    def save(self, position: int, blob: bytes) -> None:
        """Keep ``blob`` as the state after ``position``."""
        ...

    def latest(self) -> tuple[int, bytes] | None:
        """The newest snapshot as (position, blob), or None."""
        ...


class MeterReadModel(Protocol):
    """The live meter values signage reads (Redis on the Kafka engine, memory when embedded)."""

    def publish(self, meter_id: str, seq: int, fields: dict[str, str]) -> bool:
        """Store the meter's fields unless a newer ``seq`` is already there; True if stored."""
        ...

    def read(self, meter_id: str) -> dict[str, str] | None:
        """The meter's latest fields, or None."""
        ...


@dataclass(frozen=True, slots=True)
class MeterChange:
    """A change notification: the meter's hash now holds ``seq``."""

    meter_id: str
    seq: int


class ChangeSource(Protocol):
    """Change notifications (`streams.adapters.redis.read_model.MeterSubscription`)."""

    def get(self, timeout: float) -> MeterChange | None: ...

    def close(self) -> None: ...


class HashSource(Protocol):
    """The meter hashes (`streams.adapters.redis.read_model.RedisReadModel`)."""

    def subscribe(self) -> ChangeSource: ...

    def read(self, meter_id: str) -> dict[str, str] | None: ...

    def read_all(self, meter_ids: Sequence[str]) -> dict[str, dict[str, str]]: ...


class Board(Protocol):
    """Where the board is kept (`streams.adapters.redis.read_model.RedisReadModel`)."""

    def write_playability(self, fields: dict[str, str], *, replace: bool = False) -> bool: ...


class LiveMeters(Protocol):
    """Where live meter values are read from (a `MeterReadModel` is one)."""

    def read(self, meter_id: str) -> dict[str, str] | None:
        """The meter's fields, or None if the live side has no such meter."""
        ...


@dataclass(frozen=True, slots=True, kw_only=True)
class TableLiveness:
    """One table's status. ``silent_seconds`` is None when it was never heard since the start;
    ``since`` (RFC 3339) is when it became unplayable, "" while playable."""

    table_id: str
    playable: bool
    silent_seconds: float | None
    since: str = ""
    reason: str = ""

    def row(self) -> dict[str, object]:
        """The status as JSON: ``status`` "playable" or "unplayable"."""
        silent = None if self.silent_seconds is None else round(self.silent_seconds, 1)
        row: dict[str, object] = {
            "status": "playable" if self.playable else "unplayable",
            "silent_seconds": silent,
        }
        if not self.playable:
            row |= {"since": self.since, "reason": self.reason}
        return row


class StatusSource(Protocol):
    """Where table statuses come from: the embedded engine's
    `streams.liveness.tracker.LivenessTracker`,
    or on the Kafka engine the Redis board (`streams.live.redis_source.BoardReader`)."""

    def statuses(self, config: FloorConfig | None) -> dict[str, TableLiveness]: ...


class Poster(Protocol):
    """What sends a batch (`streams.sim.post.RetryingPoster`)."""

    def post(self, events: Sequence[dict[str, object]]) -> dict[str, Any]: ...


class AuthSensor(Protocol):
    """Counts refused credentials (`streams.adapters.prometheus.sensor.MetricsSensor`)."""

    def auth_failed(self, reason: str) -> None: ...
