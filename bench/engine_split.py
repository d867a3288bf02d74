"""Where the "embedded engine" row's CPU goes, by thread time: a measurement only (issue 14).

The row compares the engine (processing and the appends of its own records, interleaved batch
by batch) with the reference (the lines appended alone). This runs, on the row's workload (the
bench's stream, 500-line batches), each of these in turn, the order rotating each repetition:

- ``null``: the engine over a log that only counts (its processing alone);
- ``full``: the engine over a fresh `SqliteLog`, as the row runs it, its thread time split into
  the appends (``append``, timed inside `SqliteLog.append`) and the rest (``decide``);
- ``own``: the engine's own batches (recorded once from a memory log) appended alone;
- ``reference``: the row's reference (each line appended as it is);
- ``flushed`` (with ``--flush MB``): the null engine with that many MB copied between its
  batches (not counted): its processing when its working set is out of the caches.

``full`` less ``null`` less ``own`` is what deciding and appending cost only when they
interleave (k14-s26, k14-s28: the decide side's, no instructions). Run::

    flock /tmp/wall.lock env PYTHONPATH=$PWD .venv/bin/python -m bench.engine_split 20000 9 8
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bench import workload
from bench.engine_ceiling import BATCH, Batches, _engine, _Null, _Recorder
from bench.engine_profile import lines_of, reference_batches
from streams.adapters.sqlite import SqliteLog
from streams.ports import LogRecord
from streams.process import settle_gc

Run = Callable[[], tuple[float, float]]
"""One repetition: its thread seconds outside the appends and inside them."""


class _TimedLog(SqliteLog):
    """A `SqliteLog` that adds up the thread time spent in its appends."""

    spent = 0.0

    def append(self, batch: Sequence[LogRecord]) -> int:
        started = time.thread_time()
        try:
            return super().append(batch)
        finally:
            self.spent += time.thread_time() - started


def _engine_run(text: str, batches: list[list[bytes]], make: Callable[[], _TimedLog | None]) -> Run:
    """The engine over ``make()``'s log (None: the null log)."""

    def run() -> tuple[float, float]:
        log = make()
        controller = _engine(_Null() if log is None else log, text)
        started = time.thread_time()
        for batch in batches:
            controller.submit_lines(batch)
        spent = time.thread_time() - started
        appends = 0.0 if log is None else log.spent
        if log is not None:
            log.close()
        return spent - appends, appends

    return run


def _append_run(batches: Batches, make: Callable[[], SqliteLog]) -> Run:
    def run() -> tuple[float, float]:
        log = make()
        started = time.thread_time()
        for batch in batches:
            log.append(batch)
        spent = time.thread_time() - started
        log.close()
        return 0.0, spent

    return run


def _flushed_run(text: str, batches: list[list[bytes]], megabytes: int) -> Run:
    """The null engine, ``megabytes`` copied between its batches (not counted)."""
    source, target = bytes(megabytes << 20), bytearray(megabytes << 20)

    def run() -> tuple[float, float]:
        controller = _engine(_Null(), text)
        spent = 0.0
        for batch in batches:
            target[:] = source
            started = time.thread_time()
            controller.submit_lines(batch)
            spent += time.thread_time() - started
        return spent, 0.0

    return run


def runs_of(lines: list[bytes], folder: Path, flush: int = 0) -> dict[str, Run]:
    """The measured runs over ``lines`` (each repetition on a fresh database in ``folder``)."""
    text = workload.example_floor()[0]
    batches = [lines[start : start + BATCH] for start in range(0, len(lines), BATCH)]
    recorder = _Recorder()
    controller = _engine(recorder, text)
    recorder.batches = []
    for batch in batches:
        controller.submit_lines(batch)
    reference = reference_batches(batches)
    made = iter(range(1 << 30))

    def fresh() -> _TimedLog:
        return _TimedLog(folder / f"{next(made)}.db")

    runs = {
        "null": _engine_run(text, batches, lambda: None),
        "full": _engine_run(text, batches, fresh),
        "own": _append_run(recorder.batches, fresh),
        "reference": _append_run(reference, fresh),
    }
    if flush:
        runs["flushed"] = _flushed_run(text, batches, flush)
    return runs


def measure(runs: dict[str, Run], repeats: int) -> dict[str, list[tuple[float, float]]]:
    """Each run ``repeats`` times, the order rotating each repetition."""
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
    names = list(runs)
    for repetition in range(repeats):
        start = repetition % len(names)
        for name in names[start:] + names[:start]:
            times[name].append(runs[name]())
    return times


def report(times: dict[str, list[tuple[float, float]]], count: int) -> dict[str, float]:
    """Medians in µs an event: each run's total, and the full engine's two sides."""

    def mid(values: list[float]) -> float:
        return sorted(values)[len(values) // 2] / count * 1e6

    out = {name: mid([a + b for a, b in pairs]) for name, pairs in times.items()}
    out["full decide"] = mid([a for a, _ in times["full"]])
    out["full append"] = mid([b for _, b in times["full"]])
    out["interleave"] = out["full"] - out["null"] - out["own"]
    out["cpu_ratio"] = out["reference"] / out["full"]
    return out


def main(count: int, repeats: int, flush: int) -> None:
    lines = lines_of(count)
    settle_gc()  # the engines' process setting, as the row runs
    with tempfile.TemporaryDirectory(prefix="engine-split-") as folder:
        figures = report(measure(runs_of(lines, Path(folder), flush), repeats), count)
    print("  ".join(f"{name} {value:.3f}" for name, value in figures.items()))


if __name__ == "__main__":
    arguments = [int(value) for value in sys.argv[1:]]
    main(*(arguments + [20_000, 9, 0][len(arguments) :]))
