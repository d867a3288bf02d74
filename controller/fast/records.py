"""Mutable mirrors of the frozen state (`controller.model.state`), owned by one `Session`.

Each record is thawed from its frozen state on first use and frozen again only when the state
is read (`Session.state`). Thawing and freezing are exact inverses: ``freeze(thaw(s)) == s``, and
every update below moves a record exactly as `controller.evolve` moves the frozen one (the
differential tests in ``tests/controller/fast/`` check it event by event).
"""

from __future__ import annotations

from dataclasses import fields
from typing import Final

from immutables import Map

from controller.fast.build import DECISION_EVENT, WAGER_EVENT
from controller.fast.shapes import ContributionLike, DecisionLike, OpenedLike, WagerLike
from controller.model.events import ContributionRecorded
from controller.model.state import MeterState, RoundPhase, RoundState, TableState
from controller.model.table_events import DecisionMade, WagerPlaced

_ROUND_FIELDS = frozenset(
    {"round_id", "game", "phase", "wagers", "decisions", "contributions", "event_ids"}
)
_CONTRIBUTION_FIELDS = frozenset(
    {
        "meter_id",
        "table_id",
        "round_id",
        "seat",
        "wager",
        "on",
        "wager_cents",
        "primary_sub",
        "reserve_sub",
        "meter_seq",
        "occurred_at",
        "overflow_sub",
        "diverted_sub",
        "divert_to",
    }
)


#: The slots of `Table` and `Meter`, named here so `KNOWN_SHAPES` can read them: a class compiled
#: by mypyc keeps no ``__slots__`` attribute.
_TABLE_SLOTS: Final = ("last_seq", "round", "table_id")
_METER_SLOTS: Final = (
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


class Round:
    """A round in play. ``antes``, ``placed`` and ``actions`` index the wagers and decisions so
    the hot checks need no scan; they are derived, never frozen, and brought up to date only when
    a check reads them (`indexed`): a replay appends wagers and decisions and never checks."""

    __slots__ = (
        "_decisions_seen",
        "_wagers_seen",
        "actions",
        "antes",
        "contributions",
        "decisions",
        "event_ids",
        "game",
        "phase",
        "placed",
        "round_id",
        "wagers",
    )

    def __init__(self, round_id: str, game: str, phase: RoundPhase, event_ids: set[str]) -> None:
        self.round_id = round_id
        self.game = game
        self.phase = phase
        self.wagers: list[WagerLike] = []
        self.decisions: list[DecisionLike] = []
        self.contributions: list[tuple[str, int, int]] = []
        self.event_ids = event_ids
        self.antes: dict[int, int] = {}
        self.placed: set[tuple[int, str, str]] = set()
        self.actions: dict[int, list[str]] = {}
        self._wagers_seen = 0
        self._decisions_seen = 0

    @staticmethod
    def opened(event: OpenedLike) -> Round:
        """The round `controller.rules.table_state` starts for ``event``."""
        return Round(event.round_id, event.game, "open", {event.event_id})

    @staticmethod
    def thaw(state: RoundState) -> Round:
        """A mutable copy of ``state``."""
        out = Round(state.round_id, state.game, state.phase, set(state.event_ids))
        out.wagers = list(state.wagers)
        out.decisions = list(state.decisions)
        out.contributions = list(state.contributions)
        return out

    def indexed(self) -> Round:
        """This round, its indexes brought up to its wagers and decisions: ``placed`` holds
        each wager's (seat, wager, on), ``antes`` each seat's first Ante (as `check_decision`
        reads it), ``actions`` each seat's actions in order, and ``event_ids`` their ids (a
        replay appends a wager or a decision without adding its id: read ``event_ids`` through
        this)."""
        wagers, decisions, ids = self.wagers, self.decisions, self.event_ids
        if self._wagers_seen < len(wagers):
            placed, antes = self.placed, self.antes
            for wager in wagers[self._wagers_seen :]:
                ids.add(wager.event_id)
                placed.add((wager.seat, wager.wager, wager.on))
                if wager.wager == "ante" and wager.seat not in antes:
                    antes[wager.seat] = wager.amount_cents
            self._wagers_seen = len(wagers)
        if self._decisions_seen < len(decisions):
            actions = self.actions
            for decision in decisions[self._decisions_seen :]:
                ids.add(decision.event_id)
                actions.setdefault(decision.seat, []).append(decision.action)
            self._decisions_seen = len(decisions)
        return self

    def add_wager(self, wager: WagerLike) -> None:
        """Keep a wager the session accepted, with its id, and index it at once when the round
        is indexed up to it (as a decider leaves it): `indexed` then has nothing left to do."""
        self.add_read(wager, wager.event_id, (wager.seat, wager.wager, wager.on))

    def add_read(self, wager: WagerLike, event_id: str, placed: tuple[int, str, str]) -> None:
        """`add_wager` of a wager whose id and (seat, wager, on) are already read."""
        wagers = self.wagers
        wagers.append(wager)
        self.event_ids.add(event_id)
        if self._wagers_seen == len(wagers) - 1:
            self.placed.add(placed)
            seat = placed[0]
            if placed[1] == "ante" and seat not in self.antes:
                self.antes[seat] = wager.amount_cents
            self._wagers_seen += 1

    def add_decision(self, decision: DecisionLike) -> None:
        """Keep a decision the session accepted, as `add_wager` keeps a wager."""
        decisions = self.decisions
        decisions.append(decision)
        self.event_ids.add(decision.event_id)
        if self._decisions_seen == len(decisions) - 1:
            self.actions.setdefault(decision.seat, []).append(decision.action)
            self._decisions_seen += 1

    def freeze(self) -> RoundState:
        """The frozen round."""
        return RoundState(
            round_id=self.round_id,
            game=self.game,
            phase=self.phase,
            wagers=tuple(map(_frozen_wager, self.wagers)),
            decisions=tuple(map(_frozen_decision, self.decisions)),
            contributions=tuple(self.contributions),
            event_ids=frozenset(self.indexed().event_ids),
        )


def _frozen_wager(wager: WagerLike) -> WagerPlaced:
    """The frozen event of a wager kept as a lighter record (or the event itself)."""
    if isinstance(wager, WagerPlaced):
        return wager
    return WAGER_EVENT(
        wager.event_id,
        wager.table_id,
        wager.round_id,
        wager.seq,
        wager.occurred_at,
        wager.seat,
        wager.wager,
        int(wager.amount_cents),
        wager.on,
    )


def _frozen_decision(decision: DecisionLike) -> DecisionMade:
    """The frozen event of a decision kept as a lighter record (or the event itself)."""
    if isinstance(decision, DecisionMade):
        return decision
    amount = decision.amount_cents
    return DECISION_EVENT(
        decision.event_id,
        decision.table_id,
        decision.round_id,
        decision.seq,
        decision.occurred_at,
        decision.seat,
        decision.action,
        None if amount is None else int(amount),
        tuple(decision.discards),
    )


class Table:
    """A table's position in its stream."""

    __slots__ = _TABLE_SLOTS

    def __init__(self, table_id: str, last_seq: int, current: Round | None) -> None:
        self.table_id = table_id
        self.last_seq = last_seq
        self.round = current

    @staticmethod
    def thaw(state: TableState) -> Table:
        """A mutable copy of ``state``."""
        current = None if state.round is None else Round.thaw(state.round)
        return Table(state.table_id, state.last_seq, current)

    def freeze(self) -> TableState:
        """The frozen table."""
        current = None if self.round is None else self.round.freeze()
        return TableState(table_id=self.table_id, last_seq=self.last_seq, round=current)


class Meter:
    """A meter and its running totals (`MeterState`), with ``open_rounds`` as a dict."""

    __slots__ = _METER_SLOTS

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
        primary, reserve, round_id = event.primary_sub, event.reserve_sub, event.round_id
        pooled = primary - event.diverted_sub  # on the meter or in its overflow
        entry = self.open_rounds.get(event.table_id)
        if entry is not None and entry[0] == round_id:
            self.open_rounds[event.table_id] = (round_id, entry[1] + pooled, entry[2] + reserve)
        else:
            self.open_rounds[event.table_id] = (round_id, pooled, reserve)
        self.amount_sub += primary - event.overflow_sub - event.diverted_sub
        self.reserve_sub += reserve
        self.overflow_sub += event.overflow_sub
        self.contributed_sub += primary + reserve
        self.transferred_sub -= event.diverted_sub
        self.contributions += 1
        self.seq = event.meter_seq

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


def _names(cls: type) -> frozenset[str]:
    return frozenset(f.name for f in fields(cls))


#: Whether the state and event classes hold exactly the fields these records mirror. Another part
#: of the rules may add fields; until this module learns them, the session sends everything to the
#: reference (slower, never different).
KNOWN_SHAPES = (
    _names(MeterState) == frozenset(_METER_SLOTS)
    and _names(RoundState) == _ROUND_FIELDS
    and _names(TableState) == frozenset(_TABLE_SLOTS)
    and _names(ContributionRecorded) == _CONTRIBUTION_FIELDS
)
