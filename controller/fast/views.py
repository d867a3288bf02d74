"""What the round lane's fast checks read of a table and its round (`controller.fast.lane`'s
`wager_accepted` and `decision_accepted`): a frozen `TableState` and `RoundState`, or the
worker's open table within a batch (`streams.scaleout.open_table`: lists and a set), alike."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Protocol

from controller.model.table_events import DecisionMade, WagerPlaced


class RoundView(Protocol):
    """What `wager_accepted` and `decision_accepted` read of a round: a `RoundState`, or the
    round lane's open table within a batch (`streams.scaleout.open_table`, lists and a set)."""

    @property
    def round_id(self) -> str: ...
    @property
    def game(self) -> str: ...
    @property
    def phase(self) -> str: ...
    @property
    def wagers(self) -> Sequence[WagerPlaced]: ...
    @property
    def decisions(self) -> Sequence[DecisionMade]: ...
    @property
    def event_ids(self) -> Collection[str]: ...


class TableView(Protocol):
    """What those two read of a table: a `TableState` or an open table (`RoundView`)."""

    @property
    def last_seq(self) -> int: ...
    @property
    def round(self) -> RoundView | None: ...
