"""The embedded engine's reads of its state: the state, the position, a snapshot of them.

A mixin of `streams.embedded.engine.EmbeddedController` (kept apart to keep that module about
writing): each read takes the engine's lock, so a reader never sees a batch half decided.
"""

from __future__ import annotations

import threading

from controller.fast import Session
from controller.model.state import FloorState
from streams.embedded.snapshot import encode_snapshot
from streams.ports import SnapshotStore


class Views:
    """The engine's reads (the attributes are the engine's own)."""

    _lock: threading.RLock
    _session: Session
    _position: int
    _snapshots: SnapshotStore
    _snapshot_position: int

    @property
    def state(self) -> FloorState:
        """The current state (immutable once returned: safe to keep and read from any thread)."""
        with self._lock:
            return self._session.state()

    @property
    def position(self) -> int:
        """The log position the state reflects."""
        return self._position

    def view(self) -> tuple[FloorState, int]:
        """The state and the position it reflects, taken together."""
        with self._lock:
            return self._session.state(), self._position

    def view_unlocked(self) -> tuple[FloorState, int]:
        """`view`, the tables a restart deferred decoded outside the lock (the full check's
        read: ~0.6 s at 10,000 tables, which writes would otherwise wait for)."""
        with self._lock:
            back, position = self._session.rollback_point(), self._position
        return back().state(), position

    def partial_state(self) -> FloorState:
        """The state without the tables a restart has not decoded yet (configuration, meters and
        hits whole: /readyz, metrics); `state` decodes them all (~0.6 s at 10,000 tables)."""
        with self._lock:
            return self._session.partial_state()

    def snapshot(self) -> None:
        """Save the state at the current position."""
        with self._lock:
            blob = encode_snapshot(self._session.state())
            self._snapshots.save(self._position, blob)
            self._snapshot_position = self._position
