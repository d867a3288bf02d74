"""`EmbeddedController.submit_lines` (`streams.embedded.lines`) against main's `submit`.

The reference (`reference_submit.ReferenceController`, main's `submit` line for line, every
record written by `json`) is handed what the lines hold, each read by `parse_json_line`; a line
that reader refuses is handed as its text, refused with the reader's reason (`_Unreadable`). The
lines: a simulated floor with 30% forced hands (hits, splits, Envy, Magic/Lucky, voids) with the
devices' mistakes of `test_batch_differential` (retries, reused ids, stale ``seq``, unknown
tables, events dated ahead, heartbeats, malformed items, whole batches sent again, a scope
refusing a table), and 5% of the lines written oddly or damaged (`tests.strategies_lines`:
escapes, repeated keys, defaults written out, wrong types, truncated lines). Both engines must
give the same answers, write the same records (key, bytes, dedupe position, receive time) and
reach the same state and liveness.
"""

from __future__ import annotations

import copy
import json
import random
import re
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest.mock import patch

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.model.errors import InvalidEvent, RuleViolation
from controller.model.table_events import TableEvent
from streams.adapters.memory import MemoryLog
from streams.adapters.sqlite import SqliteLog
from streams.door.fast_decode import validate_to_event
from streams.door.heartbeat import Heartbeat
from streams.door.json_lines import parse_json_line
from streams.embedded import intake
from streams.embedded.engine import EmbeddedController
from streams.embedded.intake import Outcome
from streams.ports import EventLog
from tests.controller.scenario_builders import PA
from tests.strategies_lines import ODD_LINES, line
from tests.streams.embedded.pure_reference import (
    assert_accepted_were_decided,
    assert_log_is_the_pure_reference,
)
from tests.streams.embedded.reference_submit import ReferenceController, reference_encoding
from tests.streams.embedded.test_batch_differential import (
    NOW,
    CountingLog,
    Log,
    _scope,
    _ticks,
    batches,
    disturbed,
    records,
)

_ID = re.compile(rb'"event_id": ?"([^"\\]+)"')
LineBatch = tuple[list[bytes], str]


class _Unreadable(str):
    """A line `parse_json_line` refuses, as the reference is handed it: its text, refused with
    the reader's reason (`submit_lines` dead-letters it in its place)."""

    reason = ""


def _reference_item(text: bytes) -> object:
    try:
        return parse_json_line(text)
    except RuleViolation as exc:
        item = _Unreadable(text.decode("utf-8", "replace"))
        item.reason = str(exc)
        return item


@contextmanager
def _reference_reading() -> Iterator[None]:
    """The reference's door, told the reader's refusal of an `_Unreadable` line."""
    door = validate_to_event

    def validate(raw: object) -> TableEvent | Heartbeat:
        if isinstance(raw, _Unreadable):
            raise InvalidEvent(raw.reason)
        return door(raw)

    with reference_encoding(), patch.object(intake, "validate_to_event", validate):
        yield


def written(items: list[object], seed: int, odd: float = 0.05) -> list[bytes]:
    """Each item as a line: plainly (compact, sorted keys), or one of `ODD_LINES` ways."""
    rng = random.Random(seed)  # a repeatable test input
    out = []
    for item in items:
        if not isinstance(item, dict):
            out.append(json.dumps(item).encode())
        elif rng.random() < odd:
            out.append(_oddly(rng.choice(ODD_LINES), item))
        else:
            out.append(line(item))
    return out


def _oddly(write: Callable[[dict[str, Any]], bytes], item: dict[str, Any]) -> bytes:
    """``item`` written by ``write``, or plainly if it lacks a field ``write`` changes."""
    try:
        return write(copy.deepcopy(item))
    except KeyError:
        return line(item)


def _run(
    engine: EmbeddedController, work: list[LineBatch], submit: Callable[..., list[Outcome]]
) -> list[list[Outcome]]:
    engine.start(PA, "floor.toml")
    return [submit(lines, _scope(refused) if refused else None) for lines, refused in work]


def both(work: list[LineBatch], fast_log: Log, reference_log: Log) -> Counter[str]:
    """Run ``work`` through `submit_lines` and the reference; require the same everything."""
    fast = EmbeddedController(
        fast_log, fast_log, clock=lambda: NOW, monotonic=_ticks(), snapshot_every=10**9
    )
    reference = ReferenceController(
        reference_log, reference_log, clock=lambda: NOW, monotonic=_ticks(), snapshot_every=10**9
    )

    def by_reference(lines: list[bytes], scope: Any) -> list[Outcome]:
        return reference.submit([_reference_item(text) for text in lines], scope)

    with _reference_reading():
        expected = _run(reference, work, by_reference)
    assert _run(fast, work, fast.submit_lines) == expected
    assert records(fast_log) == records(reference_log)
    assert fast.state == reference.state
    decided = assert_log_is_the_pure_reference(
        fast_log, fast.state
    )  # owes nothing to the fast path
    assert_accepted_were_decided(decided, expected)
    assert fast.liveness._last == reference.liveness._last
    ids = {m.group(1).decode() for lines, _ in work for text in lines for m in _ID.finditer(text)}
    assert fast_log.payloads_of(ids) == reference_log.payloads_of(ids)  # the dedupe ids
    return Counter(f"{o.status}:{o.reason[:24]}" for batch in expected for o in batch)


def line_batches(count: int, seed: int, odd: float = 0.05) -> list[LineBatch]:
    work = batches(disturbed(seed, count), seed + 1)
    return [(written(items, seed + n, odd), refused) for n, (items, refused) in enumerate(work)]


def test_a_disturbed_floor_of_lines_gives_the_same_answers_records_and_state() -> None:
    log = CountingLog()
    seen = both(line_batches(3_000, seed=5), log, MemoryLog())
    assert seen["duplicate:already accepted"] > 20
    assert seen["accepted:"] > 1_500  # a damaged line can leave the rest of its round refused
    reasons = " ".join(seen)
    for reason in ("rejected:event_id", "rejected:occurred_at", "rejected:out of scope"):
        assert reason in reasons
    assert "rejected:line: malformed JSON" in reasons
    assert "rejected:line: expected a JSON o" in reasons
    assert log.asked > 0  # batches were decided again knowing the log


def test_on_sqlite_lines_give_the_same_records(tmp_path: Path) -> None:
    fast, reference = SqliteLog(tmp_path / "fast.db"), SqliteLog(tmp_path / "reference.db")
    try:
        seen = both(line_batches(600, seed=8), fast, reference)
    finally:
        fast.close()
        reference.close()
    assert seen["duplicate:already accepted"] > 0


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**16), st.integers(1, 400), st.sampled_from((0.0, 0.05, 0.5)))
def test_any_disturbed_floor_of_lines_gives_the_same_answers_records_and_state(
    seed: int, count: int, odd: float
) -> None:
    both(line_batches(count, seed, odd), MemoryLog(), MemoryLog())


def test_most_lines_are_decided_on_their_struct() -> None:
    """The fast path is taken: no frozen table event is built for an accepted wager line."""
    work = line_batches(500, seed=3, odd=0.0)
    engine = EmbeddedController(MemoryLog(), MemoryLog(), clock=lambda: NOW)
    engine.start(PA, "floor.toml")
    built: list[object] = []
    original = validate_to_event

    def counted(raw: object) -> TableEvent | Heartbeat:
        built.append(raw)
        return original(raw)

    with patch("streams.embedded.batch.validate_to_event", counted):
        for lines, refused in work:
            engine.submit_lines(lines, _scope(refused) if refused else None)
    total = sum(len(lines) for lines, _ in work)
    assert len(built) < total * 0.15, (len(built), total)


def test_a_line_that_is_not_json_is_dead_lettered_in_its_place() -> None:
    log: EventLog = MemoryLog()
    engine = EmbeddedController(log, MemoryLog(), clock=lambda: NOW)
    engine.start(PA, "floor.toml")
    before = log.head()
    good = [line(item) for item in disturbed(2, 2) if isinstance(item, dict)][:2]
    answers = engine.submit_lines([good[0], b'{"type": "wager', good[1]])
    assert [a.status for a in answers] == ["accepted", "rejected", "accepted"]
    assert answers[1].reason.startswith("line: malformed JSON")
    letters = [r.payload for r in log.read(before) if b'"raw"' in r.payload]
    assert len(letters) == 1
    assert json.loads(letters[0])["raw"] == '{"type": "wager'
    assert json.loads(letters[0])["reason"] == answers[1].reason


def test_a_refused_line_is_named_as_the_caller_names_it() -> None:
    """`jackpot ingest` names each line by its number in the file."""
    engine = EmbeddedController(MemoryLog(), MemoryLog(), clock=lambda: NOW)
    engine.start(PA, "floor.toml")
    answers = engine.submit_lines([b"[1]", b"{"], names=["line 4", "line 9"])
    assert [a.reason for a in answers] == [
        "line 4: expected a JSON object, got an array",
        "line 9: malformed JSON: Expecting property name enclosed in double quotes at character 2",
    ]
