"""Row "kafka latency": wagers_locked in -> its meter events visible to a ``read_committed``
reader, one worker, at a steady 2,000 events/s.

Subject: one ``python -m streams.scaleout.worker`` process over a fresh prefix (6 table-events
partitions, the configuration recorded and every meter seeded), started and given time to join
its group and restore. A pacing thread produces the simulated floor's events
(`bench.latency.paced_events`: hit hands forced now and then) with the engine's own idempotent
producer (`streams.scaleout.ingest.TableEventProducer`, as devices and ``jackpot kafka ingest``
do) at a steady `RATE`; the main thread reads ``<p>.events`` ``read_committed`` (a group-less
reader assigned at the topic's end, asking the broker to answer a fetch within
`READER_FETCH_WAIT_MS`) and decodes every meter event.

Measured from each ``wagers_locked``'s *scheduled* send time (a sender that falls behind is
charged, no coordinated omission) until every ``ContributionRecorded`` of that round (as many as
the embedded engine records for the same input) has been read: the path crosses both lanes and
two transactions (table-events -> round lane -> meter-claims, committed -> meter lane ->
events, committed). The first `WARMUP_S` of sends are not counted.

The worker runs once per setting in `SETTINGS` (its command-line options; the first is the
worker's defaults), side by side in one run on deployments of their own, so the commit interval
that reaches the goal is reported next to the default's. The row's value is the default's p99;
each setting's p50/p99/max are in the details, and where the time goes: the reader also reads
``<p>.meter-claims`` ``read_committed``, so each round's latency splits into four stages (p50
and p99 of each, by the records' CreateTimes, the last of the round's records each time):
``to_claim`` (send -> the round lane produces its claims: ingest, the worker's fetch, its wait
for the batch in progress, deciding), ``claim_commit`` (-> claims visible: the round lane's
commit, the fetch), ``to_contribution`` (-> the meter lane produces the contributions) and
``contribution_commit`` (-> read: the meter lane's commit, the reader's fetch). A worker that
applies claims locally (`streams.scaleout.local_apply`: it owns every meter here) writes no
claim, so its round is one transaction and these stages are absent for it. The worker
writes its batches' phases (`streams.adapters.kafka.phases`), summed up in the details as
``<setting>_worker_*`` (`bench.kafka_phases`: take, decide, wait for the previous commit, produce,
``send_offsets_to_transaction``, commit, the claims' pickup by the meter lane, records per
batch); ``<setting>_send_late_p99_ms`` is the pacer's own lateness and ``<setting>_load_1m`` the
host's load average after the run: a latency read with neither is hard to trust on a shared host.
The pacer and the reader are in `bench.kafka_latency_clock`.

Before the first measured contender an untimed warm-up runs (`warm_up`: the defaults' worker,
`WARMUP_RUN_S` of the same paced input, on a deployment of its own, its figures only shown as
``warmup_p50_ms``/``warmup_p99_ms``): a broker just started is still warming up (its JVM, page
cache, the transaction and group coordinators), and one run measured 301/877 ms p50/p99 for the
first contender and 34/123 ms for the same setting later in the same run; so every setting is
measured on a warm broker. The ``tiny`` mode (a test that the row runs at all) skips it.

With ``BENCH_KAFKA_BASELINE=<git revision>`` (as the ``kafka`` row, `bench.kafka`) that
revision's worker runs too, with its defaults, right after the current defaults: ``baseline
<commit>`` in the details, measured under the same load.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bench.common import EXAMPLE_CONFIG, REPO, Figure, Goal, Mode, Row, Settings
from bench.kafka import BASELINE_ENV, baseline_tree
from bench.kafka_latency_clock import (
    RATE,
    WARMUP_S,
    Clock,
    Pacer,
    Round,
    expected_contributions,
    read_meter_events,
    reader,
)
from bench.kafka_parts import Deployment, bootstrap_or_reason, cpu_seconds
from bench.kafka_phases import phase_figures
from bench.latency import paced_events, percentile
from streams.adapters.kafka.phases import PHASES_ENV
from streams.scaleout.ingest import TableEventProducer

SECONDS: dict[Mode, float] = {"tiny": 3.0, "quick": 6.0, "default": 12.0, "full": 30.0}
READY_TIMEOUT_S = 60.0
GOAL = Goal(text="p99 < 50 ms (wagers_locked -> meter events read_committed)", at_most=50.0)
#: Worker options per contender: the defaults first (``--commit-interval`` 0.01), then intervals
#: around them, the default's own among them: how far two runs of one setting differ is the
#: run's noise.
SETTINGS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("defaults", ()),
    ("commit-interval 0", ("--commit-interval", "0")),
    ("commit-interval 0.005", ("--commit-interval", "0.005")),
    ("commit-interval 0.01", ("--commit-interval", "0.01")),
    ("commit-interval 0.02", ("--commit-interval", "0.02")),
    ("commit-interval 0.05", ("--commit-interval", "0.05")),
)
Contender = tuple[str, tuple[str, ...], Path]  # name, worker options, the code's tree
#: Seconds of paced input the untimed warm-up sends (`warm_up`), longer than the clock's own
#: `WARMUP_S` so that it reaches the steady state the contenders are measured in.
WARMUP_RUN_S = 5.0


def start_worker(
    bootstrap: str, prefix: str, options: Sequence[str], log: Path, tree: Path = REPO
) -> Any:
    """The worker child (of the code in ``tree``), once its log says both source topics'
    partitions are ready; it writes its batches' phases next to ``log``
    (`streams.adapters.kafka.phases`; a baseline revision without them ignores the variable)."""
    import subprocess  # noqa: PLC0415 - only this row spawns

    command = [sys.executable, "-m", "streams.scaleout.worker", "--bootstrap", bootstrap]
    command += ["--prefix", prefix, "--config", str(EXAMPLE_CONFIG), "--loglevel", "info"]
    with log.open("wb") as out:
        process = subprocess.Popen(  # noqa: S603 - our own interpreter and module
            [*command, *options],
            cwd=tree,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, PHASES_ENV: str(log.with_suffix(".phases"))},
        )
    deadline = time.monotonic() + READY_TIMEOUT_S
    while log.read_text(errors="replace").count("ready ") < 1:
        if time.monotonic() > deadline or process.poll() is not None:
            process.kill()
            msg = f"the worker did not get ready: {log.read_text(errors='replace')[-2000:]}"
            raise RuntimeError(msg)
        time.sleep(0.1)
    time.sleep(1.0)  # both topics' partitions assigned and restored (one rebalance)
    return process


@dataclass(frozen=True, slots=True)
class Measured:
    """One setting's run."""

    name: str
    latencies_ms: tuple[float, ...]
    rounds_expected: int
    achieved: float
    cpu_s: float | None  # the worker's CPU time (user + system) while the input was paced
    stages_ms: dict[str, list[float]] = field(default_factory=dict)  # `STAGES`
    send_late_ms: tuple[float, ...] = ()  # the pacer's own lateness per counted round
    phases: dict[str, Figure] = field(default_factory=dict)  # the worker's (`bench.kafka_phases`)
    load: float = float("nan")  # the host's 1-minute load average at the end of the run

    def figure(self, fraction: float) -> float:
        """A quantile of the latencies, in ms (NaN when none)."""
        return round(percentile(self.latencies_ms, fraction), 3)


def measure(
    bootstrap: str,
    raws: Sequence[dict[str, Any]],
    expected: Counter[Round],
    folder: Path,
    contender: Contender,
) -> Measured:
    """One worker with ``options`` on a deployment of its own, paced input, latencies read."""
    name, options, tree = contender
    deployment = Deployment(bootstrap, [], tree)
    process = None
    try:
        slug = name.replace(" ", "-")
        log = folder / f"{slug}.log"
        process = start_worker(bootstrap, deployment.names.prefix, options, log, tree)
        clock = Clock(expected)
        consumer = reader(bootstrap, deployment.names.events, deployment.names.meter_claims)
        producer = TableEventProducer(bootstrap, deployment.names, "bench-latency")
        pacer = Pacer(producer, raws, clock)
        cpu_before = cpu_seconds(process.pid)
        try:
            pacer.start()
            read_meter_events(consumer, clock, pacer, deployment.names.meter_claims)
        finally:
            consumer.close()
        cpu_after = cpu_seconds(process.pid)
        cpu = None if cpu_before is None or cpu_after is None else cpu_after - cpu_before
        counted = sum(
            1 for w, due in clock.due.items() if due >= clock.counted_from and expected[w]
        )
        latencies = tuple(clock.latencies_ms)
        run = Measured(name, latencies, counted, pacer.achieved, cpu, clock.stages_ms)
    finally:
        if process is not None:
            process.terminate()
            process.wait(timeout=30)
        deployment.delete()
    since = clock.counted_from + clock.epoch
    phases = phase_figures(folder.glob(f"{slug}.phases.*"), since)
    late = tuple(clock.late_ms)
    return replace(run, send_late_ms=late, phases=phases, load=round(os.getloadavg()[0], 2))


def warm_up(bootstrap: str, settings: Settings, folder: Path) -> Measured | None:
    """An untimed run of the defaults' worker before the measured ones (module docstring); None
    in the ``tiny`` mode."""
    if settings.mode == "tiny":
        return None
    raws = paced_events(int(RATE * WARMUP_RUN_S), settings.seed + 1)
    contender = ("warmup", (), REPO)
    return measure(bootstrap, raws, expected_contributions(raws), folder, contender)


def baseline(settings: Settings) -> list[Contender]:
    """With ``BENCH_KAFKA_BASELINE=<revision>`` (as `bench.kafka`): that revision's worker with
    its defaults, run right after the current one's defaults (the same load, side by side)."""
    revision = os.environ.get(BASELINE_ENV, "")
    if not revision:
        return []
    commit, tree = baseline_tree(revision, settings.cache_dir)
    return [(f"baseline {commit[:9]}", (), tree)]


def run_rows(settings: Settings) -> list[Row]:
    """The Kafka latency row; none (and a note on stderr) when no broker answers."""
    bootstrap, reason = bootstrap_or_reason()
    if bootstrap is None:
        print(f"bench: skipped kafka latency: {reason}", file=sys.stderr)
        return []
    seconds = SECONDS[settings.mode]
    raws = paced_events(int(RATE * seconds), settings.seed)
    expected = expected_contributions(raws)
    with tempfile.TemporaryDirectory(prefix="bench-kafka-latency-") as folder:
        contenders = [(n, o, REPO) for n, o in SETTINGS[: 1 if settings.mode == "tiny" else None]]
        contenders[1:1] = baseline(settings)
        warm = warm_up(bootstrap, settings, Path(folder))
        runs = [
            measure(bootstrap, raws, expected, Path(folder), contender) for contender in contenders
        ]
    extra: dict[str, Figure] = {"rate_target": RATE, "seconds": seconds, "warmup_s": WARMUP_S}
    if warm is not None:  # untimed: shown only to tell how cold the broker was
        extra |= {"warmup_p50_ms": warm.figure(0.5), "warmup_p99_ms": warm.figure(0.99)}
    for run in runs:
        key = run.name.replace(" ", "_").replace(".", "")
        extra[f"{key}_options"] = " ".join(dict(SETTINGS).get(run.name, ())) or "(defaults)"
        extra[f"{key}_rate_achieved"] = round(run.achieved, 1)
        extra[f"{key}_rounds"] = len(run.latencies_ms)
        extra[f"{key}_rounds_expected"] = run.rounds_expected
        extra[f"{key}_p50_ms"] = run.figure(0.5)
        extra[f"{key}_p99_ms"] = run.figure(0.99)
        extra[f"{key}_max_ms"] = round(max(run.latencies_ms, default=float("nan")), 3)
        for stage, gaps in run.stages_ms.items():
            extra[f"{key}_{stage}_p50_ms"] = round(percentile(gaps, 0.5), 1)
            extra[f"{key}_{stage}_p99_ms"] = round(percentile(gaps, 0.99), 1)
        extra[f"{key}_send_late_p99_ms"] = round(percentile(run.send_late_ms, 0.99), 1)
        extra[f"{key}_load_1m"] = run.load
        for phase, figure in run.phases.items():
            extra[f"{key}_worker_{phase}"] = figure
        if run.cpu_s is not None:  # steadier than latency on a shared machine
            extra[f"{key}_cpu_us_per_event"] = round(1e6 * run.cpu_s / len(raws))
    default = runs[0]
    summary = "; ".join(f"{r.name}: p50 {r.figure(0.5)} / p99 {r.figure(0.99)} ms" for r in runs)
    notes = (
        f"Kafka engine, one worker, steady {RATE} events/s: wagers_locked scheduled send -> all "
        f"its contributions read read_committed on <p>.events (both lanes, two transactions); "
        f"{summary}"
    )
    return [
        Row(
            name="kafka latency",
            unit="ms",
            value=default.figure(0.99),
            goal=GOAL,
            samples=default.latencies_ms if settings.mode == "tiny" else (),
            notes=notes,
            extra=extra,
        )
    ]
