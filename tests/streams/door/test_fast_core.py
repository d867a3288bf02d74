"""Proven equal: JSON lines straight into the fast session (`streams.door.fast_core`) against the
reference, ``controller.floor.decide``/``evolve`` over ``from_contract(json.loads(line))``.

For every line both give the same events, byte for byte as the log encodes them, or the same
refusal (its type and message), and the states stay equal (as values and as snapshot bytes). Lines
come from simulated floors (30% forced hands, voids, the devices' mistakes, rate changes,
corrections, hit validation and payment) with a share written oddly or damaged
(`tests.strategies_lines.ODD_LINES`: unknown fields, escapes, repeated keys, wrong types, values
outside the contract, another type, broken JSON), from every examples/ floor and events file, and
from Hypothesis sessions.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.evolve import evolve_many
from controller.fast import Session
from controller.floor import decide, run
from controller.model.commands import ActivateConfig
from controller.model.events import Event
from controller.model.state import FloorState
from controller.model.table_events import TableEventBase, from_contract, to_contract
from streams.codec import encode
from streams.door import fast_core
from streams.door.contract_structs import RoundHead, WagerPlacedStruct
from streams.door.fast_core import decode_vouched, recorded, run_lines, step_line
from streams.door.fast_decode import try_decode_line
from tests.controller.fast.differential import (
    Step,
    Tally,
    activation,
    assert_same_state,
    disturbed_floor,
)
from tests.controller.test_evolve_many import sessions_with_changes
from tests.controller.test_properties import START, command_for
from tests.strategies import AdvanceHit, Correction, SessionStep
from tests.strategies_lines import ODD_LINES, line, odd_lines
from tests.streams.door.test_fast_decode import door_lines

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
Outcome = tuple[str, object]
#: The example floor with a Lunar Poker table (sixth cards and draws: 671a.11(b)(3)) and a Four
#: Card Prime table, neither linked to a meter.
OTHER_GAMES = (EXAMPLES / "pa-three-card-poker.toml").read_text(encoding="utf-8") + (
    '\n[tables.lun-1]\ngame = "lunar_poker"\nseats = 7\nwager_unit = "5.00"\n'
    '\n[tables.4cp-1]\ngame = "four_card_prime"\nseats = 7\nwager_unit = "1.00"\n'
)


def _reference(state: FloorState, text: bytes) -> tuple[Outcome, tuple[Event, ...]]:
    try:
        events = decide(state, from_contract(json.loads(text)))
    except Exception as refused:  # any refusal: type and message compared
        return ("refused", (type(refused).__name__, str(refused))), ()
    return ("events", [encode(e) for e in events]), events


def _fast(session: Session, text: bytes) -> Outcome:
    try:
        got = step_line(session, text)
    except Exception as refused:  # as the reference's
        return ("refused", (type(refused).__name__, str(refused)))
    return ("events", [encode(recorded(e)) for e in got])


def lines_both(
    steps: Iterable[Step | bytes], state: FloorState | None = None, check_every: int = 1
) -> tuple[FloorState, Tally]:
    """Each line through `step_line` and through the reference (operator commands through both
    `Session.step` and `decide`): the same outcome, the same states every ``check_every`` steps
    and at the end. Returns the reference's state and what was covered."""
    reference = state or FloorState()
    session = Session(reference)
    tally = Tally()
    for number, step in enumerate(steps):
        if isinstance(step, bytes):
            expected, events = _reference(reference, step)
            assert _fast(session, step) == expected, (number, step)
            tally.kinds[expected[0]] += 1
        else:
            command = step(reference) if callable(step) else step
            events = decide(reference, command)
            assert [encode(e) for e in session.step(command)] == [encode(e) for e in events]
        reference = evolve_many(reference, events)
        tally.add(events)
        if number % check_every == 0:
            assert_same_state(session, reference)
    assert_same_state(session, reference)
    return reference, tally


def as_lines(steps: Iterable[Step], rng: random.Random, odd: float) -> Iterable[Step | bytes]:
    """Table events as lines, a share ``odd`` of them written by one of `ODD_LINES`."""
    for step in steps:
        if isinstance(step, TableEventBase):
            write = rng.choice(ODD_LINES) if rng.random() < odd else line
            yield write(to_contract(step))
        else:
            yield step


def _assert_both_ways_occurred(tally: Tally) -> None:
    for kind in ("ProgressiveHit", "FixedAwarded", "EventRejected", "refused"):
        assert tally.kinds[kind], (kind, tally.kinds)


@pytest.mark.parametrize("seed", [21, 22])
def test_simulated_floor_lines_decide_the_same(seed: int) -> None:
    steps = disturbed_floor(25_000, seed)
    _, tally = lines_both(as_lines(steps, random.Random(seed), 0.05), check_every=499)
    _assert_both_ways_occurred(tally)


@pytest.mark.parametrize("example", sorted(EXAMPLES.glob("*.toml")), ids=lambda p: p.name)
def test_every_example_floor_decides_its_lines_the_same(example: Path) -> None:
    text = example.read_text(encoding="utf-8")
    steps = disturbed_floor(6_000, 23, text=text)
    _, tally = lines_both(as_lines(steps, random.Random(23), 0.1), check_every=997)
    assert tally.kinds["ContributionRecorded"] > 0


def test_other_games_decide_their_lines_the_same() -> None:
    """Lunar Poker's options (a draw names its discards) and Four Card Prime's raises."""
    steps = list(as_lines(disturbed_floor(8_000, 26, text=OTHER_GAMES), random.Random(26), 0.05))
    draws = [s for s in steps if isinstance(s, bytes) and b'"action":"draw"' in s]
    assert len(draws) > 10
    _, tally = lines_both(steps, check_every=97)
    assert tally.kinds["events"] > 7_000


@pytest.mark.parametrize(
    "events", sorted((EXAMPLES / "events").glob("*.jsonl")), ids=lambda p: p.name
)
def test_every_example_events_file_decides_the_same(events: Path) -> None:
    """Each examples/events file line by line (as written there), and written oddly."""
    config = EXAMPLES / "pa-three-card-poker.toml"
    start = activation(config.read_text(encoding="utf-8"), 0)
    lines = events.read_bytes().splitlines()
    _, tally = lines_both([start, *lines])
    assert tally.kinds["ContributionRecorded"] > 0
    rng = random.Random(events.name)
    odd = [rng.choice(ODD_LINES)(json.loads(text)) for text in lines]
    lines_both([start, *(x for pair in zip(lines, odd, strict=True) for x in pair)])


def test_run_lines_decides_a_stream_as_the_reference_runs_it() -> None:
    """`run_lines` (the bench's entry, the loop written out) against `controller.floor.run`."""
    reference, commands, texts = FloorState(), [], []
    for step in disturbed_floor(12_000, 24):
        command = step(reference) if callable(step) else step
        commands.append(command)
        reference = evolve_many(reference, decide(reference, command))
        if isinstance(command, TableEventBase):
            texts.append(line(command))
    start = commands[0]
    assert isinstance(start, ActivateConfig)
    state, _ = run([start])
    expected_state, expected = run([from_contract(json.loads(t)) for t in texts], state)
    session = Session(state)
    got = run_lines(session, texts)
    assert [encode(recorded(e)) for e in got] == [encode(e) for e in expected]
    assert_same_state(session, expected_state)
    # most lines were decided on their struct, not on a frozen event built for them
    assert sum(isinstance(e, RoundHead) for e in got) > 0.8 * len(texts)
    kept = next(e for e in got if isinstance(e, WagerPlacedStruct))
    with pytest.raises(AttributeError):  # as immutable as the frozen event it stands for
        kept.seat = 2  # type: ignore[misc]


def _resolver(item: SessionStep | ActivateConfig, number: int) -> Step:
    if isinstance(item, Correction | AdvanceHit):
        step = item
        return lambda state: command_for(state, step, number)
    return item


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sessions_with_changes(), st.data())
def test_hypothesis_sessions_decide_their_lines_the_same(
    session: list[SessionStep | ActivateConfig], data: st.DataObject
) -> None:
    """Rate changes, voids, corrections, hits validated and paid; each table event written
    plainly or oddly; retries of earlier lines slipped in anywhere."""
    steps: list[Step | bytes] = [START]
    for number, item in enumerate(session, start=1):
        if isinstance(item, TableEventBase):
            steps.append(data.draw(odd_lines(item), label="line"))
        else:
            steps.append(_resolver(item, number))
    sent = [step for step in steps if isinstance(step, bytes)]
    for _ in range(data.draw(st.integers(0, 4) if sent else st.just(0), label="retries")):
        steps.insert(data.draw(st.integers(1, len(steps))), data.draw(st.sampled_from(sent)))
    lines_both(steps)


def test_the_harness_fails_on_a_wrong_field(monkeypatch: pytest.MonkeyPatch) -> None:
    """The differential check can fail: a struct read with one field mapped wrongly (a wager's
    target taken as the dealer's when the line names none) is caught."""
    mapping: Callable[[object], str] = lambda self: "dealer"  # noqa: E731
    monkeypatch.setattr(WagerPlacedStruct, "on", property(mapping))
    with pytest.raises(AssertionError):
        lines_both(as_lines(disturbed_floor(300, 25), random.Random(25), 0.0))


def _same_decode(text: bytes | str) -> bool:
    """`decode_vouched` gives what `try_decode_line` gives: the same struct (type and fields),
    or None from both."""
    ours, theirs = decode_vouched(text), try_decode_line(text)
    assert type(ours) is type(theirs), (text, ours, theirs)
    assert ours == theirs, (text, ours, theirs)
    return theirs is not None


@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_the_compiled_decode_answers_as_the_door_s_for_any_line(data: st.DataObject) -> None:
    """Valid events in any key order, spacing and escaping; mutated ones (a field dropped,
    added, replaced, cards damaged); broken lines (repeated keys, control characters, NaN,
    trailing text, a BOM, truncated, not UTF-8, too deep, oversized, an escaped key); as
    bytes and as text."""
    kind, text = data.draw(door_lines(), label="line")
    if isinstance(text, str) and data.draw(st.booleans(), label="as bytes"):
        text = text.encode("utf-8", "surrogatepass")
    vouched = _same_decode(text)
    if kind == "valid" and isinstance(text, bytes) and b"\\" not in text:
        assert vouched  # a valid plain line is vouched for by both, not refused by both


def test_the_compiled_decode_vouches_for_a_simulated_floor_as_the_door_does() -> None:
    """Every line of a simulated floor, plain and written oddly (escapes, repeated keys...)."""
    texts = as_lines(disturbed_floor(3_000, 27), random.Random(27), 0.3)
    lines_only = [t for t in texts if isinstance(t, bytes)]
    vouched = [_same_decode(t) for t in lines_only]
    assert 0.5 * len(vouched) < sum(vouched) < len(vouched)  # both ways occurred


def test_a_wager_struct_is_decided_on_its_fields_read_at_once() -> None:
    """The wagers' decider reads a struct's fields from msgspec's ``astuple`` at the places the
    module's constants name (the tests above hold its answers to the reference): they are the
    struct's, so the struct's decider is the one that reads them."""
    assert fast_core._fields_known()
    assert fast_core.DIRECT[WagerPlacedStruct] is fast_core.decide_wager_struct
    struct = decode_vouched(
        b'{"amount":"5.00","event_id":"e1","occurred_at":"2026-11-29T18:00:00Z","on":"own",'
        b'"round_id":"r1","schema_version":1,"seat":3,"seq":7,"table_id":"t1","type":"wager_placed",'
        b'"wager":"ante"}'
    )
    assert isinstance(struct, WagerPlacedStruct)
    f = msgspec.structs.astuple(struct)
    read = (f[fast_core._TABLE], f[fast_core._SEQ], f[fast_core._ID], f[fast_core._ROUND])
    assert read == ("t1", 7, "e1", "r1")
    assert (f[fast_core._SEAT], f[fast_core._KIND], f[fast_core._ON]) == (3, "ante", "own")
