"""The differential harness: the fast path (`controller.fast.Session`) and the reference
(`controller.floor.decide` + `controller.evolve.evolve_many`) over the same input must produce the
same bytes: every event as the log encodes it, and the same state (compared as values and as the
snapshot's JSON), both when deciding and when replaying the log.

Inputs come from simulated floors (`streams.sim`), with a high forced-hands share so hits, splits,
Envy Bonuses, Magic/Lucky awards and voids occur, disturbed by retries, reused ids, stale ``seq``,
unknown tables, rate changes, corrections and hit validation/payment.
"""

from __future__ import annotations

import json
import random
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from controller.config.floor import FloorConfig, load_floor_config
from controller.evolve import evolve_many
from controller.fast import Session
from controller.floor import Command, decide
from controller.model.commands import ActivateConfig, CorrectMeter, PayHit, ValidateHit
from controller.model.events import Event, FixedAwarded, ProgressiveHit
from controller.model.state import FloorState
from controller.model.table_events import RoundSettled, TableEvent, WagerPlaced, from_contract
from controller.snapshot import state_to_dict
from streams.adapters.memory import MemoryLog
from streams.cli.simulate import sim_tables
from streams.codec import encode, fold_into, record_key
from streams.ports import LogRecord, StoredRecord
from streams.sim.floor import (
    AKQ_SPADES,
    COMMUNITY_ROYAL,
    DEALER_ROYAL,
    FIVE_OF_SIX_ROYAL,
    FloorSimulator,
    ForcedHands,
)
from tests.controller.scenario_builders import PA

Step = Command | Callable[[FloorState], Command]
START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
RATE_CHANGE = PA.replace('primary_rate = "14%"', 'primary_rate = "15%"')
#: Low ceilings, so overflow is carried and diverted within a short run (NY 5320.8).
CEILINGS = PA.replace('ceiling = "25000.00"', 'ceiling = "5004.00"').replace(
    '[meters.tcp-five-card]\nprogressive = "pa-649a12h"\n',
    '[meters.tcp-five-card]\nprogressive = "pa-649a12h"\nceiling = "10003.00"\n'
    'overflow = "divert:tcp-five-of-six"\n',
)


@dataclass
class Tally:
    """What a differential run covered (so a test can insist the interesting cases occurred)."""

    commands: int = 0
    events: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    splits: int = 0  # dealer-hand jackpots divided among several players
    fixed_hands: set[str] = field(default_factory=set)

    def add(self, events: tuple[Event, ...]) -> None:
        """Count what one command produced."""
        self.commands += 1
        self.events += len(events)
        for event in events:
            self.kinds[type(event).__name__] += 1
            if isinstance(event, ProgressiveHit) and len(event.winners) > 1:
                self.splits += 1
            elif isinstance(event, FixedAwarded):
                self.fixed_hands.add(event.hand)


def snapshot_bytes(state: FloorState) -> bytes:
    """The state as a snapshot writes it."""
    return json.dumps(state_to_dict(state), sort_keys=True).encode()


def assert_same_state(fast: Session, reference: FloorState) -> None:
    """Equal as values and as snapshot bytes."""
    got = fast.state()
    assert got == reference, "the fast path's state differs from the reference's"
    assert snapshot_bytes(got) == snapshot_bytes(reference)


def run_both(
    steps: Iterable[Step],
    state: FloorState | None = None,
    check_every: int = 1,
    keep_log: bool = True,
    fast: Session | None = None,
) -> tuple[FloorState, list[Event], Tally]:
    """Decide every step with both; the events must match byte for byte, the states every
    ``check_every`` steps and at the end. A second session replays the reference's events as
    they come (``evolve`` alone) and must reach the same states. Returns the reference's state,
    its log (empty unless ``keep_log``: a long run keeps memory flat) and what was covered.
    ``fast`` is the session to decide with, if not one over ``state`` (e.g. one `folded` from
    the log that led to ``state``, as an engine restarts)."""
    reference = state or FloorState()
    fast, replayed = fast or Session(reference), Session(reference)
    log: list[Event] = []
    tally = Tally()
    for number, step in enumerate(steps):
        command = step(reference) if callable(step) else step
        expected = decide(reference, command)
        reference = evolve_many(reference, expected)
        got = fast.step(command)
        assert [encode(e) for e in got] == [encode(e) for e in expected], (number, command)
        replayed.replay(expected)
        if keep_log:
            log.extend(expected)
        tally.add(expected)
        if number % check_every == 0:
            assert_same_state(fast, reference)
            assert_same_state(replayed, reference)
    assert_same_state(fast, reference)
    assert_same_state(replayed, reference)
    return reference, log, tally


def replay_both(log: list[Event], state: FloorState | None = None, chunk: int = 1) -> None:
    """Apply a log with both (the session reads its state every ``chunk`` events). A third
    session folds the log's encoded records as a replay reads them (`streams.codec.fold_into`:
    the hot records straight into the session's records, never built as frozen events),
    resuming at each chunk's position, and must reach the same states."""
    start = state or FloorState()
    fast, folded = Session(start), Session(start)
    stored = MemoryLog()
    stored.append([LogRecord(record_key(e), encode(e)) for e in log])
    records = list(stored.read())
    reference = start
    for begin in range(0, len(log), chunk):
        part = log[begin : begin + chunk]
        fast.replay(part)
        reference = evolve_many(reference, part)
        assert fold_into(folded, _Upto(records, begin + len(part)), begin) == begin + len(part)
        if chunk > 1 or begin % 97 == 0:
            assert_same_state(fast, reference)
            assert_same_state(folded, reference)
    assert_same_state(fast, reference)
    assert_same_state(folded, reference)


def folded(log: list[Event]) -> Session:
    """A session that folded ``log``'s encoded records as a replay reads them."""
    stored = MemoryLog()
    stored.append([LogRecord(record_key(e), encode(e)) for e in log])
    session = Session()
    assert fold_into(session, stored) == len(log)
    return session


def cut_and_resume(
    steps: list[Step], cut: int, check_every: int = 1, read_in_rounds: bool = True
) -> Tally:
    """Decide ``steps[:cut]`` with both; then a session `folded` from that log (not the one that
    decided it) decides the rest alongside the reference: byte-identical events and states.
    ``read_in_rounds``: the folded session must hold wagers as the log reader read them (not
    frozen events) in rounds still open, so the rest is decided on those."""
    state, log, tally = run_both(steps[:cut], check_every=check_every)
    session = folded(log)
    if read_in_rounds:
        assert any(
            not isinstance(wager, WagerPlaced)
            for table in session.tables.values()
            if table.round is not None and table.round.phase == "open"
            for wager in table.round.wagers
        ), "no round open at the cut holds a wager read by the log reader"
    _, _, rest = run_both(steps[cut:], state, check_every=check_every, fast=session)
    tally.kinds.update(rest.kinds)
    return tally


class _Upto:
    """A log's records up to position ``end``: the log as a replay found it at that time."""

    def __init__(self, records: list[StoredRecord], end: int) -> None:
        self._records, self._end = records, end

    def read(self, after: int = 0) -> list[StoredRecord]:
        """`EventLog.read`, stopping at ``end``."""
        return self._records[after : self._end]


def activation(text: str, number: int, when: str = "2026-12-01T08:59:00.000Z") -> ActivateConfig:
    """A configuration activation command."""
    return ActivateConfig(
        command_id=f"config-{number}",
        source="floor.toml",
        text=text,
        by="manager",
        occurred_at=when,
    )


def simulated(config: FloorConfig, seed: int, forced: float, void_rate: float) -> Iterator[dict]:  # type: ignore[type-arg]
    """An endless simulated floor with a share ``forced`` of jackpot deals."""
    deals = (AKQ_SPADES, COMMUNITY_ROYAL, DEALER_ROYAL, FIVE_OF_SIX_ROYAL)
    simulator = FloorSimulator(
        sim_tables(config),
        random.Random(seed),  # a repeatable test input
        START,
        void_rate=void_rate,
        forced_hands=ForcedHands(probability=forced, deals=deals) if forced else None,
    )
    while True:
        yield from simulator.events(5_000)


def disturbed_floor(
    count: int, seed: int, forced: float = 0.3, void_rate: float = 0.03, text: str = PA
) -> Iterator[Step]:
    """``count`` table events of a simulated floor, with the operator's and devices' mistakes."""
    config = load_floor_config(text, "floor.toml")
    rng = random.Random(seed ^ 0x5EED)  # a repeatable test input
    recent: deque[TableEvent] = deque(maxlen=64)
    yield activation(text, 0)
    raws = simulated(config, seed, forced, void_rate)
    for number in range(count):
        event = _magic_in_hand(rng, from_contract(next(raws)))
        yield from _mistakes(rng, recent, event, number)
        yield event
        recent.append(event)
        if number % 4_999 == 4_998 and text == PA:
            yield activation(RATE_CHANGE if number // 4_999 % 2 == 0 else PA, number)
        if number % 211 == 210:
            yield _correction(rng, number)
        if number % 37 == 36:
            yield _advance_hit(number)


def _mistakes(
    rng: random.Random, recent: deque[TableEvent], event: TableEvent, number: int
) -> Iterator[Step]:
    roll = rng.random()
    if roll < 0.01 and recent:
        yield rng.choice(recent)  # a retry of an accepted event: refused as a duplicate
    elif roll < 0.015 and recent:
        yield replace(rng.choice(recent), event_id=f"stale-{number}")  # an old seq
    elif roll < 0.02:
        yield replace(event, table_id="tcp-404")
    elif roll < 0.025:
        yield replace(event, event_id=f"negative-{number}", seq=-1)


def _magic_in_hand(rng: random.Random, event: TableEvent) -> TableEvent:
    """The simulator draws the Magic Card from the shoe, so it never lies in a hand; half the
    time designate a card of a dealt hand instead (it may be in a hand, 649a.12(i)(3))."""
    if isinstance(event, RoundSettled) and event.magic_card and event.seats and rng.random() < 0.5:
        _, cards = rng.choice(event.seats)
        return replace(event, magic_card=rng.choice(cards))
    return event


def _correction(rng: random.Random, number: int) -> CorrectMeter:
    meter = rng.choice(("tcp-progressive", "tcp-five-card", "tcp-five-card-bonus"))
    return CorrectMeter(
        command_id=f"correct-{number}",
        meter_id=meter,
        amount_delta_sub=rng.randint(-(10**9), 10**9),
        reserve_delta_sub=rng.randint(-(10**7), 10**7),
        by="manager",
        reason="differential test",
        occurred_at="2026-12-01T10:00:00.000Z",
    )


def _advance_hit(number: int) -> Callable[[FloorState], Command]:
    def command(state: FloorState) -> Command:
        open_hits = sorted(h for h, hit in state.hits.items() if hit.status != "paid")
        hit_id = open_hits[0] if open_hits else "no-hit"
        hit = state.hits.get(hit_id)
        stamp = "2026-12-01T10:00:00.000Z"
        if hit is not None and hit.status == "validated":
            return PayHit(
                command_id=f"pay-{number}", hit_id=hit_id, by="cashier", occurred_at=stamp
            )
        return ValidateHit(command_id=f"ok-{number}", hit_id=hit_id, by="floor", occurred_at=stamp)

    return command
