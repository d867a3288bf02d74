"""The round processor with the native hot decoder (`streams.door.hot_lines.hot_decoder`)
against the same processor without it: every answer byte-identical.

The native decoder gives a hot line's struct and its events-topic record's bytes in one pass
(``streams/native/src/hot_decode.rs``), so the processor builds the event from that struct and
takes the payload instead of encoding the event; anything it does not answer goes the door's way
as before. Both processors read the same log of lines, each keeping its own table records: a
simulated floor's events written as `tests.strategies_lines` writes them (plainly or in one of
its odd and damaged ways), exact retries and reused ids with other content, the door's own
Hypothesis lines (valid, mutated, broken: `tests.streams.door.test_fast_decode.door_lines`) and
wrong keys mixed in. Every outcome, every output (topic, key, value bytes, dedupe id,
latest-wins) and every stored record must agree. The tests run against the current native build
whatever ``JACKPOT_NATIVE`` says (skipped if there is none); a decoder that answered nothing
would prove nothing, so the plain floor must be answered natively.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.config.floor import FloorConfig, load_floor_config
from streams import native
from streams.adapters.kafka.topics import TopicNames
from streams.door import hot_lines
from streams.scaleout.records import SourcePos
from streams.scaleout.rounds import RoundProcessor, table_record_to_bytes
from streams.scaleout.table_record import TableRecord
from tests.controller.fast.differential import simulated
from tests.strategies_lines import ODD_LINES, line
from tests.streams.door.test_fast_decode import door_lines
from tests.streams.native.forced import made_with
from tests.streams.scaleout.procs_harness import shown

BUILT = native.current_build()
pytestmark = pytest.mark.skipif(BUILT is None, reason="no current native build (make fast)")
EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
PLAIN = (EXAMPLES / "pa-three-card-poker.toml").read_text("utf-8")
DEMO = (EXAMPLES / "pa-three-card-poker-demo.toml").read_text("utf-8")
NAMES = TopicNames("native")
WRITERS = (line, *ODD_LINES)
HOT_TYPES = ("round_opened", "wager_placed", "wagers_locked", "decision")


HOT = made_with(BUILT, hot_lines.hot_decoder) if BUILT is not None else None


class Counted:
    """The native decoder, counting the lines it answered."""

    def __init__(self, decode: native.HotDecode) -> None:
        self.decode, self.answered = decode, 0

    def __call__(self, raw: bytes) -> tuple[Any, bytes] | None:
        got = self.decode(raw)
        self.answered += got is not None
        return got


def run_both(config: FloorConfig, log: list[tuple[str | None, bytes]]) -> tuple[int, Counter[str]]:
    """``log`` through a processor with the native decoder and one without, compared at every
    input; (lines answered natively, outcomes)."""
    assert HOT is not None
    counted = Counted(HOT)
    fast = RoundProcessor(config, NAMES, hot=counted)
    slow = RoundProcessor(config, NAMES, hot=None)
    states: tuple[dict[str | None, TableRecord], dict[str | None, TableRecord]] = ({}, {})
    outcomes: Counter[str] = Counter()
    for offset, (key, raw) in enumerate(log):
        pos = SourcePos(NAMES.table_events, 0, offset, 1_796_000_000_000 + offset)
        pairs = zip((fast, slow), states, strict=True)
        got = [proc.process(state.get(key), key, raw, pos) for proc, state in pairs]
        assert shown(got[0], table_record_to_bytes) == shown(got[1], table_record_to_bytes), raw
        for result, state in zip(got, states, strict=True):
            if result.record is not None:
                state[key] = result.record
        outcomes[got[0].outcome] += 1
    return counted.answered, outcomes


def _key(raw: bytes, fallback: str) -> str:
    """The line's own table id if it has one as text (so it reaches the core), else ``fallback``."""
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return fallback
    table = value.get("table_id") if isinstance(value, dict) else None
    return table if isinstance(table, str) else fallback


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    text=st.sampled_from([PLAIN, DEMO]),
    data=st.data(),
)
def test_odd_and_broken_lines_give_the_same_outputs(
    seed: int, text: str, data: st.DataObject
) -> None:
    config = load_floor_config(text, "floor.toml")
    raws = simulated(config, seed, 0.3, 0.03)
    log: list[tuple[str | None, bytes]] = []
    for _ in range(data.draw(st.integers(1, 60), label="events")):
        raw = next(raws)
        table = str(raw["table_id"])
        write = data.draw(st.sampled_from(WRITERS), label="writer")
        written = write(raw)
        key = data.draw(st.sampled_from([table, table, table, None, "other"]), label="key")
        log.append((key, written))
        if data.draw(st.integers(0, 9), label="door line?") == 0:
            _, door = data.draw(door_lines(), label="door line")
            as_bytes = door if isinstance(door, bytes) else door.encode("utf-8", "surrogatepass")
            log.append((_key(as_bytes, table), as_bytes))
        retry = data.draw(st.integers(0, 14), label="retry?")
        if retry == 0:  # a device's exact retry of an earlier line
            log.append(data.draw(st.sampled_from(log), label="retry"))
        elif retry == 1:  # its id again with other content (refused, not a duplicate)
            changed = raw | {"occurred_at": "2026-12-01T09:00:00.000Z"}
            log.append((key, data.draw(st.sampled_from(WRITERS), label="writer")(changed)))
    run_both(config, log)


@pytest.mark.parametrize("text", [PLAIN, DEMO], ids=["plain", "demo"])
def test_a_plain_floor_is_read_natively_with_the_same_outputs(text: str) -> None:
    config = load_floor_config(text, "floor.toml")
    raws = simulated(config, 20261203, 0.3, 0.03)
    rng = random.Random(13)  # a repeatable share of odd lines
    log: list[tuple[str | None, bytes]] = []
    plain = 0
    for _ in range(2_000):
        raw = next(raws)
        write = line if rng.random() < 0.99 else rng.choice(ODD_LINES)
        plain += write is line and raw["type"] in HOT_TYPES
        log.append((str(raw["table_id"]), write(raw)))
    answered, outcomes = run_both(config, log)
    assert answered >= plain > 1_000, (answered, plain)
    assert outcomes["accepted"] > 1_500, outcomes
    assert outcomes["rejected"] > 0, outcomes
