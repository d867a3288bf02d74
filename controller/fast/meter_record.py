"""The mutable mirror of a meter's frozen state (`MeterState`), owned by one `Session`.

Its own module because a meter's record is apart from a table's: it is thawed and frozen on its
own (`Session.meter`, the session's dirty meters) and moved by contributions, hits and seeds
rather than by a table's round (`controller.fast.records`). As there, ``freeze`` inverts the
thaw, and every update moves the record exactly as `controller.evolve` moves the frozen one.
"""

from __future__ import annotations

from typing import Final

from immutables import Map

from controller.fast.shapes import ContributionLike
from controller.model.state import MeterState

#: `Meter`'s slots, named here so `controller.fast.records.KNOWN_SHAPES` can read them: a class
#: compiled by mypyc keeps no ``__slots__`` attribute.
METER_SLOTS: Final = (
    "amount_sub",
    "contributed_sub",
    "contributions",
    "corrected_sub",
    "hits",
    "meter_id",
    "mystery_commitment",
    "mystery_salt",
    "mystery_sealed",
    "mystery_trigger_cents",
    "open_rounds",
    "overflow_sub",
    "paid_sub",
    "reserve_sub",
    "retired",
    "seeded_sub",
    "seq",
    "transferred_sub",
)


class Meter:
    """A meter and its running totals (`MeterState`), with ``open_rounds`` as a dict."""

    __slots__ = METER_SLOTS

    def __init__(self, state: MeterState) -> None:
        self.meter_id = state.meter_id
        self.amount_sub = state.amount_sub
        self.reserve_sub = state.reserve_sub
        self.seeded_sub = state.seeded_sub
        self.contributed_sub = state.contributed_sub
        self.contributions = state.contributions
        self.paid_sub = state.paid_sub
        self.corrected_sub = state.corrected_sub
        self.hits = state.hits
        self.seq = state.seq
        self.overflow_sub = state.overflow_sub
        self.transferred_sub = state.transferred_sub
        self.retired = state.retired
        self.mystery_commitment = state.mystery_commitment
        self.mystery_sealed = state.mystery_sealed
        self.mystery_trigger_cents = state.mystery_trigger_cents
        self.mystery_salt = state.mystery_salt
        self.open_rounds: dict[str, tuple[str, int, int]] = dict(state.open_rounds.items())

    def contribute(self, event: ContributionLike) -> None:
        """`evolve_meter` for a `ContributionRecorded` (a part above a ceiling carried in the
        overflow or diverted to another meter, as the event says)."""
        self.contributed(
            event.table_id,
            event.round_id,
            event.primary_sub,
            event.reserve_sub,
            event.overflow_sub,
            event.diverted_sub,
            event.meter_seq,
        )

    def contributed(  # noqa: PLR0917 - the event's fields, as the lock priced them
        self,
        table_id: str,
        round_id: str,
        primary: int,
        reserve: int,
        overflow: int,
        diverted: int,
        meter_seq: int,
    ) -> None:
        """`contribute` of a contribution's fields as read (the lock has them at hand: reading
        them back from the event it made cost ~1.2k instructions a contribution)."""
        pooled = primary - diverted  # on the meter or in its overflow
        open_rounds = self.open_rounds
        entry = open_rounds.get(table_id)
        if entry is not None and entry[0] == round_id:
            open_rounds[table_id] = (round_id, entry[1] + pooled, entry[2] + reserve)
        else:
            open_rounds[table_id] = (round_id, pooled, reserve)
        self.amount_sub += primary - overflow - diverted
        self.reserve_sub += reserve
        self.overflow_sub += overflow
        self.contributed_sub += primary + reserve
        self.transferred_sub -= diverted
        self.contributions += 1
        self.seq = meter_seq

    def freeze(self) -> MeterState:
        """The frozen meter."""
        return MeterState(
            meter_id=self.meter_id,
            amount_sub=self.amount_sub,
            reserve_sub=self.reserve_sub,
            seeded_sub=self.seeded_sub,
            contributed_sub=self.contributed_sub,
            contributions=self.contributions,
            paid_sub=self.paid_sub,
            corrected_sub=self.corrected_sub,
            hits=self.hits,
            seq=self.seq,
            overflow_sub=self.overflow_sub,
            transferred_sub=self.transferred_sub,
            retired=self.retired,
            mystery_commitment=self.mystery_commitment,
            mystery_sealed=self.mystery_sealed,
            mystery_trigger_cents=self.mystery_trigger_cents,
            mystery_salt=self.mystery_salt,
            open_rounds=Map(self.open_rounds),
        )
