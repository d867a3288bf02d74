"""The input every benchmark shares: a simulated floor's table events, as dicts and as JSON lines.

Events come from `streams.sim.floor.FloorSimulator` over the tables of
``examples/pa-three-card-poker.toml`` (`streams.cli.simulate.sim_tables`), dealt by
``random.Random(seed)``, so a run is repeatable. Rounds are voided at 1% instead of the simulator's
realistic 0.2%, so that even a short run carries all six event types.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.common import EXAMPLE_CONFIG, REPO
from controller.config.floor import FloorConfig, load_floor_config
from controller.floor import run
from controller.model.commands import ActivateConfig
from controller.model.events import Event
from controller.model.state import FloorState
from controller.model.table_events import TableEventBase
from streams.cli.simulate import sim_tables
from streams.codec import encode, record_key
from streams.ports import LogRecord
from streams.sim.floor import FloorSimulator, SimTable

START = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
VOID_RATE = 0.01
CONFIG_TIME = "2026-11-29T11:59:00Z"
EVENT_TYPES = (
    "round_opened",
    "wager_placed",
    "wagers_locked",
    "decision",
    "round_settled",
    "round_voided",
)


def example_text() -> str:
    """The example floor's TOML."""
    return EXAMPLE_CONFIG.read_text(encoding="utf-8")


def simulator(tables: list[SimTable], seed: int) -> FloorSimulator:
    """A repeatable simulator of ``tables``."""
    rng = random.Random(seed)  # noqa: S311 - a repeatable benchmark input, not a shuffle for play
    return FloorSimulator(tables, rng, START, void_rate=VOID_RATE)


def stream(config: FloorConfig, seed: int) -> Iterator[dict[str, Any]]:
    """An endless stream of the floor's table events (the simulator's dicts)."""
    sim = simulator(sim_tables(config), seed)
    while True:
        yield from sim.events(10_000)


def events(config: FloorConfig, count: int, seed: int) -> list[dict[str, Any]]:
    """``count`` table events of the floor."""
    return list(simulator(sim_tables(config), seed).events(count))


def to_line(event: dict[str, Any]) -> bytes:
    """One JSON line as `streams.sim.floor.write_jsonl` writes it (compact, sorted keys)."""
    return json.dumps(event, sort_keys=True, separators=(",", ":")).encode()


def activation(text: str, source: str = str(EXAMPLE_CONFIG)) -> ActivateConfig:
    """The command that activates ``text``."""
    return ActivateConfig(
        command_id="bench-config", source=source, text=text, by="bench", occurred_at=CONFIG_TIME
    )


def activated(text: str) -> FloorState:
    """The floor state right after ``text`` is activated (meters seeded, no table event yet)."""
    state, _ = run([activation(text)])
    if state.config is None:
        msg = "the benchmark floor configuration was refused"
        raise RuntimeError(msg)
    return state


def example_floor() -> tuple[str, FloorConfig]:
    """The example floor's text and configuration."""
    text = example_text()
    return text, load_floor_config(text, str(EXAMPLE_CONFIG))


def log_records(events: Sequence[Event]) -> list[LogRecord]:
    """Events as the embedded engine appends them (its encoding, keys and dedupe ids)."""
    return [
        LogRecord(record_key(e), encode(e), e.event_id if isinstance(e, TableEventBase) else "")
        for e in events
    ]


def source_digest(*parts: str) -> str:
    """A short digest of the code a cached input depends on and the given parts, so a cache built
    by older code (another log encoding, another simulator) is never reused."""
    digest = hashlib.sha256()
    for path in _input_code():
        digest.update(path.relative_to(REPO).as_posix().encode())
        digest.update(path.read_bytes())
    for part in parts:
        digest.update(part.encode())
    return digest.hexdigest()[:16]


def _input_code() -> list[Path]:
    """The modules that decide what a generated log holds: the core, the encoding, the simulator."""
    streams = REPO / "streams"
    edge = [streams / "embedded" / "engine.py", streams / "embedded" / "snapshot.py"]
    edge.append(streams / "cli" / "simulate.py")
    edge += (streams / "sim").glob("*.py")
    return sorted({*(REPO / "controller").rglob("*.py"), *edge})


def cache_path(cache_dir: Path, name: str) -> Path:
    """A file in the benchmark cache (``.cache/bench``, git-ignored)."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    return cache_dir / name
