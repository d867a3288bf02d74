"""What a Kafka contender cost the host besides its wall time: its own CPU, the broker's CPU
and the time its threads waited for a CPU, each read from ``/proc`` at the contender's first
output and at its last (`bench.kafka_parts.time_child`).

Why the broker's: the row's ratio is wall throughput on 2 shared cores, and the broker is
on them too. Measured side by side on a warm broker (issue 13, branch ``k13-s27``): the plain
transactional loop used 3-5 µs of its own CPU an event and the broker 6-14 µs during it; the
worker 23-37 µs and the broker 16-52 µs during it. The broker's share was ~0.45 of a core in
every run whatever the rate, so a slower contender is charged more broker CPU an event: the
figures say where the host's CPU went, not what each record costs the broker alone.

The broker is found by ``BENCH_KAFKA_BROKER_PID`` or, as ``scripts/kafka.sh`` keeps it, by
``$KAFKA_RUN_DIR/kafka.pid``; without either the broker's figures are left out.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

BROKER_PID_ENV = "BENCH_KAFKA_BROKER_PID"


def cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system) process ``pid`` used so far; None where /proc is missing.

    On a shared machine CPU time per event is steadier than wall time: a neighbour's load
    stretches the wall clock of a runnable process, not the CPU it uses.
    """
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_queue_wait_s(pid: int) -> float | None:
    """Seconds the threads of process ``pid`` spent so far runnable but waiting for a CPU
    (``/proc/<pid>/task/*/schedstat``, the second field); None where it is unreadable.

    Beside a contender's latency it tells a starved process from a slow one: on this 2-core host
    the worker's threads waited 3-12 s for a CPU per 12 s run (issue 13, branch ``k13-s23``)."""
    waits = thread_waits(pid)
    return None if waits is None else sum(waits.values())


def thread_waits(pid: int) -> dict[str, float] | None:
    """`run_queue_wait_s` per thread of ``pid`` (by thread id): two readings are compared
    thread by thread (`spent`), since a thread that ends takes its wait out of the sum."""
    waits: dict[str, float] = {}
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return None
    for task in tasks:
        try:
            waits[task.name] = int((task / "schedstat").read_text().split()[1]) / 1e9
        except (OSError, IndexError, ValueError):
            continue  # a thread that ended meanwhile
    return waits


def broker_pid() -> int | None:
    """The local broker's process id (module docstring), or None."""
    named = os.environ.get(BROKER_PID_ENV, "").strip()
    run_dir = os.environ.get("KAFKA_RUN_DIR", "").strip()
    if not named and run_dir:
        with_file = Path(run_dir) / "kafka.pid"
        named = with_file.read_text().strip() if with_file.is_file() else ""
    return int(named) if named.isdigit() else None


@dataclass(frozen=True, slots=True)
class Mark:
    """A contender's costs so far, each None where unreadable."""

    cpu: float | None
    broker_cpu: float | None
    runq: dict[str, float] | None  # by thread
    at: float  # monotonic


def mark(pid: int, broker: int | None) -> Mark:
    """The costs of child ``pid`` (and of ``broker``) so far."""
    broker_cpu = None if broker is None else cpu_seconds(broker)
    return Mark(cpu_seconds(pid), broker_cpu, thread_waits(pid), time.monotonic())


def spent(first: Mark | None, last: Mark | None, name: str) -> float | None:
    """``last``'s figure ``name`` less ``first``'s; None if either is missing. The run-queue
    wait (``runq``) thread by thread: a thread that ended meanwhile is left out (its wait
    since ``first`` with it: the figure errs low, never below 0), one that began counts whole."""
    if first is None or last is None:
        return None
    start, end = getattr(first, name), getattr(last, name)
    if start is None or end is None:
        return None
    if isinstance(end, dict):
        return float(sum(wait - start.get(thread, 0.0) for thread, wait in end.items()))
    return float(end - start)
