"""What the session reads of a recorded event, as protocols: the frozen event or a lighter record.

A replay spends most of a record's time building the frozen event (`controller.model`), which the
session mostly throws away: a wager is kept in its round only until the next round opens. The
session's appliers and records therefore read events through these protocols, which the frozen
events satisfy and so does any record with the same attribute names and values (the log reader's
structs, `streams.codec.records`). A record is turned into its frozen event only when the state
is read (`controller.fast.records.Round.freeze`).
"""

from __future__ import annotations

from typing import Protocol


class TableRecord(Protocol):
    """The head every table event carries."""

    @property
    def event_id(self) -> str: ...
    @property
    def table_id(self) -> str: ...
    @property
    def round_id(self) -> str: ...
    @property
    def seq(self) -> int: ...
    @property
    def occurred_at(self) -> str: ...


class OpenedLike(TableRecord, Protocol):
    """A `RoundOpened`."""

    @property
    def game(self) -> str: ...


class WagerLike(TableRecord, Protocol):
    """A `WagerPlaced`."""

    @property
    def seat(self) -> int: ...
    @property
    def wager(self) -> str: ...
    @property
    def amount_cents(self) -> int: ...
    @property
    def on(self) -> str: ...


class DecisionLike(TableRecord, Protocol):
    """A `DecisionMade`."""

    @property
    def seat(self) -> int: ...
    @property
    def action(self) -> str: ...
    @property
    def amount_cents(self) -> int | None: ...
    @property
    def discards(self) -> tuple[str, ...]: ...


class ContributionLike(Protocol):
    """A `ContributionRecorded`, as the meter and the round read it."""

    @property
    def meter_id(self) -> str: ...
    @property
    def table_id(self) -> str: ...
    @property
    def round_id(self) -> str: ...
    @property
    def primary_sub(self) -> int: ...
    @property
    def reserve_sub(self) -> int: ...
    @property
    def meter_seq(self) -> int: ...
    @property
    def overflow_sub(self) -> int: ...
    @property
    def diverted_sub(self) -> int: ...


class FixedLike(Protocol):
    """A `FixedAwarded`, as `evolve` reads it."""

    @property
    def meter_id(self) -> str: ...
    @property
    def amount_cents(self) -> int: ...
    @property
    def hit_id(self) -> str: ...
