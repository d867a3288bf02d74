"""The engine's batch intake (`streams.embedded.batch`) against main's `submit` (the reference).

The same input goes through both engines, each over its own log with the same fixed clock: a
simulated floor with 30% forced hands (hits, splits, Envy, Magic/Lucky, voids) disturbed by the
devices' mistakes: malformed items, retries of accepted and of refused events, a reused id with
other content, stale ``seq``, unknown tables, events dated ahead of the clock, heartbeats, whole
batches sent again and items the submitter's scope refuses. Both must give the same answers,
write the same log records (key, bytes, receive time, position) and reach the same state. The
reference writes every record by `json` (`reference_encode`), so the log bytes are checked
against the readable encoder too.
"""

from __future__ import annotations

import copy
import itertools
import json
import random
from collections import Counter, deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.config.floor import load_floor_config
from streams.adapters.memory import MemoryLog
from streams.adapters.sqlite import SqliteLog
from streams.embedded.engine import EmbeddedController
from streams.embedded.intake import Outcome
from streams.ports import EventLog, SnapshotStore
from tests.controller.fast.differential import simulated
from tests.controller.scenario_builders import PA
from tests.streams.embedded.pure_reference import (
    assert_accepted_were_decided,
    assert_log_is_the_pure_reference,
)
from tests.streams.embedded.reference_submit import ReferenceController, reference_encoding

ROOT = Path(__file__).resolve().parents[3]
NOW = "2026-12-02T00:00:00.000Z"
FUTURE = "2099-01-01T00:00:00.000Z"
Batch = tuple[list[object], str]  # the items and the table the submitter may not post for


class Log(EventLog, SnapshotStore, Protocol):
    """What the engines here run over: one store for the log and the snapshots."""


class CountingLog(MemoryLog):
    """A memory log that counts the engine's look-ups of ids (the asked-first path)."""

    asked = 0

    def payloads_of(self, dedupe_ids: Any) -> dict[str, bytes]:
        self.asked += 1
        return super().payloads_of(dedupe_ids)


def _mistake(
    rng: random.Random, recent: deque[dict[str, Any]], raw: dict[str, Any], n: int
) -> Iterator[object]:
    roll = rng.random()
    if roll < 0.03 and recent:
        yield rng.choice(recent)  # a retry: a duplicate, or refused again
    elif roll < 0.04 and recent:
        yield {**rng.choice(recent), "seq": 10_000 + n}  # the id reused for other content
    elif roll < 0.05 and recent:
        yield {**rng.choice(recent), "event_id": f"stale-{n}"}  # an old seq
    elif roll < 0.06:
        yield {**raw, "event_id": f"lost-{n}", "table_id": "tcp-404"}
    elif roll < 0.07:
        yield {**raw, "event_id": f"ahead-{n}", "occurred_at": FUTURE}
    elif roll < 0.08:
        yield rng.choice(_BAD)
    elif roll < 0.10:
        yield {"type": "heartbeat", "event_id": f"hb-{n}", "table_id": raw["table_id"],
               "occurred_at": raw["occurred_at"], "schema_version": 2}  # fmt: skip


_BAD: list[object] = [
    "not an object",
    ["a", "list"],
    {"type": "wager_placed"},
    {"type": "no_such_kind", "event_id": "odd-1"},
    {"type": "wager_placed", "event_id": 7, "table_id": "tcp-1"},
]


def disturbed(seed: int, count: int) -> list[object]:
    """``count`` simulated table events with the devices' mistakes mixed in."""
    rng = random.Random(seed)  # a repeatable test input
    config = load_floor_config(PA, "floor.toml")
    raws = simulated(config, seed, 0.3, 0.03)
    recent: deque[dict[str, Any]] = deque(maxlen=64)
    items: list[object] = []
    for n in range(count):
        raw = next(raws)
        items.extend(_mistake(rng, recent, raw, n))
        items.append(raw)
        recent.append(raw)
    return items


def batches(items: list[object], seed: int) -> list[Batch]:
    """``items`` in batches of 1-200; some sent twice, some with a table out of scope."""
    rng = random.Random(seed)  # a repeatable test input
    out: list[Batch] = []
    start = 0
    while start < len(items):
        size = rng.choice((1, 2, 7, 50, 200))
        refused = rng.choice(("", "", "", "tcp-2"))
        out.append((items[start : start + size], refused))
        if rng.random() < 0.1:
            out.append(out[-1])  # the whole batch sent again (a client's retry)
        start += size
    return out


def run(engine: EmbeddedController, work: list[Batch], config: str) -> list[list[Outcome]]:
    """Every batch's answers (the input deep-copied: neither engine may see the other's)."""
    engine.start(config, "floor.toml")
    answers = []
    for items, refused in copy.deepcopy(work):
        answers.append(engine.submit(items, _scope(refused) if refused else None))
    return answers


def _scope(refused: str) -> Callable[[str], str]:
    return lambda table: "out of scope" if table == refused else ""


def _ticks() -> Callable[[], float]:
    """A monotonic clock that ticks once per reading: when each table was last heard says in
    which submit it was."""
    return map(float, itertools.count()).__next__


def records(log: EventLog) -> list[tuple[int, str, bytes, str]]:
    return [(r.position, r.key, r.payload, r.received_at) for r in log.read()]


def both(work: list[Batch], fast_log: Log, reference_log: Log, config: str = PA) -> Counter[str]:
    """Run ``work`` through both engines; require the same answers, records and state."""
    fast = EmbeddedController(
        fast_log, fast_log, clock=lambda: NOW, monotonic=_ticks(), snapshot_every=10**9
    )
    reference = ReferenceController(
        reference_log, reference_log, clock=lambda: NOW, monotonic=_ticks(), snapshot_every=10**9
    )
    with reference_encoding():
        expected = run(reference, work, config)
    assert run(fast, work, config) == expected
    assert records(fast_log) == records(reference_log)
    assert fast.state == reference.state
    decided = assert_log_is_the_pure_reference(
        fast_log, fast.state
    )  # owes nothing to the fast path
    assert_accepted_were_decided(decided, expected)
    assert fast.liveness._last == reference.liveness._last  # each table last heard at one submit
    return Counter(f"{o.status}:{o.reason[:24]}" for batch in expected for o in batch)


def test_a_disturbed_floor_gives_the_same_answers_records_and_state() -> None:
    log = CountingLog()
    work = batches(disturbed(seed=5, count=3_000), seed=6)
    seen = both(work, log, MemoryLog())
    assert seen["duplicate:already accepted"] > 20
    assert seen["accepted:"] > 2_500
    reasons = " ".join(seen)
    for reason in ("rejected:event_id", "rejected:occurred_at", "rejected:out of scope"):
        assert reason in reasons
    assert sum(n for key, n in seen.items() if key.startswith("rejected")) > 100
    assert log.asked > 0  # batches were decided again knowing the log


def test_a_floor_without_retries_never_asks_the_log_for_its_ids() -> None:
    config = load_floor_config(PA, "floor.toml")
    raws = simulated(config, 3, 0.3, 0.03)
    items: list[object] = [next(raws) for _ in range(1_000)]
    log = CountingLog()
    seen = both([(items[i : i + 100], "") for i in range(0, 1_000, 100)], log, MemoryLog())
    assert seen == Counter({"accepted:": 1_000})
    assert log.asked == 0


def test_every_example_events_file_gives_the_same_answers_records_and_state() -> None:
    """Each file one batch, then all of them again in one (every item a duplicate)."""
    files = sorted((ROOT / "examples" / "events").glob("*.jsonl"))
    work: list[Batch] = [
        ([json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()], "")
        for path in files
    ]
    work.append(([item for items, _ in work for item in items], ""))
    config = (ROOT / "examples" / "pa-three-card-poker.toml").read_text(encoding="utf-8")
    seen = both(work, MemoryLog(), MemoryLog(), config)
    assert len(files) == 4
    assert seen["duplicate:already accepted"] == seen["accepted:"] == 66


def test_on_sqlite_a_retried_batch_is_decided_again_knowing_the_log(tmp_path: Path) -> None:
    work = batches(disturbed(seed=8, count=600), seed=9)
    fast, reference = SqliteLog(tmp_path / "fast.db"), SqliteLog(tmp_path / "reference.db")
    try:
        seen = both(work, fast, reference)
    finally:
        fast.close()
        reference.close()
    assert seen["duplicate:already accepted"] > 0


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**16), st.integers(1, 400), st.integers(0, 2**16))
def test_any_disturbed_floor_gives_the_same_answers_records_and_state(
    seed: int, count: int, split: int
) -> None:
    both(batches(disturbed(seed, count), split), MemoryLog(), MemoryLog())


def test_a_reused_id_the_core_would_accept_is_refused_after_the_log_refuses_the_batch() -> None:
    """The next event of a round under an id accepted before: the core accepts it, the log's
    dedupe refuses the append, and the batch is decided again knowing the id."""
    config = load_floor_config(PA, "floor.toml")
    raws = simulated(config, 4, 0.0, 0.0)
    first = [next(raws) for _ in range(40)]
    following = next(raws)
    reused = {**following, "event_id": first[-1]["event_id"]}
    log = CountingLog()
    seen = both([(list(first), ""), ([reused, following], "")], log, MemoryLog())
    assert sum(n for key, n in seen.items() if key.startswith("rejected:event_id")) == 1, seen
    assert seen["accepted:"] == 41
    assert log.asked >= 1
