"""Mutable mirrors of the frozen state (`controller.model.state`), owned by one `Session`.

Each record is thawed from its frozen state on first use and frozen again only when the state
is read (`Session.state`). Thawing and freezing are exact inverses: ``freeze(thaw(s)) == s``, and
every update below moves a record exactly as `controller.evolve` moves the frozen one (the
differential tests in ``tests/controller/fast/`` check it event by event).
"""

from __future__ import annotations

from dataclasses import fields
from typing import Final

from controller.fast.build import DECISION_EVENT, WAGER_EVENT
from controller.fast.meter_record import METER_SLOTS
from controller.fast.shapes import DecisionLike, OpenedLike, WagerLike
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


#: The slots of `Table`, named here so `KNOWN_SHAPES` can read them (`METER_SLOTS` are `Meter`'s):
#: a class compiled by mypyc keeps no ``__slots__`` attribute.
_TABLE_SLOTS: Final = ("last_seq", "round", "table_id")


class SettledWager:
    """A wager of the round as the lock and the settlement read it (`Round.settled_wagers`): its
    seat, kind and target read once; its amount in cents read when first asked (a struct's
    ``amount_cents`` is a property)."""

    __slots__ = ("_cents", "on", "seat", "source", "wager")

    def __init__(
        self, source: WagerLike, seat: int, wager: str, on: str, cents: int | None = None
    ) -> None:
        self.source = source
        self.seat = seat
        self.wager = wager
        self.on = on
        self._cents = cents  # None: not read yet

    @property
    def amount_cents(self) -> int:
        """The wager's ``amount_cents``, read from it once."""
        cents = self._cents
        if cents is None:
            cents = self._cents = self.source.amount_cents
        return cents


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
        "settled",
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
        # ``settled[i]`` is ``wagers[i]`` read (`settled_wagers`), for a prefix of the wagers
        self.settled: list[SettledWager] = []
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

    def copy(self) -> Round:
        """A copy that shares nothing mutable with this round: `thaw` of its `freeze`, without
        freezing each wager and decision (its indexes are rebuilt when read, as after a thaw)."""
        out = Round(self.round_id, self.game, self.phase, set(self.indexed().event_ids))
        out.wagers = list(self.wagers)
        out.decisions = list(self.decisions)
        out.contributions = list(self.contributions)
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
        if self._wagers_seen < len(self.wagers):  # indexed later, by `indexed`
            self.wagers.append(wager)
            self.event_ids.add(wager.event_id)
            return
        seat, kind = wager.seat, wager.wager
        key = (seat, kind, wager.on)
        self.placed.add(key)
        self.add_placed(wager, wager.event_id, key, None)

    def add_placed(
        self, wager: WagerLike, event_id: str, key: tuple[int, str, str], cents: int | None
    ) -> None:
        """`add_wager` of a wager whose id, (seat, wager, on) ``key`` and, if read, cents are
        already read, and whose key the caller has just added to ``placed``, on a round indexed
        up to its wagers (as `hot._head_of` leaves it). The caller adds the key itself so that
        the one tuple is built and hashed once: its ``add`` is also the duplicate check
        (`hot.decide_wager`). The fields read are kept as its `SettledWager`, which the lock and
        the settlement read (`settled_wagers`) instead of reading the struct again."""
        seat, kind, on = key
        wagers, settled = self.wagers, self.settled
        read = None
        if len(settled) == len(wagers):  # the prefix stays whole
            read = SettledWager(wager, seat, kind, on, cents)
            settled.append(read)
        wagers.append(wager)
        self.event_ids.add(event_id)
        self._wagers_seen += 1
        if kind == "ante" and seat not in self.antes:
            self.antes[seat] = wager.amount_cents if read is None else read.amount_cents

    def settled_wagers(self) -> list[SettledWager]:
        """Every wager of the round, in the order placed, as a `SettledWager`: those kept when
        accepted (`add_placed`), the rest (a replay's, the reference's) read now and kept too.
        The caller must not change the list."""
        settled, wagers = self.settled, self.wagers
        if len(settled) < len(wagers):
            settled.extend(SettledWager(w, w.seat, w.wager, w.on) for w in wagers[len(settled) :])
        return settled

    def add_decided(self, decision: DecisionLike, event_id: str, seat: int, action: str) -> None:
        """Keep a decision the session accepted, whose id, seat and action are already read, as
        `add_wager` keeps a wager."""
        decisions = self.decisions
        decisions.append(decision)
        self.event_ids.add(event_id)
        if self._decisions_seen == len(decisions) - 1:
            self.actions.setdefault(seat, []).append(action)
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

    def copy(self) -> Table:
        """`thaw` of this table's `freeze`, without freezing it (`Round.copy`)."""
        current = None if self.round is None else self.round.copy()
        return Table(self.table_id, self.last_seq, current)

    def freeze(self) -> TableState:
        """The frozen table."""
        current = None if self.round is None else self.round.freeze()
        return TableState(table_id=self.table_id, last_seq=self.last_seq, round=current)


def _names(cls: type) -> frozenset[str]:
    return frozenset(f.name for f in fields(cls))


#: Whether the state and event classes hold exactly the fields these records mirror. Another part
#: of the rules may add fields; until this module learns them, the session sends everything to the
#: reference (slower, never different).
KNOWN_SHAPES = (
    _names(MeterState) == frozenset(METER_SLOTS)
    and _names(RoundState) == _ROUND_FIELDS
    and _names(TableState) == frozenset(_TABLE_SLOTS)
    and _names(ContributionRecorded) == _CONTRIBUTION_FIELDS
)
