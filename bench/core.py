"""Row "core throughput": a simulated stream of every event type through decide/evolve, one process.

Subject: each JSON line parsed (`json.loads`), made a table event (`from_contract`) and run through
the core's fast path (`controller.fast.Session.run`: decide, then evolve, proven equal to the
reference by ``tests/controller/fast/``) from the state right after the example floor's
configuration is activated, and the frozen state read at the end. The schema check is left out: it
is the door's row. Reference: the same lines parsed by `json.loads` and nothing else.

Also measured in the same run: the readable reference core (`controller.floor.run`) on the same
events, and both cores without the parse. The memo of formed hands (the fast former's and the
reference's `lru_cache`) is emptied before every repetition, so a repetition does not find the
previous one's hands already formed (a live floor deals new hands).
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


def _through_core(lines: list[bytes], state: FloorState) -> None:
    loads = json.loads
    session = Session(state)
    session.run(from_contract(loads(line)) for line in lines)
    session.state()


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
    times = paired(
        lambda: _timed(lambda: _through_core(lines, state)),
        lambda: stopwatch(lambda: _parse_only(lines)),
        settings.repeats,
    )
    fast_and_reference = paired(
        lambda: _timed(lambda: _fast(commands, state)),
        lambda: _timed(lambda: _reference(commands, state)),
        settings.repeats,
    )
    fast_rate = median(rates(len(commands), fast_and_reference.subject))
    reference_rate = median(rates(len(commands), fast_and_reference.reference))
    extra: dict[str, float | int | str | bool | None] = {
        "events": len(lines),
        "events_out_per_event_in": round(len(produced) / len(lines), 3),
        "rejected": rejected,
        "decide_evolve_only_events_per_s": round(fast_rate),
        "reference_decide_evolve_only_events_per_s": round(reference_rate),
        "fast_over_reference": round(fast_rate / reference_rate, 2),
        "tables": len(config.tables),
        "meters": len(config.meters),
    }
    extra.update({f"count_{kind}": kinds.get(kind, 0) for kind in workload.EVENT_TYPES})
    return [
        rate_row(
            name="core throughput",
            count=len(lines),
            times=times,
            reference_name="parse only (json.loads)",
            goal=GOAL,
            notes="json.loads + from_contract + controller.fast.Session.run; no schema check",
            extra=extra,
        )
    ]
