"""Properties of the core over random floors (hypothesis; strategies in `tests.strategies`).

* money is conserved on every meter after every step: seeded + contributed - paid + corrected
  + transferred == amount + reserve + overflow, to the sub-unit; on a floor of low ceilings
  (carried and diverted) no meter ever shows more than its ceiling, diverts net to zero across the
  floor, and every award is priced from the meter, never the overflow;
* replay is deterministic: folding the log (also through the codec) gives the state `run` gave;
* a divided jackpot's parts add up to it exactly and differ by at most one cent;
* no meter or reserve is ever negative (one table, no corrections: the two cases that break it are
  the strict xfails in test_rules_void.py);
* a rejected input emits only its rejection and changes no state; valid sessions are never refused,
  and every mutation in `invalid_variants` is.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction

from hypothesis import HealthCheck, settings
from hypothesis import given as for_all
from hypothesis import strategies as st

from controller.codec import event_from_dict, event_to_dict
from controller.floor import Command, decide, evolve, replay, run
from controller.meter import split_equally
from controller.model.commands import ActivateConfig, CorrectMeter, PayHit, ValidateHit
from controller.model.events import EventRejected, ProgressiveHit
from controller.model.money import SUBUNITS_PER_CENT
from controller.model.state import FloorState
from tests.controller.scenario import PA
from tests.strategies import (
    FLOOR_TABLES,
    AdvanceHit,
    Correction,
    SessionStep,
    invalid_variants,
    sessions,
)

PROPERTY = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
START = ActivateConfig(
    command_id="activate-1",
    source="pa.toml",
    text=PA,
    by="manager-1",
    occurred_at="2026-01-01T00:00:00.000Z",
)


def command_for(state: FloorState, step: SessionStep, number: int) -> Command:
    """The concrete command of a session step, resolved against the state."""
    stamp = f"2026-01-02T00:00:{number % 60:02d}.000Z"
    if isinstance(step, Correction):
        return CorrectMeter(
            command_id=f"cmd-{number}",
            meter_id=step.meter_id,
            amount_delta_sub=step.amount_delta_sub,
            reserve_delta_sub=step.reserve_delta_sub,
            by="manager-1",
            reason="property test",
            occurred_at=stamp,
        )
    if isinstance(step, AdvanceHit):
        return _advance(state, number, stamp)
    return step


def _advance(state: FloorState, number: int, stamp: str) -> Command:
    open_hits = sorted(h for h, hit in state.hits.items() if hit.status != "paid")
    hit_id = open_hits[0] if open_hits else "no-hit-yet"
    hit = state.hits.get(hit_id)
    if hit is not None and hit.status == "validated":
        return PayHit(command_id=f"cmd-{number}", hit_id=hit_id, by="cashier", occurred_at=stamp)
    return ValidateHit(command_id=f"cmd-{number}", hit_id=hit_id, by="floor", occurred_at=stamp)


def commands(
    steps: Sequence[SessionStep], start: ActivateConfig = START
) -> Iterable[tuple[FloorState, Command, FloorState]]:
    """Drive the floor: (state before, command, state after) for the activation and every step."""
    state = FloorState()
    for number, step in enumerate((None, *steps)):
        command = start if step is None else command_for(state, step, number)
        after = state
        for event in decide(state, command):
            after = evolve(after, event)
        yield state, command, after
        state = after


def assert_conserved(state: FloorState) -> None:
    """seeded + contributed - paid + corrected + transferred == amount + reserve + overflow."""
    for meter in state.meters.values():
        assert meter.explained_sub() == meter.held_sub(), meter
        assert meter.overflow_sub >= 0, meter
    # A divert moves money between meters: it creates none and loses none.
    assert sum(meter.transferred_sub for meter in state.meters.values()) == 0


def assert_divided_exactly(hit: ProgressiveHit) -> None:
    """649a.12(i)(2): the parts add up to the jackpot and differ by at most one cent; the meter
    drops by exactly what was paid (plus any reseed, reserve and overflow moved onto it), and the
    award is its share of the meter alone, never of the overflow."""
    parts = [w.amount_cents for w in hit.winners]
    assert sum(parts) == hit.amount_cents
    assert max(parts) - min(parts) <= 1
    moved = hit.reseed_sub + hit.reserve_before_sub - hit.reserve_after_sub
    moved += hit.overflow_before_sub - hit.overflow_after_sub
    paid = hit.amount_cents * SUBUNITS_PER_CENT
    assert hit.meter_before_sub - paid + moved == hit.meter_after_sub
    share = Fraction(hit.share.removesuffix("%")) / 100
    assert hit.amount_cents == int(hit.meter_before_sub * share) // SUBUNITS_PER_CENT


@PROPERTY
@for_all(sessions())
def test_money_is_conserved_and_rejections_change_nothing(steps: list[SessionStep]) -> None:
    for before, command, after in commands(steps):
        assert_conserved(after)
        events = decide(before, command)
        if any(isinstance(e, EventRejected) for e in events):
            assert len(events) == 1
            assert after == before
        for hit in (e for e in events if isinstance(e, ProgressiveHit)):
            assert_divided_exactly(hit)


def _capped(text: str) -> str:
    """The example floor with ceilings a few wagers above the seeds: carried on (e) and (j),
    diverted from (h) to (j) and from (i) to (e), so a short session crosses them all."""
    for meter, progressive, limits in (
        ("tcp-progressive", "pa-649a12e-A", 'ceiling = "1000.50"'),
        (
            "tcp-five-card",
            "pa-649a12h",
            'ceiling = "10000.40"\noverflow = "divert:tcp-five-of-six"',
        ),
        (
            "tcp-five-card-bonus",
            "pa-649a12i",
            'ceiling = "10000.30"\noverflow = "divert:tcp-progressive"',
        ),
        ("tcp-five-of-six", "pa-649a12j", 'ceiling = "10000.90"\noverflow = "carry"'),
    ):
        plain = f'[meters.{meter}]\nprogressive = "{progressive}"\n'
        assert plain in text
        text = text.replace(plain, f"{plain}{limits}\n")
    return text


CAPPED_START = ActivateConfig(
    command_id="activate-1",
    source="capped.toml",
    text=_capped(PA),
    by="manager-1",
    occurred_at="2026-01-01T00:00:00.000Z",
)
CEILINGS = {"tcp-progressive": 100_050, "tcp-five-card": 1_000_040}
CEILINGS |= {"tcp-five-card-bonus": 1_000_030, "tcp-five-of-six": 1_000_090}
CEILINGS["tcp-progressive-5"] = 2_500_000  # the example floor's own ceiling


@PROPERTY
@for_all(sessions())
def test_ceilings_hold_and_money_is_conserved_with_overflow(steps: list[SessionStep]) -> None:
    # NY 5320.8 / NJ 13:69E-1.39A: the meter never shows or pays more than its ceiling; the rest
    # is carried or diverted, never lost; an award is priced from the meter, never the overflow.
    for before, command, after in commands(steps, CAPPED_START):
        assert_conserved(after)
        for meter_id, cents in CEILINGS.items():
            assert after.meters[meter_id].amount_sub <= cents * SUBUNITS_PER_CENT
        for hit in (e for e in decide(before, command) if isinstance(e, ProgressiveHit)):
            assert_divided_exactly(hit)
            assert hit.meter_before_sub <= CEILINGS[hit.meter_id] * SUBUNITS_PER_CENT


@PROPERTY
@for_all(sessions(tables=FLOOR_TABLES[:1], operator_steps=False))
def test_no_meter_is_ever_negative(steps: list[SessionStep]) -> None:
    for _, _, after in commands(steps):
        for meter in after.meters.values():
            assert meter.amount_sub >= 0, meter
            assert meter.reserve_sub >= 0, meter


@settings(PROPERTY, max_examples=25)
@for_all(sessions())
def test_replay_is_deterministic(steps: list[SessionStep]) -> None:
    state, log = run([command for _, command, _ in commands(steps)])
    assert replay(log) == state
    assert replay(event_from_dict(event_to_dict(event)) for event in log) == state


@PROPERTY
@for_all(sessions(operator_steps=False), st.data())
def test_invalid_variants_are_refused_and_valid_events_accepted(
    steps: list[SessionStep], data: st.DataObject
) -> None:
    state, _ = run([START])
    for step in steps:
        assert not isinstance(step, Correction | AdvanceHit)
        variant = data.draw(invalid_variants(step))
        refused = decide(state, variant)
        assert len(refused) == 1, (variant, refused)
        assert isinstance(refused[0], EventRejected), (variant, refused)
        assert evolve(state, refused[0]) == state
        state, events = run([step], state)
        assert not any(isinstance(e, EventRejected) for e in events), (step, events)


@for_all(
    st.integers(min_value=0, max_value=10**12),
    st.lists(st.integers(1, 7), min_size=1, max_size=7, unique=True),
)
def test_split_equally_adds_up_and_gives_odd_cents_first(total: int, seats: list[int]) -> None:
    # 649a.12(i)(2) "divided equally"; policy: the odd cents one each to the first settled.
    shares = split_equally(total, tuple(seats))
    parts = [s.amount_cents for s in shares]
    assert [s.seat for s in shares] == seats
    assert sum(parts) == total
    assert max(parts) - min(parts) <= 1
    assert parts == sorted(parts, reverse=True)
