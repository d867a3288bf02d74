"""Floor simulator: realistic table events (event contract version 1) for the controller, as dicts.

An edge module: it draws random numbers, but only from the RNG it is given. Production passes
`honest_rng()` (`secrets.SystemRandom`, an honest shuffle); tests pass `random.Random(seed)`, and
the same seed gives the same events. It never reads the real clock: each table has a simulated clock
that starts near `start` and advances by a realistic pause before each event.

Tables run concurrently. The next event emitted is always the earliest pending one across the
floor, so the stream interleaves tables at event granularity, `occurred_at` never goes backwards,
and within a table a round's events keep their order (``seq`` is 1, 2, 3... per table).

Per-game round scripts live in `streams.sim.games`; tables and forced deals in
`streams.sim.settings`.
"""

from __future__ import annotations

import itertools
import json
import random
import secrets
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from controller.model.errors import ConfigError
from streams.sim.games import Event, RoundPlan, play_round
from streams.sim.settings import (
    AKQ_SPADES,
    COMMUNITY_ROYAL,
    DEALER_ROYAL,
    FIVE_OF_SIX_ROYAL,
    ForcedDeal,
    ForcedHands,
    SimTable,
)

__all__ = [
    "AKQ_SPADES",
    "COMMUNITY_ROYAL",
    "DEALER_ROYAL",
    "FIVE_OF_SIX_ROYAL",
    "FloorSimulator",
    "ForcedDeal",
    "ForcedHands",
    "SimTable",
    "honest_rng",
    "write_jsonl",
]

#: Pause before each event type, in milliseconds (low, high): shuffling and collecting before a
#: round opens, chips going down, the deal, a player thinking, the dealer settling the layout.
PAUSE_MS: dict[str, tuple[int, int]] = {
    "round_opened": (15_000, 60_000),
    "wager_placed": (500, 4_000),
    "wagers_locked": (3_000, 12_000),
    "decision": (2_000, 15_000),
    "round_settled": (10_000, 45_000),
    "round_voided": (5_000, 30_000),
}
VOID_REASONS = ("misdeal", "card exposed during the deal", "shuffler malfunction", "deck short")


def honest_rng() -> random.Random:
    """The production RNG: `secrets.SystemRandom` (OS entropy), so every shuffle is honest."""
    return secrets.SystemRandom()


@dataclass(slots=True)
class _TableState:
    table: SimTable
    index: int
    next_ms: int  # simulated time of this table's next event, ms after `start`
    seq: int = 0
    round_no: int = 0
    round_id: str = ""
    budget: int = 0  # rounds still to open in the current `rounds()` call
    pending: deque[Event] = field(default_factory=deque)


class FloorSimulator:
    """Plays rounds at several tables and yields their events in the order a floor would emit them.

    State (clocks, ``seq``, round numbers) lives in the instance, so successive calls continue one
    stream: a round cut off by `events` is finished by the next call before new rounds open.
    """

    def __init__(
        self,
        tables: Sequence[SimTable],
        rng: random.Random,
        start: datetime,
        *,
        occupancy: float = 0.7,
        progressive_take: float = 0.6,
        void_rate: float = 1 / 500,
        forced_hands: ForcedHands | None = None,
    ) -> None:
        _check(tables, start, (occupancy, progressive_take, void_rate))
        self._rng = rng
        self._start = start.astimezone(UTC)
        self._occupancy = occupancy
        self._take = progressive_take
        self._void_rate = void_rate
        self._forced = forced_hands
        # Tables open their first rounds within the first minute, not in lockstep.
        self._states = [
            _TableState(table, index, rng.randint(0, 60_000)) for index, table in enumerate(tables)
        ]

    def rounds(self, count_per_table: int) -> Iterator[Event]:
        """Events of `count_per_table` more complete rounds at every table (voided rounds count)."""
        for state in self._states:
            state.budget += count_per_table
        return self._drain(unbounded=False)

    def events(self, total: int) -> Iterator[Event]:
        """Exactly `total` more events, stopping wherever that falls, even in the middle of rounds.

        The cut-off rounds are not lost: the next `rounds` or `events` call continues them.
        """
        return itertools.islice(self._drain(unbounded=True), total)

    def _drain(self, *, unbounded: bool) -> Iterator[Event]:
        while True:
            ready = [s for s in self._states if s.pending or s.budget > 0 or unbounded]
            if not ready:
                return
            # Ties go to the lower table index so the order is deterministic.
            yield self._step(min(ready, key=lambda s: (s.next_ms, s.index)))

    def _step(self, state: _TableState) -> Event:
        if not state.pending:
            self._open_round(state)
        body = state.pending.popleft()
        state.seq += 1
        event: Event = {
            "event_id": f"{state.table.table_id}:{state.seq}",
            "table_id": state.table.table_id,
            "round_id": state.round_id,
            "seq": state.seq,
            "occurred_at": self._timestamp(state.next_ms),
            **body,
        }
        following = state.pending[0]["type"] if state.pending else "round_opened"
        state.next_ms += self._rng.randint(*PAUSE_MS[str(following)])
        return event

    def _open_round(self, state: _TableState) -> None:
        state.budget = max(0, state.budget - 1)
        state.round_no += 1
        state.round_id = f"{state.table.table_id}-R{state.round_no:06d}"
        forced = self._forced_deal(state)
        plan = RoundPlan(state.table, self._rng, self._occupancy, self._take, forced)
        bodies = play_round(plan)
        if self._rng.random() < self._void_rate:
            bodies = self._voided(bodies)
        state.pending.extend(bodies)

    def _forced_deal(self, state: _TableState) -> ForcedDeal | None:
        if self._forced is None or self._rng.random() >= self._forced.probability:
            return None
        fitting = [deal for deal in self._forced.deals if deal.fits(state.table.game)]
        return self._rng.choice(fitting) if fitting else None

    def _voided(self, bodies: list[Event]) -> list[Event]:
        """Cut the round after `wagers_locked` and some of its decisions, then void it."""
        locked = next(i for i, body in enumerate(bodies) if body["type"] == "wagers_locked")
        decisions = sum(1 for body in bodies if body["type"] == "decision")
        kept = locked + 1 + self._rng.randint(0, decisions)
        return [*bodies[:kept], {"type": "round_voided", "reason": self._rng.choice(VOID_REASONS)}]

    def _timestamp(self, offset_ms: int) -> str:
        moment = self._start + timedelta(milliseconds=offset_ms)
        return f"{moment:%Y-%m-%dT%H:%M:%S}.{moment.microsecond // 1000:03d}Z"


def _check(tables: Sequence[SimTable], start: datetime, rates: tuple[float, float, float]) -> None:
    if start.tzinfo is None or start.utcoffset() is None:
        raise ConfigError("FloorSimulator", "start", "an aware datetime, e.g. datetime.now(UTC)")
    ids = [table.table_id for table in tables]
    if not ids or len(set(ids)) != len(ids):
        raise ConfigError("FloorSimulator", "tables", "at least one table, each table_id once")
    for name, rate in zip(("occupancy", "progressive_take", "void_rate"), rates, strict=True):
        if not 0.0 <= rate <= 1.0:
            raise ConfigError("FloorSimulator", name, f"a rate between 0 and 1, not {rate}")


def write_jsonl(events: Iterable[Event], path: str | Path) -> int:
    """Write one compact JSON object per line (sorted keys); return how many were written."""
    written = 0
    with Path(path).open("w", encoding="utf-8") as sink:
        for event in events:
            sink.write(json.dumps(event, sort_keys=True, separators=(",", ":")) + "\n")
            written += 1
    return written
