"""Row "scale": 10,000 tables and 1,000 meters in one process, and what each costs in memory.

The floor is generated: the example's policy and progressives, then ``meters / 4`` groups of the
four Three Card Poker meters, and tables linked round-robin to the groups. It runs in a child
process (``python -m bench.scale``) so its resident set is its own:

1. untraced: activate the configuration, play one round at every table through the core (its
   events appended to a SQLite log, as the embedded engine writes them); the peak RSS is the
   figure checked against the 1 GB goal; also the snapshot's size and load time, and a restart
   (`EmbeddedController.start` on that log with the snapshot at its head, the second row), then
   the full check `jackpot serve` runs in the background after it (seconds, peak RSS after).
2. traced (`tracemalloc`): activation at the full table count and at a tenth of it, so bytes per
   table (configuration share) and per meter follow from the difference; then one round at up to
   1,000 tables gives each table's round state.

A run smaller than 10,000 tables (``--quick``) projects the total from the per-table and per-meter
bytes and the process's baseline, and says so.
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import workload
from bench.common import REPO, Goal, Row, Settings, median
from controller.config.floor import forget_logged_configs
from controller.floor import run
from controller.model.state import FloorState
from controller.model.table_events import from_contract
from streams.adapters.sqlite import SqliteLog
from streams.cli.simulate import sim_tables
from streams.embedded.engine import EmbeddedController
from streams.embedded.self_check import run_check
from streams.embedded.snapshot import decode_snapshot, encode_snapshot

#: Snapshots are trusted only with a key (issue 15); a fixed one for the benchmark's own files.
BENCH_KEY = bytes(32)

GOAL = Goal(text="< 1 GB in all (peak RSS)", at_most=1024.0)
RESTART_GOAL = Goal(text="< 1 s back in service", at_most=1.0)
RESTARTS = 3
RESTART_EXTRA = (
    *("snapshot_bytes", "snapshot_load_seconds", "restart_chain_walked"),
    *("peak_rss_before_full_check_mb", "full_check_seconds", "peak_rss_with_full_check_mb"),
)
TARGET_TABLES, TARGET_METERS = 10_000, 1_000
KINDS = (
    ("progressive", "pa-649a12e-A"),
    ("five_card_progressive", "pa-649a12h"),
    ("five_card_hand_bonus", "pa-649a12i"),
    ("five_of_six_progressive", "pa-649a12j"),
)
MB = 1024 * 1024


def big_floor(tables: int, meters: int) -> str:
    """A floor configuration (TOML) of ``tables`` tables and ``meters`` meters (a multiple of 4)."""
    groups = max(1, meters // len(KINDS))
    if tables < groups:
        msg = f"{tables} tables cannot link {meters} meters: at least {groups} tables are needed"
        raise ValueError(msg)
    head = workload.example_text().split("\n[meters.", 1)[0]
    parts = [head, "\n"]
    for group in range(groups):
        for wager, progressive in KINDS:
            parts.append(f'[meters.m{group:04d}-{wager}]\nprogressive = "{progressive}"\n\n')
    for table in range(tables):
        group = table % groups
        links = ", ".join(f'{wager} = "m{group:04d}-{wager}"' for wager, _ in KINDS)
        parts.append(
            f'[tables.t{table:05d}]\ngame = "three_card_poker"\nseats = 7\n'
            f'wager_unit = "1.00"\nmeters = {{ {links} }}\n\n'
        )
    return "".join(parts)


def _rss_mb() -> float:
    with open("/proc/self/statm", encoding="ascii") as statm:
        pages = int(statm.read().split()[1])
    return pages * resource.getpagesize() / MB


def _peak_rss_mb() -> float:
    """This process's peak RSS (VmHWM). Not ``ru_maxrss``: Linux carries that across exec, so a
    child started by a big parent would report the parent's size."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024  # kB
    return 0.0


def _play(
    state: FloorState, tables: int, seed: int, log: SqliteLog | None = None
) -> tuple[FloorState, int, float]:
    """One round at each of the first ``tables`` tables, 100 tables per simulator; the state, the
    events decided and the seconds spent in the core (simulating and appending to ``log`` are not
    counted)."""
    assert state.config is not None
    sims = sim_tables(state.config)[:tables]
    count, seconds = 0, 0.0
    for start in range(0, len(sims), 100):
        simulator = workload.simulator(sims[start : start + 100], seed + start)
        commands = [from_contract(raw) for raw in simulator.rounds(1)]
        began = time.perf_counter()
        state, produced = run(commands, state)
        seconds += time.perf_counter() - began
        count += len(commands)
        if log is not None:
            log.append(workload.log_records(produced))
    return state, count, seconds


def _traced(action: Callable[[], object]) -> tuple[object, int]:
    """What ``action`` returns and the bytes it leaves allocated."""
    gc.collect()
    before = tracemalloc.get_traced_memory()[0]
    kept = action()
    gc.collect()
    return kept, tracemalloc.get_traced_memory()[0] - before


def measure(tables: int, meters: int, seed: int) -> dict[str, Any]:
    """Every figure of the scale row (run in the child process)."""
    text = big_floor(tables, meters)
    out: dict[str, Any] = {"tables": tables, "meters": meters, "rss_baseline_mb": _rss_mb()}
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as folder:
        log = SqliteLog(Path(folder) / "scale.db", snapshot_key=BENCH_KEY)
        try:
            _untraced(text, tables, seed, log, out)
        finally:
            log.close()
        out.update(_restarts(log.path, text))
    gc.collect()
    _traced_figures(text, tables, meters, seed, out)
    return out


def _untraced(text: str, tables: int, seed: int, log: SqliteLog, out: dict[str, Any]) -> None:
    """Activation, one round per table, the peak RSS, and the snapshot saved at the log's head."""
    began = time.perf_counter()
    state, produced = run([workload.activation(text)])
    out["activate_seconds"] = time.perf_counter() - began
    log.append(workload.log_records(produced))
    out["rss_activated_mb"] = _rss_mb()
    state, events, core_seconds = _play(state, tables, seed, log)
    out.update(events=events, core_events_per_s=events / core_seconds)
    out["rss_played_mb"] = _rss_mb()
    out["peak_rss_mb"] = _peak_rss_mb()
    blob = encode_snapshot(state)  # as `EmbeddedController.snapshot` writes it
    began = time.perf_counter()
    decode_snapshot(blob)
    out.update(snapshot_bytes=len(blob), snapshot_load_seconds=time.perf_counter() - began)
    log.save(log.head(), blob)


def _restarts(path: Path, text: str) -> dict[str, Any]:
    """Seconds from opening the log to `EmbeddedController.start` returning, ``RESTARTS`` times
    (the snapshot is at the head: this is the load, the self-check and the configuration check)."""
    samples = []
    for _ in range(RESTARTS):
        gc.collect()
        forget_logged_configs()  # a restart is a new process: nothing parsed yet
        began = time.perf_counter()
        log = SqliteLog(path, snapshot_key=BENCH_KEY)
        try:
            controller = EmbeddedController(log, log)
            outcome = controller.start(text, "bench-scale.toml")
            samples.append(time.perf_counter() - began)
            if outcome.status != "duplicate" or controller.restore_note:
                msg = f"restart did not resume from the snapshot ({outcome})"
                raise RuntimeError(msg)
            walked = controller.restore_walked
        finally:
            log.close()
    out = {"restart_seconds_samples": samples, "restart_chain_walked": walked}
    return {**out, "peak_rss_before_full_check_mb": _peak_rss_mb(), **_full_check(path, text)}


def _full_check(path: Path, text: str) -> dict[str, Any]:
    """The background full check `jackpot serve` starts after the restart (chain from the first
    record, whole refold compared with the served state), timed, with the peak RSS after it."""
    log = SqliteLog(path, snapshot_key=BENCH_KEY)
    try:
        controller = EmbeddedController(log, log)
        controller.start(text, "bench-scale.toml")
        began = time.perf_counter()
        if not run_check(controller, log, threading.Event()):
            msg = f"the full check failed on the benchmark's own log: {controller.full_check}"
            raise RuntimeError(msg)
        seconds = time.perf_counter() - began
    finally:
        log.close()
    return {"full_check_seconds": seconds, "peak_rss_with_full_check_mb": _peak_rss_mb()}


def _traced_figures(text: str, tables: int, meters: int, seed: int, out: dict[str, Any]) -> None:
    """Bytes per table and per meter, from `tracemalloc` (activation at two sizes, rounds)."""
    small_tables = max(meters // len(KINDS), tables // 10)
    small_text = big_floor(small_tables, meters)
    tracemalloc.start()
    _, small = _traced(lambda: workload.activated(small_text))
    full_state, full = _traced(lambda: workload.activated(text))
    assert isinstance(full_state, FloorState)
    played = min(tables, 1_000)
    _, rounds = _traced(lambda: _play(full_state, played, seed))
    tracemalloc.stop()
    per_table_config = (full - small) / (tables - small_tables) if tables > small_tables else 0.0
    per_meter = (small - per_table_config * small_tables) / meters
    out.update(
        bytes_per_table_config=per_table_config,
        bytes_per_table_round=rounds / played,
        bytes_per_table=per_table_config + rounds / played,
        bytes_per_meter=per_meter,
        traced_activated_mb=full / MB,
    )


def run_rows(settings: Settings) -> list[Row]:
    """The scale row, measured in a child process."""
    command = [
        sys.executable,
        "-m",
        "bench.scale",
        f"--tables={settings.scale_tables}",
        f"--meters={settings.scale_meters}",
        f"--seed={settings.seed}",
    ]
    done = subprocess.run(  # noqa: S603 - our own module, with our own interpreter
        command, cwd=REPO, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        msg = f"python -m bench.scale failed ({done.returncode}): {done.stderr[-2000:]}"
        raise RuntimeError(msg)
    figures: dict[str, Any] = json.loads(done.stdout)
    at_target = (settings.scale_tables, settings.scale_meters) == (TARGET_TABLES, TARGET_METERS)
    projected = (
        figures["rss_baseline_mb"]
        + (TARGET_TABLES * figures["bytes_per_table"] + TARGET_METERS * figures["bytes_per_meter"])
        / MB
    )
    value = figures["peak_rss_mb"] if at_target else projected
    notes = (
        f"peak RSS at {settings.scale_tables:,} tables / {settings.scale_meters:,} meters"
        if at_target
        else f"projected to 10,000/1,000 from {settings.scale_tables:,} tables / "
        f"{settings.scale_meters:,} meters (baseline RSS + traced bytes per table and meter)"
    )
    restarts = tuple(float(s) for s in figures.pop("restart_seconds_samples"))
    extra = {key: _round(value) for key, value in figures.items()}
    extra["projected_rss_mb_at_10k_1k"] = _round(projected)
    return [
        Row(
            name="scale: 10k tables, 1k meters",
            unit="MB",
            value=value,
            goal=GOAL,
            samples=(value,),
            notes=notes,
            extra=extra,
        ),
        Row(
            name="restart from snapshot, 10k tables",
            unit="s",
            value=median(restarts),
            goal=RESTART_GOAL,
            samples=restarts,
            notes=(
                f"EmbeddedController.start at {settings.scale_tables:,} tables / "
                f"{settings.scale_meters:,} meters, snapshot at the log's head"
                + ("" if at_target else " (not the target size: no projection)")
            ),
            extra={key: _round(figures[key]) for key in RESTART_EXTRA},
        ),
    ]


def _round(value: Any) -> Any:
    return round(value, 3) if isinstance(value, float) else value


def main(argv: list[str] | None = None) -> int:
    """The child: measure and print the figures as JSON."""
    parser = argparse.ArgumentParser(prog="python -m bench.scale")
    parser.add_argument("--tables", type=int, default=TARGET_TABLES)
    parser.add_argument("--meters", type=int, default=TARGET_METERS)
    parser.add_argument("--seed", type=int, default=20261129)
    args = parser.parse_args(argv)
    print(json.dumps(measure(args.tables, args.meters, args.seed)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
