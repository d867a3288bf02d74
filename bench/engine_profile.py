"""The "embedded engine" row's subject and reference, one at a time, for an instruction profiler.

Wall figures on a shared host move by ±20% between runs of identical code, so the engine's
steps are judged by instructions (bench/PROPOSALS.md). This runs one of three workloads over
the first ``N`` lines of the bench's stream, in the row's 500-line batches: ``sqlite`` (the
engine over a fresh `SqliteLog`, as the row), ``null`` (the engine over a log that only
counts: its processing alone) or ``append`` (the row's reference: the lines appended with no
processing). It runs the workload once to warm the process (imports, caches, the native
extension's kept strings), then calls `os.getppid` just before and just after the measured
run, so a profiler told to dump there keeps the measured run alone, and ends with `os._exit`
(no interpreter shutdown in the last part)::

    PYTHONHASHSEED=0 valgrind --tool=callgrind --dump-before=os_getppid \\
        .venv/bin/python -m bench.engine_profile 3000 null

The second dump (``callgrind.out.PID.2``) is the measured run: its total over ``N`` is the
instructions an event. The SHA-256 of the log's chain runs OpenSSL's generic code under
valgrind (no SHA-NI), so the log side weighs more there than on the processor.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Final

from bench import workload
from bench.common import EXAMPLE_CONFIG
from bench.engine_ceiling import _Null
from streams.adapters.memory import MemoryLog
from streams.adapters.sqlite import SqliteLog
from streams.embedded.engine import EmbeddedController
from streams.ports import LogRecord
from streams.process import settle_gc

MODES: Final = ("sqlite", "null", "append")
BATCH: Final = 500
SEED: Final = 20261129


def lines_of(count: int) -> list[bytes]:
    """The first ``count`` lines of the bench's stream (the engine row's input)."""
    _, config = workload.example_floor()
    return [workload.to_line(raw) for raw in workload.events(config, count, SEED)]


def prepared(mode: str, lines: list[bytes], folder: Path, name: str) -> Callable[[], None]:
    """One run of ``mode`` over ``lines``, set up (a fresh log, an engine started) but not
    yet run: what is called between the two markers."""
    if mode not in MODES:
        raise ValueError(f"mode {mode!r}: one of {', '.join(MODES)}")
    batches = [lines[start : start + BATCH] for start in range(0, len(lines), BATCH)]
    if mode == "append":
        return _appends(SqliteLog(folder / f"{name}.db"), batches)
    log: MemoryLog | SqliteLog = _Null() if mode == "null" else SqliteLog(folder / f"{name}.db")
    controller = EmbeddedController(log, log)
    controller.start(workload.example_floor()[0], str(EXAMPLE_CONFIG))

    def run() -> None:
        for batch in batches:
            controller.submit_lines(batch)

    return run


def reference_batches(batches: list[list[bytes]]) -> list[list[LogRecord]]:
    """The row's reference records: each line as it is, keyed by its table, its event id the
    dedupe id, in the same batches."""
    return [
        [LogRecord(str(raw["table_id"]), line, str(raw["event_id"])) for line, raw in pairs]
        for pairs in ([(line, json.loads(line)) for line in batch] for batch in batches)
    ]


def _appends(log: SqliteLog, batches: list[list[bytes]]) -> Callable[[], None]:
    """The row's reference: `reference_batches` appended."""
    records = reference_batches(batches)

    def run() -> None:
        for batch in records:
            log.append(batch)

    return run


def main(count: int, mode: str) -> None:
    """Warm once, then the measured run between two `os.getppid` markers."""
    lines = lines_of(count)
    folder = Path(tempfile.mkdtemp(prefix="engine-profile-"))
    settle_gc()  # the engines' process setting, as the row runs
    prepared(mode, lines, folder, "warm")()
    measured = prepared(mode, lines, folder, "measured")
    os.getppid()  # marker: the measured run starts
    measured()
    os.getppid()  # marker: the measured run ended


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
    sys.stdout.flush()
    os._exit(0)  # no interpreter shutdown in the profile's last part
