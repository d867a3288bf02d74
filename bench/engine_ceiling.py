"""How far smaller log rows could lift the "embedded engine" row (issue 14): a measurement only.

The row's ratio is the reference's append time over the engine's processing plus its own appends.
Making the shared `SqliteLog.append` cheaper does not lift it (the reference gains the same), so
what is left on the log side is the engine's *own* extra: its heads' ``"schema_version":1`` (the
canonical form it stores, `controller.codec.event_to_dict`; device lines may leave it out, the
door fills it) and the derived records of its rows' tails (~340 B of JSON each, 0.41 an input).

This records the batches the engine appends for the bench's stream, then appends transformed
copies of them to fresh logs, each beside the null-log engine (processing only) and the bench's
reference, alternating within each repetition. A transform costs nothing here (done before the
clock starts), so a figure is a *ceiling*: what a stored form that small could give at best, the
cost of making and reading it not counted. Run::

    flock /tmp/wall.lock env PYTHONPATH=$PWD .venv/bin/python -m bench.engine_ceiling 21
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bench import workload
from bench.common import EXAMPLE_CONFIG
from streams.adapters.memory import MemoryLog
from streams.adapters.sqlite import SqliteLog
from streams.embedded.engine import EmbeddedController
from streams.ports import LogRecord
from streams.process import settle_gc

EVENTS, BATCH = 3_000, 500
_VERSION = b'"schema_version":1,'
Batches = list[list[LogRecord]]


class _Recorder(MemoryLog):
    """A memory log that keeps the batches appended after `arm` (the engine's own, no config)."""

    batches: Batches | None = None

    def append(self, batch: Sequence[LogRecord]) -> int:
        if self.batches is not None:
            self.batches.append(list(batch))
        return super().append(batch)


class _Null(MemoryLog):
    """A log that only counts: the engine's processing alone (the split of the appends)."""

    count = 0

    def append(self, batch: Sequence[LogRecord]) -> int:
        self.count += len(batch)
        return self.count

    def head(self) -> int:
        return self.count


def _engine(log: MemoryLog | SqliteLog, text: str) -> EmbeddedController:
    controller = EmbeddedController(log, log)
    controller.start(text, str(EXAMPLE_CONFIG))
    return controller


def _submit(controller: EmbeddedController, lines: list[bytes]) -> float:
    started = time.perf_counter()
    for start in range(0, len(lines), BATCH):
        controller.submit_lines(lines[start : start + BATCH])
    return time.perf_counter() - started


def _transform(batches: Batches, head: Callable[[bytes], bytes], tail: int | None) -> Batches:
    """Each head's payload through ``head``; tail records cut to ``tail`` bytes, or left out
    (None: the derived records not stored at all, a derive-on-read design's ceiling)."""
    out: Batches = []
    for batch in batches:
        kept = []
        for record in batch:
            if record.dedupe_id:
                kept.append(
                    LogRecord(
                        record.key, head(record.payload), record.dedupe_id, record.received_at
                    )
                )
            elif tail is not None:
                payload = head(record.payload)[:tail] if tail else head(record.payload)
                kept.append(LogRecord(record.key, payload, "", record.received_at))
        out.append(kept)
    return out


def _digested(batches: Batches) -> Batches:
    """Each head's run of tail records as one tail record holding their SHA-256 (a
    derive-on-read design that keeps the derived records chained: one link a row, not one a
    record; computing the digest is not counted, ~0.1 µs an input over the joined JSON)."""
    out: Batches = []
    for batch in batches:
        kept: list[LogRecord] = []
        run: list[LogRecord] = []
        for record in [*batch, LogRecord("", b"", "end")]:
            if record.dedupe_id and run:
                digest = hashlib.sha256(b"".join(item.payload for item in run)).digest()
                kept.append(LogRecord(run[0].key, digest, "", run[0].received_at))
                run = []
            if record.dedupe_id:
                kept.append(record)
            else:
                run.append(record)
        out.append(kept[:-1])
    return out


def _variants(batches: Batches) -> dict[str, Batches]:
    same: Callable[[bytes], bytes] = bytes
    bare: Callable[[bytes], bytes] = lambda payload: payload.replace(_VERSION, b"")  # noqa: E731
    return {
        "engine today": _transform(batches, same, 0),
        "no schema_version": _transform(batches, bare, 0),
        "no schema_version, tails 120 B": _transform(batches, bare, 120),
        "no schema_version, tails 40 B": _transform(batches, bare, 40),
        "tails as one 32-B digest a row": _digested(batches),
        "tails not stored": _transform(batches, same, None),
        "tails not stored, no schema_version": _transform(batches, bare, None),
    }


def _append(path: Path, batches: Batches) -> float:
    log = SqliteLog(path)
    try:
        started = time.perf_counter()
        for batch in batches:
            log.append(batch)
        return time.perf_counter() - started
    finally:
        log.close()


def main(repeats: int) -> None:
    """Print each variant's appends and the ratio it would give (µs an input, medians)."""
    text, config = workload.example_floor()
    lines = [workload.to_line(raw) for raw in workload.events(config, EVENTS, 20261129)]
    reference = [
        [LogRecord(str(raw["table_id"]), line, str(raw["event_id"])) for line, raw in pairs]
        for pairs in _chunks([(line, json.loads(line)) for line in lines])
    ]
    settle_gc()
    recorder = _Recorder()
    controller = _engine(recorder, text)
    recorder.batches = []
    _submit(controller, lines)
    variants = _variants(recorder.batches)
    times: dict[str, list[float]] = {name: [] for name in ("processing", "reference", *variants)}
    with tempfile.TemporaryDirectory(prefix="engine-ceiling-") as folder:
        runs: dict[str, Batches] = {"reference": reference, **variants}
        for run in range(repeats):
            times["processing"].append(_submit(_engine(_Null(), text), lines))
            names = list(runs)
            for name in names[run % len(names) :] + names[: run % len(names)]:  # order rotates
                times[name].append(
                    _append(Path(folder) / f"{len(times[name])}-{name}.db", runs[name])
                )
    _report(times, variants)


def _chunks(
    items: list[tuple[bytes, dict[str, object]]],
) -> list[list[tuple[bytes, dict[str, object]]]]:
    return [items[start : start + BATCH] for start in range(0, len(items), BATCH)]


def _report(times: dict[str, list[float]], variants: dict[str, Batches]) -> None:
    """Medians (and minima, the quietest repetition) in µs an input event."""
    med = {name: sorted(values)[len(values) // 2] / EVENTS * 1e6 for name, values in times.items()}
    low = {name: min(values) / EVENTS * 1e6 for name, values in times.items()}
    print(
        f"processing (null log) {med['processing']:.2f} µs (min {low['processing']:.2f}), "
        f"reference appends {med['reference']:.2f} µs (min {low['reference']:.2f})"
    )
    for name, batches in variants.items():
        size = sum(len(record.payload) for batch in batches for record in batch)
        ratio = med["reference"] / (med["processing"] + med[name])
        best = low["reference"] / (low["processing"] + low[name])
        print(
            f"{name:36} {size:>9,} B  appends {med[name]:.2f} µs (min {low[name]:.2f})  "
            f"ratio {ratio:.3f} (by minima {best:.3f})"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 15)
