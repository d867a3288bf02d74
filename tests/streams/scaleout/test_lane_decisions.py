"""`controller.fast.lane.decision_accepted` (the round lane's answer to a decision, without
`decide_table`) against `decide_table` itself: True exactly where the reference accepts (with no
steps), on rounds of every game in any phase, with antes or without, earlier decisions, and
decisions of any action, amount, seat, sequence, round and discards. Also in the round lane's
differential tests against main's processors (``test_procs_differential.py``)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.config.floor import load_floor_config
from controller.fast.lane import decision_accepted
from controller.model.errors import RuleViolation
from controller.model.games import GAMES
from controller.model.state import RoundState, TableState
from controller.model.table_events import DecisionMade, WagerPlaced
from controller.rules.table import decide_table

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
CONFIG = load_floor_config((EXAMPLES / "pa-three-card-poker.toml").read_text("utf-8"), "f.toml")
TABLE = sorted(CONFIG.tables)[0]
ACTIONS = sorted({a for g in GAMES.values() for a in g.continue_actions | g.option_actions})
ACTION = st.sampled_from([*ACTIONS, "fold", "nope"])
SEAT = st.integers(0, 4)
ANTES = (100, 500)
AMOUNT = st.one_of(st.none(), st.integers(0, 4).map(lambda k: k * 100), st.just(1_500))


def wager(number: int, seat: int, kind: str, cents: int) -> WagerPlaced:
    return WagerPlaced(
        event_id=f"w{number}", table_id=TABLE, round_id="r1", seq=number, occurred_at="t",
        seat=seat, wager=kind, amount_cents=cents, on="own",
    )  # fmt: skip


def decision(number: int, seat: int, action: str, amount: int | None, cards: int) -> DecisionMade:
    discards = tuple(f"{rank}s" for rank in "23456789"[:cards])
    return DecisionMade(event_id=f"d{number}", table_id=TABLE, round_id="r1", seq=50 + number,
                        occurred_at="t", seat=seat, action=action, amount_cents=amount,
                        discards=discards)  # fmt: skip


@st.composite
def cases(draw: st.DrawFn) -> tuple[TableState, DecisionMade]:
    """A table whose current round is locked (mostly) with antes and decisions, and a decision."""
    kinds = st.sampled_from(["ante", "ante", "pair_plus"])
    wagers = [
        wager(i, seat, kind, draw(st.sampled_from(ANTES)))
        for i, (seat, kind) in enumerate(draw(st.lists(st.tuples(SEAT, kinds), max_size=5)))
    ]
    earlier = draw(st.lists(st.tuples(SEAT, ACTION), max_size=2))
    decisions = [decision(i, s, a, None, 0) for i, (s, a) in enumerate(earlier)]
    game = draw(st.sampled_from([*sorted(GAMES), "nope"]))
    phase = draw(st.sampled_from(["locked"] * 8 + ["open", "settled"]))
    ids = frozenset(e.event_id for e in (*wagers, *decisions))
    current = RoundState(round_id="r1", game=game, phase=phase, wagers=tuple(wagers),  # type: ignore[arg-type]
                         decisions=tuple(decisions), event_ids=ids)  # fmt: skip
    table = TableState(table_id=TABLE, last_seq=60, round=current)
    number = draw(st.sampled_from([7] * 9 + [0]))  # d0: an id the round has, if it has decisions
    antes = {w.seat: w.amount_cents for w in wagers if w.wager == "ante"}
    pick_ante, pick_own = draw(st.booleans()), draw(st.booleans())
    seat = draw(st.sampled_from(sorted(antes)) if antes and pick_ante else SEAT)
    rules = GAMES.get(game)
    own = sorted(rules.continue_actions | rules.option_actions) if rules else []
    action = draw(st.sampled_from([*own, "fold"]) if own and pick_own else ACTION)
    ante = antes.get(seat, 100)
    amount = draw(st.sampled_from([None, ante, 2 * ante, 3 * ante, ante + 1]) | AMOUNT)
    event = decision(number, seat, action, amount, draw(st.sampled_from([0, 0, 2, 3, 5, 1, 6])))
    seq = draw(st.sampled_from([61] * 9 + [60]))
    round_id = draw(st.sampled_from(["r1"] * 9 + ["r2"]))
    table_id = draw(st.sampled_from([TABLE] * 9 + ["nope"]))
    return table, dataclasses.replace(event, seq=seq, round_id=round_id, table_id=table_id)


@settings(max_examples=3_000, deadline=None)
@given(case=cases())
def test_a_decision_is_accepted_exactly_where_the_reference_accepts_it(
    case: tuple[TableState, DecisionMade],
) -> None:
    table, event = case
    try:
        reference = decide_table(CONFIG, table, event)
    except (RuleViolation, KeyError):  # KeyError: a game the rules do not know
        assert not decision_accepted(CONFIG, table, event), event
        return
    assert reference == ()
    assert decision_accepted(CONFIG, table, event), event


def test_no_table_or_no_round_is_no_answer() -> None:
    event = decision(1, 1, "play", 100, 0)
    assert not decision_accepted(CONFIG, None, event)
    assert not decision_accepted(CONFIG, TableState(table_id=TABLE), event)


def test_lunar_pokers_options_and_draws_as_the_reference_answers() -> None:
    """A Lunar Poker round (671a.11(b)(3), (d)(1)(ii)): an option bought, then a draw of any
    number of cards, and a Bet of any amount, each answered as `decide_table` answers."""
    ante = wager(1, 1, "ante", 500)
    current = RoundState(round_id="r1", game="lunar_poker", phase="locked", wagers=(ante,),
                         event_ids=frozenset({"w1"}))  # fmt: skip
    table = TableState(table_id=TABLE, last_seq=60, round=current)
    answers = []
    for action, amount, cards in [
        *(("draw", 500, cards) for cards in range(7)),
        *(("bet", cents, 0) for cents in (None, 500, 1_000, 1_500)),
        ("buy_sixth_card", 500, 0),
        ("buy_sixth_card", 1_000, 0),
    ]:
        event = dataclasses.replace(decision(7, 1, action, amount, cards), seq=61)
        try:
            accepted = decide_table(CONFIG, table, event) == ()
        except RuleViolation:
            accepted = False
        assert decision_accepted(CONFIG, table, event) == accepted, event
        answers.append(accepted)
    assert answers == [False, False, True, True, True, True, False,
                       True, False, True, False, True, False]  # fmt: skip
