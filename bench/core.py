"""Row "core throughput": a simulated stream of every event type through decide/evolve, one process.

Subject: each JSON line straight into the core's fast path (`streams.door.fast_core.run_lines`):
decoded once by msgspec into the door's checked struct and, for a round opened, a wager, the lock
and a decision, decided by `controller.fast.Session` on that struct (no dict, no frozen event; a
settlement or a void is decided on its frozen event), from the state right after the example
floor's configuration is activated, and the frozen state read at the end. Proven equal to the
reference (`controller.floor.decide`/`evolve` over ``from_contract(json.loads(line))``) by
``tests/streams/door/test_fast_core.py``.

The schema check is now INCLUDED for every line the struct decode vouches for (all of this
stream's): each field's type, required fields present, no unknown and no repeated key, the
contract's lengths, ranges, enums and patterns, card texts, ``uniqueItems`` of cards,
``discards`` only with ``draw``, a real calendar instant. Not checked: nothing the contract says
is skipped for a vouched line; a line the decode does not vouch for (an escape, a repeated key,
anything outside the contract) is read as the reference reads it (``from_contract(json.loads(
line))``, no schema check) and then decided, so its answer is the reference's, as before; none of
this stream's lines takes that way (``not_vouched`` below). Reference: the same lines parsed by
`json.loads` and nothing else.

Also measured in the same run, in pairs of their own: the struct decode alone
(`streams.door.fast_decode.try_decode_line`: msgspec plus the door's checks), the old subject
(``json.loads`` + ``from_contract`` + `Session.run`: no schema check), and both cores on frozen
events without the parse (the fast session and the readable reference `controller.floor.run`).
The whole row runs under the engines' process setting (`streams.process.settle_gc`: what
start-up built frozen out of the cyclic collector's way, a young collection every 50,000
allocations instead of 700), as the Kafka worker, ``jackpot ingest`` and ``jackpot replay`` run
(not ``jackpot serve``: `streams.process` says why), for the subject, its reference and every
extra alike; undone after the row. Each extra's
``*_over_parse`` is the parse's median time over its median time: the ratio the row
would show with it as the subject. The memo of formed hands (the fast former's and the
reference's `lru_cache`) is emptied before every repetition, so a repetition does not find the
previous one's hands already formed (a live floor deals new hands); the names of each
classification entry (`controller.fast.hands`, like the classification tables themselves) are
kept, and one untimed pass fills them first, so the subject, which runs first, does not pay for
every variant measured after it.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable

from bench import workload
from bench.common import Goal, Row, Settings, median, paired, rate_row, rates, stopwatch
from controller.fast import Session, hands
from controller.floor import run
from controller.model.events import EventRejected
from controller.model.state import FloorState
from controller.model.table_events import TableEvent, from_contract
from controller.rules.hand_forming import form_hand
from streams.door.fast_core import run_lines
from streams.door.fast_decode import try_decode_line
from streams.process import YOUNG, settle_gc, unsettle_gc

GOAL = Goal(
    text=">= 100,000 events/s and >= 1/2 of parse-only",
    at_least=100_000,
    ratio_at_least=0.5,
)


def _cold() -> None:
    """Forget every formed hand (both cores memoise them)."""
    hands.clear()
    form_hand.cache_clear()


def _parse_only(lines: list[bytes]) -> None:
    loads = json.loads
    for line in lines:
        loads(line)


def _lines_to_session(lines: list[bytes], state: FloorState) -> None:
    session = Session(state)
    run_lines(session, lines)
    session.state()


def _old_path(lines: list[bytes], state: FloorState) -> None:
    loads = json.loads
    session = Session(state)
    session.run(from_contract(loads(line)) for line in lines)
    session.state()


def _decode_only(lines: list[bytes]) -> None:
    decode = try_decode_line
    for line in lines:
        decode(line)


def _fast(commands: list[TableEvent], state: FloorState) -> None:
    session = Session(state)
    session.run(commands)
    session.state()


def _reference(commands: list[TableEvent], state: FloorState) -> None:
    run(commands, state)


def _timed(action: Callable[[], object]) -> float:
    _cold()
    return stopwatch(action)


def run_rows(settings: Settings) -> list[Row]:
    """The core throughput row."""
    text, config = workload.example_floor()
    raws = workload.events(config, settings.core_events, settings.seed)
    lines = [workload.to_line(raw) for raw in raws]
    state = workload.activated(text)
    commands = [from_contract(json.loads(line)) for line in lines]
    produced = Session(state).run(commands)
    rejected = sum(1 for event in produced if isinstance(event, EventRejected))
    kinds = Counter(str(raw["type"]) for raw in raws)
    extra_facts: dict[str, float | int | str | bool | None] = {
        "events": len(lines),
        "events_out_per_event_in": round(len(produced) / len(lines), 3),
        "rejected": rejected,
        "not_vouched": sum(1 for line in lines if try_decode_line(line) is None),
        "tables": len(config.tables),
        "meters": len(config.meters),
        "process_gc": f"streams.process.settle_gc (freeze, young threshold {YOUNG})",
    }
    extra_facts.update({f"count_{kind}": kinds.get(kind, 0) for kind in workload.EVENT_TYPES})
    _lines_to_session(lines, state)  # warm-up, untimed: see the module's docstring
    before = settle_gc()  # the engines' process setting, for every part of this row alike
    try:
        return _measured(settings, lines, state, commands, extra_facts)
    finally:
        unsettle_gc(before)


def _measured(
    settings: Settings,
    lines: list[bytes],
    state: FloorState,
    commands: list[TableEvent],
    extra_facts: dict[str, float | int | str | bool | None],
) -> list[Row]:
    """The row and its extras, timed under the process setting."""
    times = paired(
        lambda: _timed(lambda: _lines_to_session(lines, state)),
        lambda: stopwatch(lambda: _parse_only(lines)),
        settings.repeats,
    )
    parse = median(times.reference)
    extra: dict[str, float | int | str | bool | None] = {
        **extra_facts,
        **_side_by_side(lines, state, parse, settings.repeats),
        **_cores(commands, state, settings.repeats),
    }
    return [
        rate_row(
            name="core throughput",
            count=len(lines),
            times=times,
            reference_name="parse only (json.loads)",
            goal=GOAL,
            notes="lines -> checked msgspec structs -> controller.fast.Session "
            "(streams.door.fast_core.run_lines); schema check included",
            extra=extra,
        )
    ]


def _side_by_side(
    lines: list[bytes], state: FloorState, parse: float, repeats: int
) -> dict[str, float]:
    """The struct decode alone and the old subject, each as a rate and over the parse."""
    pair = paired(
        lambda: _timed(lambda: _old_path(lines, state)),
        lambda: stopwatch(lambda: _decode_only(lines)),
        repeats,
    )
    old, decode = median(pair.subject), median(pair.reference)
    return {
        "struct_decode_only_events_per_s": round(len(lines) / decode),
        "struct_decode_only_over_parse": round(parse / decode, 3),
        "old_path_events_per_s": round(len(lines) / old),
        "old_path_over_parse": round(parse / old, 3),
    }


def _cores(commands: list[TableEvent], state: FloorState, repeats: int) -> dict[str, float]:
    """Both cores on frozen events, without any parse."""
    pair = paired(
        lambda: _timed(lambda: _fast(commands, state)),
        lambda: _timed(lambda: _reference(commands, state)),
        repeats,
    )
    fast_rate = median(rates(len(commands), pair.subject))
    reference_rate = median(rates(len(commands), pair.reference))
    return {
        "decide_evolve_only_events_per_s": round(fast_rate),
        "reference_decide_evolve_only_events_per_s": round(reference_rate),
        "fast_over_reference": round(fast_rate / reference_rate, 2),
    }
