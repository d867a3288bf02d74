"""The stateful machine's steps: how it builds table events and operator commands, submits them
to the floor decider, checks the verdict it expected, and keeps the reference model in step.

`tests.controller.test_stateful` adds the hypothesis rules and invariants on top; the refused
events of `tests.controller.stateful_invalid` are built with these steps too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import reduce
from typing import ClassVar

from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
)

from controller.floor import decide, evolve
from controller.model.commands import ActivateConfig, CorrectMeter, PayHit, ValidateHit
from controller.model.events import Event, EventRejected, FixedAwarded, ProgressiveHit
from controller.model.state import FloorState
from controller.model.table_events import TableEvent, from_contract
from tests.controller.stateful_deals import deal_cards, rig, settlement_body
from tests.controller.stateful_table import (
    BASE_AMOUNTS,
    BASE_WAGERS,
    PA,
    SEATS,
    SURVIVES_FOLD,
    TABLES,
    UNITS,
    Phase,
    Track,
    cents,
    money,
)
from tests.reference_model import (
    ReferenceFloor,
    Wager,
)


class FloorSteps(RuleBasedStateMachine):
    """Three tables and the operators, against the reference model (no rules of its own)."""

    config_text: ClassVar[str] = PA
    """The floor played; a subclass may play another one (e.g. with ceilings)."""

    def __init__(self) -> None:
        super().__init__()
        self.state = FloorState()
        self.log: list[Event] = []
        self.ref = ReferenceFloor.from_toml(self.config_text)
        self.tracks = {t: Track(table_id=t, offered=tuple(self.ref.links[t])) for t in TABLES}
        self.hits: dict[str, str] = {}
        self.clock = 0

    # --- plumbing ---------------------------------------------------------------------------------

    def _now(self) -> str:
        self.clock += 1
        day, rest = divmod(self.clock, 86_400)
        return f"2026-01-{day + 1:02d}T{rest // 3600:02d}:{rest // 60 % 60:02d}:{rest % 60:02d}Z"

    def _next_id(self, prefix: str) -> str:
        return f"{prefix}-{self.clock + 1}"

    def _event(self, track: Track, kind: str, **body: object) -> TableEvent:
        """A contract dict turned into a table event; blanks filled from the track."""
        raw: dict[str, object] = {
            "event_id": self._next_id(track.table_id),
            "type": kind,
            "table_id": track.table_id,
            "round_id": track.round_id or "r0",
            "seq": track.last_seq + 1 + self.clock % 3,  # strictly increasing, not contiguous
        }
        raw.update(body)
        raw["occurred_at"] = self._now()
        return from_contract(raw)

    def _submit(
        self,
        command: TableEvent | ActivateConfig | CorrectMeter | ValidateHit | PayHit,
        ok: bool,
        why: str,
    ) -> tuple[Event, ...]:
        before = self.state
        events = decide(before, command)
        after = reduce(evolve, events, before)
        rejected = [e for e in events if isinstance(e, EventRejected)]
        if ok:
            assert not rejected, f"{why}: refused {command!r}: {[r.reason for r in rejected]}"
        else:
            assert len(events) == 1, f"{why}: expected one rejection, got {events!r}"
            assert rejected, f"{why}: accepted {command!r}"
            assert after == before, f"{why}: a rejected command changed the state"
            event(f"rejected: {why}")
        self.state = after
        self.log.extend(events)
        if ok and not isinstance(command, ActivateConfig | CorrectMeter | ValidateHit | PayHit):
            track = self.tracks[command.table_id]
            track.last_seq = command.seq
            track.round_event_ids.append(command.event_id)
            track.accepted.append(command)
        return events

    def _pick(
        self,
        data: st.DataObject,
        phases: Sequence[Phase],
        where: Callable[[Track], bool] = lambda _: True,
    ) -> Track:
        eligible = [t for t in self.tracks.values() if t.phase in phases and where(t)]
        return data.draw(st.sampled_from(eligible), label="table")

    def _any(
        self, phases: Sequence[Phase], where: Callable[[Track], bool] = lambda _: True
    ) -> bool:
        return any(t.phase in phases and where(t) for t in self.tracks.values())

    # --- round steps -----------------------------------------------------------------------------

    def _play_round(self, data: st.DataObject, track: Track, deck: Sequence[str]) -> None:
        self._open(track)
        self._place(data, track, 12)
        self._lock(track)
        self._decide(data, track, track.undecided())
        self._settle(data, track, deck)

    def _void(self, track: Track) -> None:
        voided = self._event(track, "round_voided", reason="misdeal: dealer exposed a card")
        self._submit(voided, ok=True, why="void")
        if track.phase == "locked" and self.ref.void(track.table_id):
            event("void of a round whose contributions were partly paid out or corrected away")
        track.phase = "voided"

    def _open(self, track: Track) -> None:
        track.rounds += 1
        round_id = f"{track.table_id}-r{track.rounds}"
        opened = self._event(track, "round_opened", round_id=round_id, game="three_card_poker")
        track.round_id, track.phase = round_id, "open"
        track.wagers, track.decided, track.round_event_ids = [], {}, []
        self._submit(opened, ok=True, why="open")

    def _place(self, data: st.DataObject, track: Track, most: int) -> None:
        """Valid wagers, progressive ones twice as likely; placing one twice must be refused."""
        kinds = st.sampled_from((*BASE_WAGERS, *track.offered, *track.offered))
        spots = st.tuples(st.sampled_from(SEATS), kinds, st.booleans())
        for seat, kind, on_dealer in data.draw(st.lists(spots, min_size=1, max_size=most)):
            on = "dealer" if on_dealer and kind == "five_card_hand_bonus" else "own"
            amount = (
                UNITS[track.table_id]
                if kind in track.offered
                else data.draw(st.sampled_from(BASE_AMOUNTS))
            )
            placed = self._event(track, "wager_placed", seat=seat, wager=kind, amount=amount, on=on)
            duplicate = track.has(seat, kind, on)
            self._submit(placed, ok=not duplicate, why="same wager twice")
            if not duplicate:
                track.wagers.append((seat, kind, on, cents(amount)))

    def _lock(self, track: Track) -> None:
        self._submit(self._event(track, "wagers_locked"), ok=True, why="lock")
        track.phase = "locked"
        self.ref.lock(track.table_id, [Wager(s, k, o) for s, k, o, _ in track.wagers])

    def _decide(self, data: st.DataObject, track: Track, seats: Sequence[int]) -> None:
        for seat in seats:
            action = data.draw(st.sampled_from(("play", "fold")))
            body: dict[str, object] = {"seat": seat, "action": action}
            if action == "play":
                body["amount"] = money(track.ante(seat) or 0)
            self._submit(self._event(track, "decision", **body), ok=True, why="decision")
            track.decided[seat] = action

    def _settle(self, data: st.DataObject, track: Track, deck: Sequence[str]) -> None:
        """Settle from the shuffled deck, maybe rigged; the hits must be the reference's."""
        seats = track.seats()
        if data.draw(st.booleans(), label="leave out folded hands"):
            # schema round_settled: "Hands of folded players may be left out" (649a.11(c)), when
            # none of their wagers survives the fold (649a.11(b)(3)).
            seats = [s for s in seats if not self._nothing_in_play(track, s)]
        deal = deal_cards(seats, deck, rig(data, seats))
        style = data.draw(st.integers(0, 3), label="spelling")
        settled = self._event(track, "round_settled", **settlement_body(deal, style))
        wagers = [Wager(s, k, o) for s, k, o, _ in track.wagers]
        folded = [s for s, a in track.decided.items() if a == "fold"]
        expected = self.ref.settle(track.table_id, wagers, folded, deal)
        events = self._submit(settled, ok=True, why="settle")
        track.phase = "settled"
        hits = [e for e in events if isinstance(e, ProgressiveHit)]
        # 649a.11(c)(8)(ii): a 500-for-1 Five Card Hand Bonus is verified like a hit, too.
        for award in events:
            if isinstance(award, FixedAwarded) and award.hit_id:
                assert award.hand == "four_of_a_kind", award
                assert award.hit_id not in self.hits, f"hit id {award.hit_id!r} used twice"
                self.hits[award.hit_id] = "pending_validation"
        actual = [
            (h.meter_id, h.wager, h.on, h.hand, tuple((w.seat, w.amount_cents) for w in h.winners))
            for h in hits
        ]
        assert actual == [(a.meter_id, a.kind, a.on, a.hand, a.shares) for a in expected], deal
        for hit in hits:
            assert hit.hit_id not in self.hits, f"hit id {hit.hit_id!r} used twice"
            self.hits[hit.hit_id] = "pending_validation"
            event(f"hit: {hit.wager} on {hit.on}, {hit.hand}")
        event(f"settlement with {min(len(hits), 2)} hits")

    @staticmethod
    def _nothing_in_play(track: Track, seat: int) -> bool:
        return track.decided.get(seat) == "fold" and all(
            kind not in SURVIVES_FOLD for s, kind, _, _ in track.wagers if s == seat
        )

    def _correction(
        self,
        meter_id: str,
        amount: int,
        reserve: int,
        *,
        by: str = "manager-1",
        reason: str = "audit adjustment",
    ) -> CorrectMeter:
        return CorrectMeter(
            command_id=self._next_id("cmd"),
            meter_id=meter_id,
            amount_delta_sub=amount,
            reserve_delta_sub=reserve,
            by=by,
            second_by="manager-2",  # dual control: above the correction_cap two supervisors sign
            reason=reason,
            occurred_at=self._now(),
        )
