"""`controller.fast.lane` against its definitions: `next_table` against `evolve_table`, then
`add_contribution` per contribution, on simulated floors (voids, forced hands, every kind of table
event), on events the table refuses, and on contributions for another round; `next_meter` against
`evolve_meter` on any meter and contribution, `meter_event` against `decide_meter` at and around
a ceiling."""

from __future__ import annotations

import dataclasses
import random
from itertools import islice
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from immutables import Map

from controller.config.defs import MeterDef
from controller.config.floor import FloorConfig, load_floor_config
from controller.fast.lane import Entry, lock_claims, next_table, wager_accepted
from controller.fast.meter_lane import meter_event, next_meter
from controller.meter import ContributionClaim, ReversalClaim, decide_meter, evolve_meter
from controller.model.errors import RuleViolation
from controller.model.events import ContributionRecorded, MeterSeeded
from controller.model.state import MeterState, TableState
from controller.model.table_events import TableEvent, WagerPlaced, WagersLocked, from_contract
from controller.rules.table import decide_table
from controller.rules.table_state import add_contribution, evolve_table
from controller.snapshot import meter_to_dict, table_to_dict
from streams.codec import encode
from tests.controller.fast.differential import simulated

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
FLOORS = ["pa-three-card-poker.toml", "pa-three-card-poker-demo.toml"]


def defined(
    table: TableState | None, event: TableEvent, contributed: list[tuple[str, Entry]]
) -> TableState:
    out = evolve_table(table, event)
    for round_id, entry in contributed:
        out = add_contribution(out, round_id, entry)
    return out


def _wager_variants(config: FloorConfig, table: TableState | None, event: WagerPlaced) -> int:
    """`wager_accepted` on the wager and on damaged copies of it: True only where the reference
    accepts (with no steps), and True on every accepted wager on the own hand. The count of
    True answers."""
    seq = table.last_seq if table is not None else 0
    variants = [
        event,
        dataclasses.replace(event, seat=0),
        dataclasses.replace(event, seat=99),
        dataclasses.replace(event, amount_cents=event.amount_cents + 1),
        dataclasses.replace(event, wager="nope"),
        dataclasses.replace(event, seq=seq),
        dataclasses.replace(event, round_id="other"),
        dataclasses.replace(event, on="dealer"),
    ]
    fast = 0
    for variant in variants:
        answer = wager_accepted(config, table, variant)
        try:
            reference = decide_table(config, table, variant)
        except (RuleViolation, KeyError):
            assert not answer, variant
            continue
        assert reference == ()
        assert answer == (variant.on == "own"), variant
        fast += answer
    return fast


def same(table: TableState | None, event: TableEvent, contributed: list[tuple[str, Entry]]) -> None:
    got, expected = next_table(table, event, contributed), defined(table, event, contributed)
    assert got == expected
    assert table_to_dict(got) == table_to_dict(expected)


@pytest.mark.parametrize("name", FLOORS)
@pytest.mark.parametrize(("seed", "forced"), [(1, 0.0), (2, 0.3)])
def test_a_floor_advances_as_the_reference_advances_it(name: str, seed: int, forced: float) -> None:
    config = load_floor_config((EXAMPLES / name).read_text("utf-8"), name)
    rng = random.Random(seed)  # a repeatable choice of strays
    tables: dict[str, TableState] = {}
    kinds: set[str] = set()
    locks = wagers = 0
    for raw in islice(simulated(config, seed, forced, 0.05), 4_000):
        event = from_contract(raw)
        table = tables.get(event.table_id)
        locked = lock_claims(config, table, event) if isinstance(event, WagersLocked) else None
        if isinstance(event, WagerPlaced):
            wagers += _wager_variants(config, table, event)
        try:
            steps = decide_table(config, table, event)
        except RuleViolation:
            assert locked is None  # the reference refuses it: so does the fast lock
            same(table, event, [])  # defined for any event, refused ones too
            continue
        if isinstance(event, WagersLocked):
            assert locked == steps  # an accepted lock: the same claims, in order
            assert [repr(c) for c in locked] == [repr(c) for c in steps]
            locks += 1
        contributed = [
            (s.round_id, (s.meter_id, s.primary_sub, s.reserve_sub))
            for s in steps
            if isinstance(s, ContributionClaim)
        ]
        same(table, event, contributed)
        if contributed and rng.random() < 0.2:  # one for another round: the reference's way
            same(table, event, [*contributed, ("elsewhere", ("m", 1, 2))])
        if rng.random() < 0.05:  # a stray: the table's other events on no table at all
            same(None, event, contributed)
        tables[event.table_id] = next_table(table, event, contributed)
        if isinstance(event, WagersLocked):  # again (a retry), and with a newer seq: refused
            again = dataclasses.replace(event, seq=event.seq + 1, event_id=event.event_id + "x")
            for retry in (event, again):
                assert lock_claims(config, tables[event.table_id], retry) is None
                with pytest.raises(RuleViolation):
                    decide_table(config, tables[event.table_id], retry)
        kinds.add(event.TYPE)
    assert len(kinds) == 6  # every kind of table event advanced a table
    assert locks > 50
    assert wagers > 500  # wagers the fast check accepted (each also accepted by the reference)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.text(max_size=3), st.integers(0, 9), st.integers(0, 9)), max_size=4))
def test_contributions_for_the_round_are_appended_in_order(entries: list[Entry]) -> None:
    entries = [*entries, ("m", 1, 1)]  # a round with contributions: the next are appended
    config = load_floor_config((EXAMPLES / FLOORS[0]).read_text("utf-8"), FLOORS[0])
    raws = simulated(config, 5, 0.0, 0.0)
    table: TableState | None = None
    for raw in raws:
        event = from_contract(raw)
        if table is not None and event.table_id != table.table_id:
            continue
        contributed = [(event.round_id, entry) for entry in entries]
        if table is not None and table.round is not None and table.round.contributions:
            later = [(event.round_id, ("later", 0, 0)), *contributed[::-1]]
            same(table, event, later)  # after the lock's own: appended behind them
            return
        same(table, event, contributed)
        table = next_table(table, event, contributed if event.TYPE == "wagers_locked" else [])


SMALL = st.integers(-(10**12), 10**12)
IDS = st.sampled_from(["t1", "t2", "t3"])
ROUNDS = st.sampled_from(["R1", "R2"])
METERS = st.builds(
    MeterState,
    meter_id=st.just("m"),
    amount_sub=SMALL,
    reserve_sub=SMALL,
    seeded_sub=SMALL,
    contributed_sub=SMALL,
    contributions=st.integers(0, 10**6),
    paid_sub=SMALL,
    corrected_sub=SMALL,
    hits=st.integers(0, 99),
    seq=st.integers(0, 10**6),
    overflow_sub=SMALL,
    transferred_sub=SMALL,
    retired=st.booleans(),
    mystery_commitment=st.text(max_size=3),
    mystery_sealed=st.text(max_size=3),
    mystery_trigger_cents=st.integers(-1, 10**6),
    mystery_salt=st.text(max_size=3),
    open_rounds=st.dictionaries(IDS, st.tuples(ROUNDS, SMALL, SMALL)).map(Map),
)
CONTRIBUTIONS = st.builds(
    ContributionRecorded,
    meter_id=st.just("m"),
    table_id=IDS,
    round_id=ROUNDS,
    seat=st.integers(1, 7),
    wager=st.just("ante"),
    on=st.just("own"),
    wager_cents=st.integers(0, 10**6),
    primary_sub=SMALL,
    reserve_sub=SMALL,
    meter_seq=st.integers(0, 10**6),
    occurred_at=st.just("2026-12-02T00:00:00Z"),
    overflow_sub=SMALL,
    diverted_sub=SMALL,
    divert_to=st.sampled_from(["", "m2"]),
)


@settings(max_examples=300, deadline=None)
@given(METERS, CONTRIBUTIONS)
def test_a_contribution_moves_a_meter_as_evolve_meter_does(
    meter: MeterState, event: ContributionRecorded
) -> None:
    """Every field, the ones ``==`` leaves out too (the unsealed trigger and salt)."""
    got, expected = next_meter(meter, event), evolve_meter(meter, event)
    assert got == expected
    names = [f.name for f in dataclasses.fields(MeterState)]
    assert [getattr(got, n) for n in names] == [getattr(expected, n) for n in names]
    assert meter_to_dict(got) == meter_to_dict(expected)


def test_other_meter_events_are_evolve_meters() -> None:
    meter = MeterState(meter_id="m", amount_sub=500, seq=3)
    seeded = MeterSeeded(meter_id="m", amount_sub=5, meter_seq=4, occurred_at="z")
    assert next_meter(meter, seeded) == evolve_meter(meter, seeded)


def _definitions() -> list[MeterDef]:
    config = load_floor_config((EXAMPLES / FLOORS[1]).read_text("utf-8"), FLOORS[1])
    base = next(iter(config.meters.values()))
    return [
        base,
        dataclasses.replace(base, ceiling_cents=None, divert_to=""),
        dataclasses.replace(base, ceiling_cents=1_000, divert_to=""),
        dataclasses.replace(base, ceiling_cents=1_000, divert_to="m2"),
        dataclasses.replace(base, ceiling_cents=0, divert_to="m2"),
    ]


CLAIMS = st.builds(
    ContributionClaim,
    meter_id=st.just("m"),
    table_id=IDS,
    round_id=ROUNDS,
    seat=st.integers(1, 7),
    wager=st.just("ante"),
    on=st.just("own"),
    wager_cents=st.integers(0, 10**6),
    primary_sub=st.integers(0, 10**6),
    reserve_sub=st.integers(0, 10**6),
    occurred_at=st.just("z"),
)


@settings(max_examples=300, deadline=None)
@given(METERS, st.sampled_from(_definitions()), CLAIMS)
def test_a_contribution_is_decided_as_decide_meter_decides_it(
    meter: MeterState, definition: MeterDef, claim: ContributionClaim
) -> None:
    """Below, at and above a ceiling, carried or diverted."""
    got, expected = meter_event(meter, definition, claim), decide_meter(meter, definition, claim)
    assert got == expected
    assert encode(got) == encode(expected)
    reversal = ReversalClaim(meter_id="m", table_id="t1", round_id="R1", primary_sub=1,
                             reserve_sub=2, count=1, reason="void", occurred_at="z")  # fmt: skip
    assert meter_event(meter, definition, reversal) == decide_meter(meter, definition, reversal)
