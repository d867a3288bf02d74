"""The "kafka latency" row's contenders as child processes (`bench.kafka_latency`): the worker
(``python -m streams.scaleout.worker``, of this tree or a baseline revision's) with the options a
setting names, or the plain relay (`bench.kafka_relay`), each started on a deployment of its own
and waited for until its group gave it its partitions (its log says ``ready``)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from bench.common import EXAMPLE_CONFIG, REPO
from bench.kafka_host import thread_waits
from bench.kafka_parts import Deployment
from streams.adapters.kafka.phases import PHASES_ENV

READY_TIMEOUT_S = 60.0


@dataclass(frozen=True, slots=True)
class Contender:
    """A worker with ``options`` (of the code in ``tree``), or with ``relay`` the plain relay."""

    name: str
    options: tuple[str, ...] = ()
    tree: Path = REPO
    relay: bool = False


def command(bootstrap: str, deployment: Deployment, contender: Contender) -> list[str]:
    """The contender's child process: the worker, or the relay from table-events to the
    deployment's plain output topic (with the worker's batch cap and commit interval)."""
    names = deployment.names
    if contender.relay:
        relay = [sys.executable, "-m", "bench.kafka_relay", "--bootstrap", bootstrap]
        relay += ["--source", names.table_events, "--target", deployment.plain_out]
        return [*relay, "--group", f"{names.prefix}-relay", *contender.options]
    worker = [sys.executable, "-m", "streams.scaleout.worker", "--bootstrap", bootstrap]
    worker += ["--prefix", names.prefix, "--config", str(EXAMPLE_CONFIG), "--loglevel", "info"]
    return [*worker, *contender.options]


def start_child(argv: list[str], log: Path, tree: Path = REPO) -> subprocess.Popen[bytes]:
    """The contender's child, once its log says its source partitions are ready; a worker
    writes its batches' phases next to ``log`` (`streams.adapters.kafka.phases`; a baseline
    revision without them ignores the variable)."""
    with log.open("wb") as out:
        process = subprocess.Popen(  # noqa: S603 - our own interpreter and modules
            argv,
            cwd=tree,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, PHASES_ENV: str(log.with_suffix(".phases"))},
        )
    deadline = time.monotonic() + READY_TIMEOUT_S
    while log.read_text(errors="replace").count("ready ") < 1:
        if time.monotonic() > deadline or process.poll() is not None:
            process.kill()
            msg = f"the child did not get ready: {log.read_text(errors='replace')[-2000:]}"
            raise RuntimeError(msg)
        time.sleep(0.1)
    time.sleep(1.0)  # both topics' partitions assigned and restored (one rebalance)
    return process


def cpu_pressure_s() -> float | None:
    """Seconds so far during which some runnable task of the host waited for a CPU (PSI,
    ``/proc/pressure/cpu``, "some ... total="); None without PSI."""
    try:
        first = Path("/proc/pressure/cpu").read_text().splitlines()[0]
    except (OSError, IndexError):
        return None
    return int(first.rsplit("total=", 1)[1]) / 1e6


Marks = tuple[float, dict[str, float] | None, float | None]


def waits(pid: int) -> Marks:
    """Now (monotonic), the run-queue wait of each thread of ``pid`` (`thread_waits`) and
    `cpu_pressure_s`: `starved`'s marks."""
    return time.monotonic(), thread_waits(pid), cpu_pressure_s()


def starved(before: Marks, after: Marks) -> dict[str, float]:
    """Per second of the run: ``child_runq_wait_ms``, how long the contender's threads waited
    for a CPU (summed over them), and ``host_cpu_pressure``, the share of the time some task of
    the host did (PSI "some"): on 2 shared cores a contender's p99 follows these more than its
    code (bench/PROPOSALS.md, issue 13, branch ``k13-s23``). Those unreadable are left out."""
    span = after[0] - before[0]
    if span <= 0:
        return {}
    figures: dict[str, float] = {}
    start, end = before[1], after[1]
    if start is not None and end is not None:  # thread by thread: one that ended is left out
        waited = sum(wait - start.get(thread, 0.0) for thread, wait in end.items())
        figures["child_runq_wait_ms"] = round(1000.0 * waited / span, 3)
    if before[2] is not None and after[2] is not None:
        figures["host_cpu_pressure"] = round((after[2] - before[2]) / span, 3)
    return figures
