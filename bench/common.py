"""What every benchmark shares: the run's sizes, a row of the results table, and the stopwatch.

A row is one figure against its goal. Throughput rows measure their *reference* (the same input
through the cheapest possible path: parse only, append only, read only) in the same run,
alternating subject and reference repetition by repetition so a noisy neighbour slows both, and
report medians of the repetitions and their ratio.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

Mode = Literal["tiny", "quick", "default", "full"]
Figure = float | int | str | bool | None

REPO: Path = Path(__file__).resolve().parents[1]
EXAMPLE_CONFIG: Path = REPO / "examples" / "pa-three-card-poker.toml"
CACHE_DIR: Path = REPO / ".cache" / "bench"
RESULTS_DIR: Path = Path(__file__).resolve().parent / "results"


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    """Sizes of one run. ``tiny`` is for the smoke test, ``quick`` a short check (under a minute),
    ``default`` the routine run, ``full`` the issue's full sizes (a 10-million-event replay)."""

    mode: Mode
    repeats: int
    seed: int = 20261129
    core_events: int
    door_events: int
    door_schema_events: int  # jsonschema is ~0.5 ms/event: a sample is enough for its rate
    engine_events: int
    engine_batch: int
    replay_events: int
    replay_repeats: int  # a million-event fold takes half a minute: fewer repetitions
    snapshot_tail: int  # events between the restart snapshot and the log's head
    scale_tables: int
    scale_meters: int
    cache_dir: Path = CACHE_DIR


PRESETS: Mapping[Mode, Settings] = {
    "tiny": Settings(
        mode="tiny",
        repeats=2,
        core_events=400,
        door_events=400,
        door_schema_events=40,
        engine_events=300,
        engine_batch=100,
        replay_events=3_000,
        replay_repeats=2,
        snapshot_tail=500,
        scale_tables=40,
        scale_meters=8,
    ),
    "quick": Settings(
        mode="quick",
        repeats=3,
        core_events=20_000,
        door_events=20_000,
        door_schema_events=300,
        engine_events=3_000,
        engine_batch=500,
        replay_events=60_000,
        replay_repeats=3,
        snapshot_tail=5_000,
        scale_tables=1_000,
        scale_meters=100,
    ),
    "default": Settings(
        mode="default",
        repeats=5,
        core_events=100_000,
        door_events=100_000,
        door_schema_events=1_000,
        engine_events=20_000,
        engine_batch=500,
        replay_events=1_000_000,
        replay_repeats=3,
        snapshot_tail=20_000,
        scale_tables=10_000,
        scale_meters=1_000,
    ),
    "full": Settings(
        mode="full",
        repeats=5,
        core_events=1_000_000,
        door_events=1_000_000,
        door_schema_events=2_000,
        engine_events=100_000,
        engine_batch=500,
        replay_events=10_000_000,
        replay_repeats=3,
        snapshot_tail=20_000,
        scale_tables=10_000,
        scale_meters=1_000,
    ),
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Goal:
    """A figure's goal: bounds on the value and a floor on its ratio to the reference."""

    text: str
    at_least: float | None = None
    at_most: float | None = None
    ratio_at_least: float | None = None

    def met(self, value: float, ratio: float | None) -> bool:
        """Whether ``value`` (and its ratio to the reference) meet every bound."""
        if self.at_least is not None and value < self.at_least:
            return False
        if self.at_most is not None and value > self.at_most:
            return False
        return self.ratio_at_least is None or (ratio is not None and ratio >= self.ratio_at_least)


@dataclass(frozen=True, slots=True, kw_only=True)
class Row:
    """One line of the results table."""

    name: str
    unit: str
    value: float
    reference_name: str = ""
    reference: float | None = None
    goal: Goal | None = None
    samples: tuple[float, ...] = ()
    reference_samples: tuple[float, ...] = ()
    notes: str = ""
    extra: dict[str, Figure] = field(default_factory=dict)

    @property
    def ratio(self) -> float | None:
        """Value over reference (both rates, so 0.25 means a quarter of the reference's speed)."""
        if self.reference is None or self.reference == 0:
            return None
        return self.value / self.reference

    @property
    def passed(self) -> bool | None:
        """Whether the goal is met; None when the row has no goal."""
        return None if self.goal is None else self.goal.met(self.value, self.ratio)


def stopwatch(action: Callable[[], object]) -> float:
    """Seconds one call of ``action`` takes, after a full collection (so earlier garbage is not
    charged to it). The collector stays on while timing: production runs with it on."""
    gc.collect()
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


@dataclass(frozen=True, slots=True)
class Paired:
    """Seconds per repetition of a subject and its reference, timed alternately."""

    subject: tuple[float, ...]
    reference: tuple[float, ...]


def paired(subject: Callable[[], float], reference: Callable[[], float], repeats: int) -> Paired:
    """Run both ``repeats`` times, alternating which goes first; each returns its own seconds
    (so it can leave its setup, such as a fresh database, out of the timing)."""
    subject_times: list[float] = []
    reference_times: list[float] = []
    for index in range(repeats):
        if index % 2 == 0:
            reference_times.append(reference())
            subject_times.append(subject())
        else:
            subject_times.append(subject())
            reference_times.append(reference())
    return Paired(tuple(subject_times), tuple(reference_times))


def rates(count: int, seconds: tuple[float, ...]) -> tuple[float, ...]:
    """Events per second for each repetition."""
    return tuple(count / s for s in seconds)


def median(values: tuple[float, ...]) -> float:
    """The median of the repetitions (robust to one slow repetition on a shared machine)."""
    return float(statistics.median(values))


def rate_row(
    *,
    name: str,
    count: int,
    times: Paired,
    reference_name: str,
    goal: Goal | None,
    notes: str = "",
    extra: dict[str, Figure] | None = None,
) -> Row:
    """A throughput row (events/s) from paired timings of ``count`` events."""
    subject_rates = rates(count, times.subject)
    reference_rates = rates(count, times.reference)
    return Row(
        name=name,
        unit="events/s",
        value=median(subject_rates),
        reference_name=reference_name,
        reference=median(reference_rates),
        goal=goal,
        samples=subject_rates,
        reference_samples=reference_rates,
        notes=notes,
        extra=dict(extra or {}),
    )
