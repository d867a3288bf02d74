"""Many simulated cycles of a mystery level: the hit amounts are uniform over [reset, must_hit_by),
no hit reaches must_hit_by, every reveal verifies and no cent appears or vanishes.

GLI-12 / N.J.A.C. 13:69E-1.39B: the hit amount is selected at random, with equal chance for every
amount in the range. The test draws through the edge's `draw` (the same code the engine runs) with
a seeded generator instead of the OS's source, so it cannot flake: the chi-square statistic over
10 equal bins (9 degrees of freedom) must stay below 27.877, the 0.1% critical value (a fair
draw fails it with probability 0.001; with the seed fixed, never). A biased draw (the smaller of
two) fails the same test, so the test can fail.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from controller.model.events import ProgressiveHit
from controller.mystery import audit, unarmed, with_trigger
from streams.embedded.mystery import draw
from tests.controller.scenario import Scenario, given, locked_round, settled, wager
from tests.controller.test_mystery import MYSTERY
from tests.controller.test_properties import assert_conserved

KEY = bytes(32)
RESET, MUST_HIT_BY = 10_000, 11_000
BINS = 10
CRITICAL_9_DF_0_1_PERCENT = 27.877
CYCLES = 4_000
HANDS = {1: "9d 5s 3h", 2: "8d 6s 3c", 3: "9c 5h 3d", 4: "8c 6h 3s"}  # none pays


def _arm(scenario: Scenario, randbelow: Callable[[int], int], number: int) -> None:
    assert scenario.state.config is not None
    for meter_id in unarmed(scenario.state):
        command = draw(
            scenario.state.config.meters[meter_id],
            KEY,
            occurred_at="",
            command_id=f"arm-{number}",
            randbelow=randbelow,
            token_hex=lambda n: random.Random(number).randbytes(n).hex(),
        )
        scenario.events(command)
        scenario.state = with_trigger(scenario.state, meter_id, command.trigger_cents, command.salt)


def simulate(cycles: int, randbelow: Callable[[int], int]) -> tuple[Scenario, list[int]]:
    """Rounds of four $5 wagers at tcp-7 ($10.00 a round on a $10.00 range) until ``cycles``
    hits, the edge arming the level whenever it waits for a draw."""
    scenario = given(MYSTERY)
    amounts: list[int] = []
    number = 0
    while len(amounts) < cycles:
        number += 1
        _arm(scenario, randbelow, number)
        seats = (1, 2, 3, 4)
        scenario.events(
            *locked_round("tcp-7", f"r{number}", *(wager(s, "progressive", "5.00") for s in seats)),
            settled(dealer="2c 4d 7h", seats=HANDS),
        )
        assert_conserved(scenario.state)
        amounts += [
            e.amount_cents
            for e in scenario.log[-12:]
            if isinstance(e, ProgressiveHit) and e.round_id == f"r{number}"
        ]
    return scenario, amounts


def chi_square(amounts: list[int]) -> float:
    width = (MUST_HIT_BY - RESET) // BINS
    counts = [0] * BINS
    for amount in amounts:
        counts[(amount - RESET) // width] += 1
    expected = len(amounts) / BINS
    return sum((count - expected) ** 2 / expected for count in counts)


def test_hit_amounts_are_uniform_in_range_and_every_reveal_verifies() -> None:
    rng = random.Random(20261201)
    scenario, amounts = simulate(CYCLES, rng.randrange)
    assert all(RESET <= amount < MUST_HIT_BY for amount in amounts)
    assert chi_square(amounts) < CRITICAL_9_DF_0_1_PERCENT
    report = audit(scenario.log)
    assert report.ok
    assert len(report.reveals) == len(amounts)


def test_the_same_chi_square_refuses_a_biased_draw() -> None:
    rng = random.Random(20261201)
    _, amounts = simulate(CYCLES // 3, lambda n: min(rng.randrange(n), rng.randrange(n)))
    assert chi_square(amounts) > CRITICAL_9_DF_0_1_PERCENT
