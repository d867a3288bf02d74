"""Row "door: decode+validate": a JSON line to a schema-checked event, as the ingest edge needs it.

Subject: `streams.door.fast_decode.decode_line` (msgspec structs; falls back to jsonschema only for
what
it cannot vouch for). Reference: plain `json.loads` of the same lines. Also measured, on a sample
(it is ~1,000 times slower): the jsonschema door it replaces, ``parse_json_line`` +
``validate_table_event``; and `decode_event` (line straight to a table event) and `validate_event`
(an already parsed dict, as the HTTP edge hands the engine).
"""

from __future__ import annotations

import json
from typing import Any

from bench import workload
from bench.common import Figure, Goal, Row, Settings, median, paired, rate_row, rates, stopwatch
from streams.door.fast_decode import decode_event, decode_line, try_decode_line, validate_event
from streams.door.json_lines import parse_json_line
from streams.door.validation import validate_table_event

GOAL = Goal(
    text=">= 100,000 events/s and >= 1/2 of parse-only",
    at_least=100_000,
    ratio_at_least=0.5,
)


def _loads(lines: list[bytes]) -> None:
    loads = json.loads
    for line in lines:
        loads(line)


def _fast(lines: list[bytes]) -> None:
    for line in lines:
        decode_line(line)


def _fast_events(lines: list[bytes]) -> None:
    for line in lines:
        decode_event(line)


def _fast_parsed(raws: list[Any]) -> None:
    for raw in raws:
        validate_event(raw)


def _schema(lines: list[bytes]) -> None:
    for line in lines:
        validate_table_event(parse_json_line(line))


def _rate(count: int, action: Any, repeats: int) -> float:
    return median(rates(count, tuple(stopwatch(action) for _ in range(repeats))))


def run_rows(settings: Settings) -> list[Row]:
    """The door row."""
    _, config = workload.example_floor()
    lines = [
        workload.to_line(raw)
        for raw in workload.events(config, settings.door_events, settings.seed)
    ]
    sample = lines[: settings.door_schema_events]
    raws = [json.loads(line) for line in lines]
    vouched = sum(1 for line in lines if try_decode_line(line) is not None)
    times = paired(
        lambda: stopwatch(lambda: _fast(lines)),
        lambda: stopwatch(lambda: _loads(lines)),
        settings.repeats,
    )
    schema_rate = _rate(len(sample), lambda: _schema(sample), settings.repeats)
    fast_rate = median(rates(len(lines), times.subject))
    extra: dict[str, Figure] = {
        "events": len(lines),
        "fast_path_share": round(vouched / len(lines), 4),
        "jsonschema_events_per_s": round(schema_rate),
        "jsonschema_sample": len(sample),
        "speedup_vs_jsonschema": round(fast_rate / schema_rate, 1),
        "line_to_table_event_per_s": round(
            _rate(len(lines), lambda: _fast_events(lines), settings.repeats)
        ),
        "parsed_dict_per_s": round(_rate(len(raws), lambda: _fast_parsed(raws), settings.repeats)),
    }
    return [
        rate_row(
            name="door: decode+validate",
            count=len(lines),
            times=times,
            reference_name="parse only (json.loads)",
            goal=GOAL,
            notes="streams.door.fast_decode.decode_line; goal is ours: <= 1/5 of the engine budget",
            extra=extra,
        )
    ]
