"""In-memory twins of the ports, for tests and for the embedded signage read model."""

from __future__ import annotations

import threading
from collections.abc import Collection, Iterator, Sequence

from controller.model.errors import DuplicateRecord
from streams.ports import LogRecord, StoredRecord


class MemoryLog:
    """`EventLog` and `SnapshotStore` in memory: the same contract, nothing durable."""

    def __init__(self) -> None:
        self._records: list[StoredRecord] = []
        self._ids: dict[str, bytes] = {}
        self._snapshot: tuple[int, bytes] | None = None
        self._lock = threading.Lock()

    def append(self, batch: Sequence[LogRecord]) -> int:
        """Append atomically; DuplicateRecord if a dedupe id repeats (in the log or the batch)."""
        with self._lock:
            ids = [r.dedupe_id for r in batch if r.dedupe_id]
            if len(set(ids)) != len(ids) or any(i in self._ids for i in ids):
                msg = "a record in the batch repeats a dedupe id already in the log"
                raise DuplicateRecord(msg)
            for record in batch:
                position = len(self._records) + 1
                self._records.append(
                    StoredRecord(position, record.key, record.payload, record.received_at)
                )
            self._ids.update((r.dedupe_id, r.payload) for r in batch if r.dedupe_id)
            return len(self._records)

    def read(self, after: int = 0) -> Iterator[StoredRecord]:
        """Records after ``after`` in order (a copy, safe against concurrent appends)."""
        with self._lock:
            records = self._records[after:]
        yield from records

    def head(self) -> int:
        """The last position."""
        return len(self._records)

    def contains(self, dedupe_id: str) -> bool:
        """Whether the dedupe id was appended."""
        return dedupe_id in self._ids

    def payload_of(self, dedupe_id: str) -> bytes | None:
        """The payload appended with this dedupe id, or None."""
        return self._ids.get(dedupe_id)

    def payloads_of(self, dedupe_ids: Collection[str]) -> dict[str, bytes]:
        """The payloads appended with these dedupe ids (unknown ids left out)."""
        with self._lock:
            return {i: self._ids[i] for i in dedupe_ids if i in self._ids}

    def save(self, position: int, blob: bytes) -> None:
        """Keep one snapshot."""
        self._snapshot = (position, blob)

    def latest(self) -> tuple[int, bytes] | None:
        """The snapshot, if any."""
        return self._snapshot

    def close(self) -> None:
        """Nothing to release."""


class MemoryReadModel:
    """`MeterReadModel` in memory: a newer seq wins, a stale or repeated update is ignored."""

    def __init__(self) -> None:
        self._meters: dict[str, tuple[int, dict[str, str]]] = {}
        self._lock = threading.Lock()

    def publish(self, meter_id: str, seq: int, fields: dict[str, str]) -> bool:
        """Store unless a newer (or equal) seq is already there."""
        with self._lock:
            current = self._meters.get(meter_id)
            if current is not None and current[0] >= seq:
                return False
            self._meters[meter_id] = (seq, dict(fields))
            return True

    def read(self, meter_id: str) -> dict[str, str] | None:
        """The latest fields."""
        with self._lock:
            current = self._meters.get(meter_id)
        return None if current is None else dict(current[1])
