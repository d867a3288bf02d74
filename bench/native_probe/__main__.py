"""A probe for issue 14's engine goal, not product code: ``python -m bench.native_probe``.

The embedded engine row asks for durable ingest at >= 1/2 of `SqliteLog.append` of one record a
line. By instructions and CPU time (bench/PROPOSALS.md, "The engine goal needs a native hot
path") Python plus mypyc cannot get there: the decode and the session alone cost more than the
whole budget. This probe measures the other design the issue allows, a native hot path: a Rust
extension (``src/lib.rs``, built here with cargo) that parses a round-opened or wager line,
checks it, decides it against its table, writes the payload `streams.codec.encode` writes (the
same bytes, checked), chains it as `streams.adapters.chain.link` does (the same hash, checked) and
inserts it, one SQLite transaction per 500 lines (WAL, synchronous=FULL).

Printed, CPU time per line (``time.thread_time``; the fsync waits are outside it), alternating
in one process: the native ingest against the engine row's reference (`SqliteLog.append` of the
lines, batches of 500), and the processing alone (no SQLite) against the door's struct decode
plus the payload in Python. The probe decides only those two kinds on a toy table state: what
it shows is the cost of the work, not a second implementation of the rules.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from types import ModuleType

from streams.adapters.sqlite import SqliteLog
from streams.door.contract_structs import HeartbeatStruct
from streams.door.fast_decode import try_decode_line
from streams.embedded.lines import _HOT, _struct_payload
from streams.ports import LogRecord

CRATE = Path(__file__).parent
RECEIVED = "2026-12-02T10:00:00.000000Z"
BATCH = 500
PAIRS = 7


def build() -> ModuleType:
    """The extension, built by cargo (release) against this interpreter, loaded from a copy."""
    env = {**os.environ, "PYO3_PYTHON": sys.executable}
    cargo = shutil.which("cargo") or str(Path.home() / ".cargo" / "bin" / "cargo")
    command = [cargo, "build", "--release", "--quiet"]
    subprocess.run(command, cwd=CRATE, env=env, check=True)  # noqa: S603 - cargo, fixed arguments
    folder = Path(tempfile.mkdtemp())
    target = folder / "native_probe.so"
    shutil.copy(CRATE / "target" / "release" / "libnative_probe.so", target)
    spec = importlib.util.spec_from_file_location("native_probe", target)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def floor_lines(tables: int = 50, rounds: int = 40, wagers: int = 14) -> list[bytes]:
    """Rounds opened and wagers placed, as devices send them."""
    lines: list[bytes] = []
    for number in range(rounds):
        for table in range(tables):
            table_id, seq = f"tcp-{table}", number * (wagers + 1)
            head = {"table_id": table_id, "round_id": f"R{number}"}
            opened = {"event_id": f"{table_id}:{seq + 1}", "type": "round_opened", **head,
                      "seq": seq + 1, "occurred_at": "2026-11-29T18:00:01Z",
                      "game": "three_card_poker"}  # fmt: skip
            lines.append(json.dumps(opened, separators=(",", ":")).encode())
            for wager in range(wagers):
                placed = {"event_id": f"{table_id}:{seq + 2 + wager}", "type": "wager_placed",
                          **head, "seq": seq + 2 + wager, "occurred_at": "2026-11-29T18:00:02Z",
                          "seat": 1 + wager % 6, "amount": "5.00",
                          "wager": ("ante", "progressive", "pair_plus")[wager % 3]}  # fmt: skip
                lines.append(json.dumps(placed, separators=(",", ":")).encode())
    return lines


def python_payload(line: bytes) -> LogRecord:
    """The record the engine writes for an accepted hot line (`streams.embedded.lines`)."""
    struct = try_decode_line(line)
    assert struct is not None
    assert not isinstance(struct, HeartbeatStruct)
    plan = _HOT[type(struct)][1]
    return LogRecord(struct.table_id, _struct_payload(struct, plan), struct.event_id, RECEIVED)


def cpu(call: Callable[[], object]) -> float:
    start = time.thread_time()
    call()
    return time.thread_time() - start


def appended(folder: Path, name: str, records: list[LogRecord]) -> tuple[float, bytes]:
    """CPU seconds of `SqliteLog.append` of ``records`` in batches, and the chain it ends on."""
    log = SqliteLog(folder / name)
    try:
        spent = cpu(
            lambda: [log.append(records[i : i + BATCH]) for i in range(0, len(records), BATCH)]
        )
        return spent, log._last  # the probe compares the chain's head
    finally:
        log.close()


def main() -> int:
    native = build()
    lines = floor_lines()
    records = [python_payload(line) for line in lines]
    for line, record in zip(lines, records, strict=True):
        assert native.payload_of(line) == record.payload, line
    folder = Path(tempfile.mkdtemp())
    _, chain = appended(folder, "python.db", records)
    accepted, refused, native_chain = native.ingest(
        str(folder / "native.db"), lines, BATCH, RECEIVED
    )
    assert (accepted, refused, native_chain) == (len(lines), 0, chain), "not Python's log"
    reference = [
        LogRecord(r.key, line, r.dedupe_id, RECEIVED)
        for r, line in zip(records, lines, strict=True)
    ]
    native_s, append_s = [], []
    for pair in range(PAIRS):
        path = str(folder / f"n{pair}.db")
        native_s.append(cpu(partial(native.ingest, path, lines, BATCH, RECEIVED)))
        append_s.append(appended(folder, f"a{pair}.db", reference)[0])
    alone = [cpu(lambda: native.decide_only(lines, RECEIVED)) for _ in range(5)]
    python = [cpu(lambda: [python_payload(line) for line in lines]) for _ in range(5)]
    per_line = 1e6 / len(lines)
    ratios = sorted(a / n for a, n in zip(append_s, native_s, strict=True))
    print(f"{len(lines):,} lines; CPU us a line, median of {PAIRS} alternating pairs:")
    print(f"  native ingest (parse, check, decide, payload, chain, insert, commit): "
          f"{statistics.median(native_s) * per_line:.2f}")  # fmt: skip
    print(f"  SqliteLog.append of the lines (the engine row's reference): "
          f"{statistics.median(append_s) * per_line:.2f}")  # fmt: skip
    print(f"  native over append-only, per pair: {[round(r, 2) for r in ratios]}")
    print(f"  processing alone: native {statistics.median(alone) * per_line:.2f} (with the chain);"
          f" Python's decode + payload {statistics.median(python) * per_line:.2f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
