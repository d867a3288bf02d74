"""The worker's processors against main's (`tests.streams.scaleout.mainref`), byte for byte.

The round and meter processors were made faster (encoding, state handling, the decider); the hard
rule is that nothing a reader or a restart sees changes: every output record (topic, key, value
bytes, dedupe id), every stored state record, every outcome, and what a redelivery or a crash
does. `procs_harness.Pair` runs both the way the worker does (batches, state from the batch
first, changelog bytes per batch, rewinds, crashes and restores) and compares every step.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.fast.records import Round
from controller.fast.tables import TableFacts
from controller.model.state import TableState
from controller.model.table_events import RoundSettled
from streams.scaleout.fast_settle import FastSettle
from tests.streams.scaleout.procs_harness import disturbed, run_floor

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
PLAIN = (EXAMPLES / "pa-three-card-poker.toml").read_text("utf-8")
DEMO = (EXAMPLES / "pa-three-card-poker-demo.toml").read_text("utf-8")  # ceiling, mystery
MYSTERY = (EXAMPLES / "pa-three-card-poker-mystery.toml").read_text("utf-8")


#: the candidate round lane: the reference's `process`, the worker's `process_open`, or that with
#: local apply growing open meters (`procs_harness.local_side`: against main's local apply)
LANES = [(False, False), (True, False), (True, True)]
LANE_IDS = ["process", "process_open", "open_meters"]


@pytest.mark.parametrize("lane", LANES, ids=LANE_IDS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    forced=st.sampled_from([0.0, 0.3, 0.8]),
    batch=st.integers(1, 60),
    text=st.sampled_from([PLAIN, DEMO, MYSTERY]),
)
def test_any_disturbed_floor_gives_mains_bytes(
    seed: int, forced: float, batch: int, text: str, lane: tuple[bool, bool]
) -> None:
    lines = list(disturbed(text, 250, seed, forced))
    outcomes = run_floor(text, lines, seed, batch, open_rounds=lane[0], open_meters=lane[1])
    assert outcomes["accepted"] > 0


@pytest.mark.parametrize("lane", LANES, ids=LANE_IDS)
@pytest.mark.parametrize("text", [PLAIN, DEMO, MYSTERY], ids=["plain", "demo", "mystery"])
def test_a_long_floor_with_every_outcome(
    text: str, lane: tuple[bool, bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    """3,000 events with a high share of forced jackpot hands: hits, splits and envy occur, and
    every outcome of both processors (the test fails if a path went unexercised), settlements
    decided by the fast path (not all of them left to the reference). With ``open_rounds`` the
    candidate round lane is the worker's (`OpenRoundProcessor.process_open`), its tables open
    for many events of a batch of 200; with ``open_meters`` its claims applied locally, meters
    held open across a batch and sealed by hits, reversals and the batch's end."""
    answers: Counter[str] = Counter()
    steps, open_steps = FastSettle.steps, FastSettle.open_steps

    def counted(self: FastSettle, table: TableState | None, event: RoundSettled) -> object:
        got = steps(self, table, event)
        answers["reference" if got is None else ("awards" if got else "none")] += 1
        return got

    def counted_open(
        self: FastSettle, facts: TableFacts, current: Round, event: RoundSettled
    ) -> object:
        got = open_steps(self, facts, current, event)
        answers["open"] += 1  # decided on the worker's open table (`open_rounds._kept`)
        if got is not None:
            answers["awards" if got else "none"] += 1
        return got

    monkeypatch.setattr(FastSettle, "steps", counted)
    monkeypatch.setattr(FastSettle, "open_steps", counted_open)
    lines = list(disturbed(text, 3_000, 20261202, 0.3))
    outcomes = run_floor(text, lines, 7, 200, open_rounds=lane[0], open_meters=lane[1])
    applied = ("local:applied", "local:open") if lane[1] else ("applied",)
    for outcome in ("accepted", "duplicate", "rejected", "heartbeat", "redelivered", *applied):
        assert outcomes[outcome] > 0, outcomes
    assert answers["awards"] > 10, answers
    assert answers["none"] > answers["reference"], answers
    if lane[0]:  # most settlements decided on the open table
        assert answers["open"] > answers["reference"], answers


@pytest.mark.slow
@pytest.mark.parametrize("text", [PLAIN, DEMO, MYSTERY], ids=["plain", "demo", "mystery"])
def test_a_floors_worth_of_events(text: str) -> None:
    """30,000 events per configuration, batches of 500 as the worker takes them."""
    lines = list(disturbed(text, 30_000, 4242, 0.3))
    outcomes = run_floor(text, lines, 11, 500)
    assert outcomes["accepted"] > 25_000, outcomes
