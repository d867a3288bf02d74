"""Rows "replay" and "restart from snapshot": rebuilding state from a durable log.

The log is what the embedded engine writes (`streams.codec.encode`, `record_key`, dedupe
ids), but
built directly (the simulated stream through `controller.floor.run`, appended in chunks), which is
far quicker than ingesting it through the engine. A snapshot is saved about ``snapshot_tail``
events before the head. Building a million-event log takes minutes, so the file is cached under
``.cache/bench/``, keyed by its size, seed and a digest of the code that decides its content.

replay: `streams.codec.fold_log` over the whole log (a clean rebuild, no snapshot), on the core's
fast path (`controller.fast.Session.apply`). Reference: reading the same log without applying it
(`SqliteLog.read`). Also in the same run: the readable reference fold
(`streams.codec.fold_log_by_reference`: `evolve_many` over chunks of 1,000 decoded records), and
reading with the replay's struct reader alone (`streams.codec.records`, no apply).
restart: a new `EmbeddedController` on the log, ``start`` returning (snapshot loaded, tail folded).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable

import msgspec

from bench import workload
from bench.common import (
    EXAMPLE_CONFIG,
    Figure,
    Goal,
    Row,
    Settings,
    median,
    paired,
    rate_row,
    rates,
    stopwatch,
)
from controller.config.floor import forget_logged_configs
from controller.floor import run
from controller.model.state import FloorState
from controller.model.table_events import TableEventBase, from_contract
from streams.adapters.sqlite import SqliteLog
from streams.codec import decode, encode, fold_log, fold_log_by_reference, record_key, records
from streams.embedded.engine import EmbeddedController
from streams.embedded.snapshot import encode_snapshot
from streams.ports import LogRecord

#: Snapshots are trusted only with a key (issue 15); a fixed one for the benchmark's own files.
BENCH_KEY = bytes(32)

REPLAY_GOAL = Goal(
    text=">= 250,000 records/s and >= 1/2 of read-only", at_least=250_000, ratio_at_least=0.5
)
RESTART_GOAL = Goal(text="< 1 s back in service", at_most=1.0)
TEN_MILLION = 10_000_000


def _snapshot_blob(state: FloorState) -> bytes:
    # As `EmbeddedController.snapshot` writes it.
    return encode_snapshot(state)


def build_log(settings: Settings) -> str:
    """The path of a log of at least ``replay_events`` records with a snapshot near its head."""
    text, config = workload.example_floor()
    size, tail = settings.replay_events, settings.snapshot_tail
    key = workload.source_digest(text, f"{size}/{tail}/{settings.seed}")
    path = workload.cache_path(settings.cache_dir, f"replay-{size}-{key}.db")
    if path.exists():
        return str(path)
    for stale in path.parent.glob(f"replay-{size}-*"):  # logs built by older code
        stale.unlink()
    building = path.with_suffix(".tmp")
    log = SqliteLog(building, snapshot_key=BENCH_KEY)
    try:
        state, produced = run([workload.activation(text)])
        position = log.append([LogRecord(record_key(e), encode(e)) for e in produced])
        snapshot_at, snapped = size - tail, False
        chunk = max(10, min(1_000, tail // 4))
        source = workload.stream(config, settings.seed)
        while position < size:
            commands = [from_contract(raw) for raw in itertools.islice(source, chunk)]
            state, produced = run(commands, state)
            records = [
                LogRecord(
                    record_key(e),
                    encode(e),
                    e.event_id if isinstance(e, TableEventBase) else "",
                )
                for e in produced
            ]
            position = log.append(records)
            if not snapped and position >= snapshot_at:
                log.save(position, _snapshot_blob(state))
                snapped = True
    finally:
        log.close()
    building.rename(path)
    return str(path)


def _timed_on(path: str, work: Callable[[SqliteLog], object]) -> float:
    """Seconds ``work`` takes over the log at ``path``, opened for it and closed after."""
    log = SqliteLog(path, snapshot_key=BENCH_KEY)
    try:
        return stopwatch(lambda: work(log))
    finally:
        log.close()


def _read_all(log: SqliteLog) -> int:
    return sum(1 for _ in log.read())


def _decode_all(log: SqliteLog) -> None:
    for record in log.read():
        decode(record.payload)


def _structs_all(log: SqliteLog) -> None:
    """Reading and the replay's struct reader alone (no apply): with read-only and the fold, the
    row shows where a record's time goes (read, decode, apply)."""
    read_record = records.read_record
    for record in log.read():
        try:
            read_record(record.payload)
        except msgspec.DecodeError:  # not a hot record: the fold reads it by `decode`
            decode(record.payload)


def _restart(path: str, text: str) -> tuple[float, int, int]:
    """Seconds from opening the log to ``start`` returning; the log head and the snapshot's
    position (the tail folded is their difference)."""
    forget_logged_configs()  # a restart is a new process: nothing parsed yet
    started = time.perf_counter()
    log = SqliteLog(path, snapshot_key=BENCH_KEY)
    try:
        controller = EmbeddedController(log, log)
        outcome = controller.start(text, str(EXAMPLE_CONFIG))
        seconds = time.perf_counter() - started
        latest = log.latest()
        if outcome.status != "duplicate" or controller.position != log.head() or latest is None:
            msg = f"restart did not resume the cached log ({outcome}, {controller.restore_note})"
            raise RuntimeError(msg)
        return seconds, log.head(), latest[0]
    finally:
        log.close()


def run_rows(settings: Settings) -> list[Row]:
    """The replay and restart rows."""
    started = time.perf_counter()
    path = build_log(settings)
    prepared = time.perf_counter() - started
    text = workload.example_text()
    probe = SqliteLog(path, snapshot_key=BENCH_KEY)
    count = probe.head()
    probe.close()
    times = paired(
        lambda: _timed_on(path, fold_log),
        lambda: _timed_on(path, _read_all),
        settings.replay_repeats,
    )
    rate = median(rates(count, times.subject))
    decode_rate = count / _timed_on(path, _decode_all)
    struct_rate = count / _timed_on(path, _structs_all)
    reference_rate = count / _timed_on(path, fold_log_by_reference)
    extrapolated = count < TEN_MILLION
    replay = rate_row(
        name="replay",
        count=count,
        times=times,
        reference_name="read only (SqliteLog.read)",
        goal=REPLAY_GOAL,
        notes=(
            f"fold_log over {count:,} records; 10M figure "
            + (
                "extrapolated linearly (state size does not grow with the log)"
                if extrapolated
                else "measured"
            )
        ),
        extra={
            "records": count,
            "read_decode_only_events_per_s": round(decode_rate),
            "read_struct_decode_only_records_per_s": round(struct_rate),
            "reference_fold_records_per_s": round(reference_rate),
            "fast_over_reference": round(rate / reference_rate, 2),
            "seconds_for_10M": round(TEN_MILLION / rate, 1),
            "seconds_for_10M_extrapolated": extrapolated,
            "log_prepare_seconds": round(prepared, 1),
        },
    )
    restarts = [_restart(path, text) for _ in range(settings.repeats)]
    seconds = tuple(r[0] for r in restarts)
    head, snapshot_position = restarts[0][1], restarts[0][2]
    extra: dict[str, Figure] = {
        "tail_events": head - snapshot_position,
        "snapshot_position": snapshot_position,
        "full_replay_seconds": round(count / rate, 2),
    }
    restart = Row(
        name="restart from snapshot",
        unit="s",
        value=median(seconds),
        goal=RESTART_GOAL,
        samples=seconds,
        notes="EmbeddedController.start: snapshot near the head + fold of the tail",
        extra=extra,
    )
    return [replay, restart]
