"""Refused table events for the stateful machine: each wrong for exactly one reason, with the
table phases in which that reason applies."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import strategies as st

from controller.model.table_events import TableEvent
from tests.controller.stateful_deals import deal_cards, settlement_body, spell
from tests.controller.stateful_steps import FloorSteps
from tests.controller.stateful_table import (
    DECK,
    OPENABLE,
    SEATS,
    TRACK_PHASES,
    UNITS,
    Phase,
    Track,
    cents,
    money,
)
from tests.reference_model import (
    Deal,
)

Maker = Callable[[FloorSteps, st.DataObject, Track], TableEvent | None]


def _open_while_busy(m: FloorSteps, data: st.DataObject, t: Track) -> TableEvent:
    return m._event(t, "round_opened", round_id=f"{t.round_id}-next", game="three_card_poker")


def _open_reused_round_id(m: FloorSteps, data: st.DataObject, t: Track) -> TableEvent:
    return m._event(t, "round_opened", round_id=t.round_id, game="three_card_poker")


def _open_wrong_game(m: FloorSteps, data: st.DataObject, t: Track) -> TableEvent:
    game = data.draw(st.sampled_from(("lunar_poker", "three_card_prime", "four_card_prime")))
    return m._event(t, "round_opened", round_id=f"{t.table_id}-other", game=game)


def _wager(
    m: FloorSteps,
    t: Track,
    seat: int,
    *,
    kind: str,
    amount: str,
    on: str = "own",
    round_id: str | None = None,
) -> TableEvent:
    body: dict[str, object] = {"seat": seat, "wager": kind, "amount": amount, "on": on}
    if round_id is not None:
        body["round_id"] = round_id
    return m._event(t, "wager_placed", **body)


def _wrong_amount(m: FloorSteps, data: st.DataObject, t: Track) -> TableEvent:
    kind = data.draw(st.sampled_from(t.offered))
    unit = cents(UNITS[t.table_id])
    amount = data.draw(st.sampled_from((unit * 2, unit + 1, unit - 1, 500 if unit == 100 else 100)))
    return _wager(m, t, data.draw(st.sampled_from(SEATS)), kind=kind, amount=money(amount))


def _unknown_wager(m: FloorSteps, data: st.DataObject, t: Track) -> TableEvent:
    # "super" is a Lunar Poker wager; tcp-7 links only the Progressive to a meter.
    names = ["lucky_sevens", "super", "bet", *(k for k in FIVE_KINDS if k not in t.offered)]
    kind = data.draw(st.sampled_from(names))
    return _wager(m, t, data.draw(st.sampled_from(SEATS)), kind=kind, amount=UNITS[t.table_id])


FIVE_KINDS = ("five_card_progressive", "five_card_hand_bonus", "five_of_six_progressive")


def _bad_seat(m: FloorSteps, data: st.DataObject, t: Track) -> TableEvent:
    seat = data.draw(st.sampled_from((0, 8, 9, 12)))
    kind = data.draw(st.sampled_from(t.offered))
    return _wager(m, t, seat, kind=kind, amount=UNITS[t.table_id])


def _wager_after_lock(m: FloorSteps, data: st.DataObject, t: Track) -> TableEvent:
    kind = data.draw(st.sampled_from(t.offered))
    return _wager(m, t, data.draw(st.sampled_from(SEATS)), kind=kind, amount=UNITS[t.table_id])


def _wrong_target(m: FloorSteps, data: st.DataObject, t: Track) -> TableEvent:
    # 649a.12(i)(2): only the Five Card Hand Bonus rides on the dealer's hand; no TCP wager rides
    # on another player's.
    kind, on = data.draw(
        st.sampled_from(
            [(k, "dealer") for k in (*t.offered, "ante") if k != "five_card_hand_bonus"]
            + [(k, "seat:3") for k in t.offered]
        )
    )
    amount = UNITS[t.table_id] if kind in t.offered else "5.00"
    seat = data.draw(st.sampled_from((1, 2, 4, 5)))
    return _wager(m, t, seat, kind=kind, amount=amount, on=on)


def _wager_wrong_round(m: FloorSteps, data: st.DataObject, t: Track) -> TableEvent:
    return _wager(m, t, 1, kind="ante", amount="5.00", round_id=f"{t.table_id}-elsewhere")


def _lock_again(m: FloorSteps, data: st.DataObject, t: Track) -> TableEvent:
    return m._event(t, "wagers_locked")


def _decision_without_ante(m: FloorSteps, data: st.DataObject, t: Track) -> TableEvent | None:
    seats = [s for s in SEATS if t.ante(s) is None]
    if not seats:
        return None
    return m._event(t, "decision", seat=data.draw(st.sampled_from(seats)), action="fold")


def _decision_of(action: str, extra: int, seats: Callable[[Track], list[int]]) -> Maker:
    """A decision by a seat with an ante: ``action`` with ante + ``extra`` cents."""

    def make(m: FloorSteps, data: st.DataObject, t: Track) -> TableEvent | None:
        choices = seats(t)
        if not choices:
            return None
        seat = data.draw(st.sampled_from(choices))
        amount = money((t.ante(seat) or 0) + extra)
        return m._event(t, "decision", seat=seat, action=action, amount=amount)

    return make


def _with_ante(t: Track) -> list[int]:
    return [s for s in t.seats() if t.ante(s) is not None]


def _settle_with(change: Callable[[Deal, Track], Deal]) -> Maker:
    """A settlement of an honest deal, spoilt by ``change``."""

    def make(m: FloorSteps, data: st.DataObject, t: Track) -> TableEvent:
        deal = change(deal_cards(t.seats(), data.draw(st.permutations(DECK)), {}), t)
        return m._event(t, "round_settled", **settlement_body(deal))

    return make


def _played(t: Track) -> list[int]:
    """Seats that wagered and did not fold (whose hands are needed whatever the policy)."""
    return [s for s in t.seats() if t.decided.get(s) != "fold"]


def _missing_seat(deal: Deal, t: Track) -> Deal:
    gone = _played(t)[0]
    return Deal(deal.dealer, deal.community, {s: c for s, c in deal.seats.items() if s != gone})


def _extra_seat(deal: Deal, t: Track) -> Deal:
    free = next(s for s in SEATS if s not in deal.seats)
    dealt = {*deal.dealer, *deal.community, *(c for cards in deal.seats.values() for c in cards)}
    spare = tuple(c for c in DECK if c not in dealt)[:3]
    return Deal(deal.dealer, deal.community, {**deal.seats, free: spare})


def _card_twice(deal: Deal, t: Track) -> Deal:
    return Deal(deal.dealer, (deal.community[0], deal.dealer[0]), deal.seats)


def _card_twice_spelt_two_ways(deal: Deal, t: Track) -> Deal:
    """The dealer's first card again in the community, spelt "10H" or "2C": still one card."""
    return Deal(deal.dealer, (deal.community[0], spell(deal.dealer[0], 3)), deal.seats)


def _one_community_card(deal: Deal, t: Track) -> Deal:
    return Deal(deal.dealer, deal.community[:1], deal.seats)


def _short_hand(deal: Deal, t: Track) -> Deal:
    seats = t.seats()
    if not seats:
        return Deal(deal.dealer[:2], deal.community, deal.seats)
    return Deal(deal.dealer, deal.community, {**deal.seats, seats[-1]: deal.seats[seats[-1]][:2]})


def _honest(deal: Deal, t: Track) -> Deal:
    return deal


def _resend(m: FloorSteps, data: st.DataObject, t: Track) -> TableEvent:
    """A device resends an event the controller already accepted (same id, same seq)."""
    return data.draw(st.sampled_from(t.accepted))


def _reuse_event_id(m: FloorSteps, data: st.DataObject, t: Track) -> TableEvent | None:
    """A new, otherwise valid wager that reuses an event id of the round."""
    seat = data.draw(st.sampled_from(SEATS))
    if t.has(seat, "pair_plus", "own"):
        return None
    reused = data.draw(st.sampled_from(t.round_event_ids))
    return m._event(t, "wager_placed", seat=seat, wager="pair_plus", amount="5.00", event_id=reused)


def _seq_backwards(m: FloorSteps, data: st.DataObject, t: Track) -> TableEvent:
    """An otherwise valid event whose seq is not after the table's last accepted one."""
    seq = max(0, t.last_seq - data.draw(st.integers(0, 5)))
    match t.phase:
        case "open":
            return m._event(t, "wagers_locked", seq=seq)
        case "locked":
            return m._event(t, "round_voided", seq=seq, reason="seq test")
    return m._event(t, "round_opened", seq=seq, round_id="r-seq", game="three_card_poker")


def _void_after_settlement(m: FloorSteps, data: st.DataObject, t: Track) -> TableEvent:
    return m._event(t, "round_voided", reason="too late")


Applies = Callable[[Track], bool]


def phase(*phases: Phase, where: Applies = lambda _: True) -> Applies:
    """A table in one of ``phases`` for which ``where`` holds."""
    return lambda t: t.phase in phases and where(t)


def _any_without_ante(t: Track) -> bool:
    return any(t.ante(s) is None for s in SEATS)


INVALID: dict[str, tuple[Applies, Maker]] = {
    "open while a round is open": (phase("open", "locked"), _open_while_busy),
    "open with the last round id": (phase("settled", "voided"), _open_reused_round_id),
    "open another game": (phase(*OPENABLE), _open_wrong_game),
    "wager of the wrong amount": (phase("open"), _wrong_amount),
    "unknown wager": (phase("open"), _unknown_wager),
    "wager on a seat the table lacks": (phase("open"), _bad_seat),
    "wager after the lock": (phase("locked", "settled", "voided"), _wager_after_lock),
    "wager on a hand it cannot ride": (phase("open"), _wrong_target),
    "wager for another round": (phase("open", "locked"), _wager_wrong_round),
    "lock twice": (phase("locked", "settled", "voided"), _lock_again),
    "decision before the lock": (
        phase("open", where=lambda t: bool(_with_ante(t))),
        _decision_of("play", 0, _with_ante),
    ),
    "decision without an ante": (phase("locked", where=_any_without_ante), _decision_without_ante),
    "play not equal to the ante": (
        phase("locked", where=lambda t: bool(t.undecided())),
        _decision_of("play", 100, lambda t: t.undecided()),
    ),
    "decision not in the game": (
        phase("locked", where=lambda t: bool(t.undecided())),
        _decision_of("raise", 0, lambda t: t.undecided()),
    ),
    "second decision": (
        phase("locked", where=lambda t: bool(t.decided)),
        _decision_of("fold", 0, lambda t: sorted(t.decided)),
    ),
    "decision after settlement": (
        phase("settled", where=lambda t: bool(_with_ante(t))),
        _decision_of("fold", 0, _with_ante),
    ),
    "settle before the lock": (phase("open"), _settle_with(_honest)),
    "settle twice": (phase("settled", "voided"), _settle_with(_honest)),
    "settle without a seat that played": (
        phase("locked", where=lambda t: bool(_played(t))),
        _settle_with(_missing_seat),
    ),
    "settle with a seat that did not wager": (
        phase("locked", where=lambda t: len(t.seats()) < len(SEATS)),
        _settle_with(_extra_seat),
    ),
    "settle with a card twice": (phase("locked"), _settle_with(_card_twice)),
    "settle with a card twice, spelt two ways": (
        phase("locked"),
        _settle_with(_card_twice_spelt_two_ways),
    ),
    "settle with one community card": (phase("locked"), _settle_with(_one_community_card)),
    "settle with a short hand": (phase("locked"), _settle_with(_short_hand)),
    "void after settlement": (phase("settled", "voided"), _void_after_settlement),
    "resent event": (phase(*TRACK_PHASES, where=lambda t: bool(t.accepted)), _resend),
    "duplicate event_id in the round": (
        phase("open", where=lambda t: bool(t.round_event_ids)),
        _reuse_event_id,
    ),
    "seq not increasing": (phase(*TRACK_PHASES, where=lambda t: t.last_seq > 0), _seq_backwards),
}
