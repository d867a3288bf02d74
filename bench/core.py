"""Row "core throughput": a simulated stream of every event type through decide/evolve, one process.

Subject: each JSON line parsed (`json.loads`), made a table event (`from_contract`) and run through
`controller.floor.run` (decide, then evolve each produced event) from the state right after the
example floor's configuration is activated. The schema check is left out: it is the door's row.
Reference: the same lines parsed by `json.loads` and nothing else.
"""

from __future__ import annotations

import json
from collections import Counter

from bench import workload
from bench.common import Goal, Row, Settings, median, paired, rate_row, rates, stopwatch
from controller.floor import run
from controller.model.events import EventRejected
from controller.model.state import FloorState
from controller.model.table_events import TableEvent, from_contract

GOAL = Goal(
    text=">= 100,000 events/s and >= 1/4 of parse-only",
    at_least=100_000,
    ratio_at_least=0.25,
)


def _parse_only(lines: list[bytes]) -> None:
    loads = json.loads
    for line in lines:
        loads(line)


def _through_core(lines: list[bytes], state: FloorState) -> None:
    loads = json.loads
    run((from_contract(loads(line)) for line in lines), state)


def _decide_evolve(commands: list[TableEvent], state: FloorState) -> None:
    run(commands, state)


def run_rows(settings: Settings) -> list[Row]:
    """The core throughput row."""
    text, config = workload.example_floor()
    raws = workload.events(config, settings.core_events, settings.seed)
    lines = [workload.to_line(raw) for raw in raws]
    state = workload.activated(text)
    commands = [from_contract(json.loads(line)) for line in lines]
    _, produced = run(commands, state)
    rejected = sum(1 for event in produced if isinstance(event, EventRejected))
    kinds = Counter(str(raw["type"]) for raw in raws)
    times = paired(
        lambda: stopwatch(lambda: _through_core(lines, state)),
        lambda: stopwatch(lambda: _parse_only(lines)),
        settings.repeats,
    )
    core_only = tuple(
        stopwatch(lambda: _decide_evolve(commands, state)) for _ in range(settings.repeats)
    )
    extra: dict[str, float | int | str | bool | None] = {
        "events": len(lines),
        "events_out_per_event_in": round(len(produced) / len(lines), 3),
        "rejected": rejected,
        "decide_evolve_only_events_per_s": round(median(rates(len(commands), core_only))),
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
            notes="json.loads + from_contract + controller.floor.run; no schema check",
            extra=extra,
        )
    ]
