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
The pacer and the reader are in `bench.kafka_latency_clock`. Every contender, the relay too,
splits its rounds in two (`HOPS`, ``<setting>_to_output_*`` and ``<setting>_output_visible_*``:
until the round's last output was produced, then until it was read), and says how starved of
CPU it was (``<setting>_child_runq_wait_ms``, ``<setting>_host_cpu_pressure``:
`bench.kafka_latency_child.starved`).

Before the first measured contender an untimed warm-up runs (`warm_up`: the defaults' worker,
`WARMUP_RUN_S` of the same paced input, on a deployment of its own, its figures only shown as
``warmup_p50_ms``/``warmup_p99_ms``): a broker just started is still warming up (its JVM, page
cache, the transaction and group coordinators), and one run measured 301/877 ms p50/p99 for the
first contender and 34/123 ms for the same setting later in the same run; so every setting is
measured on a warm broker. 15 s of it: after 5 s the first contender still measured a higher p99
than the same worker later in the run, even on a broker warm from earlier runs (`WARMUP_RUN_S`).
The ``tiny`` mode (a test that the row runs at all) skips it.

**The reference: what this host allows.** Right after the defaults, the plain transactional relay
(`bench.kafka_relay`, a child process as the worker is) runs on a deployment of its own with the
same paced input: the worker's one hop (table-events -> one transaction with the consumed offsets
-> read_committed), no deciding, one output per input, the worker's client settings, batch cap
and commit interval. Its round is timed the same way (scheduled send -> its ``wagers_locked``
read read_committed, by the reader's clock) and reported as the row's reference
(``plain_relay_*`` in the details): if the relay's own p99 is near the goal, the goal is the
host's, not the worker's. The ``tiny`` mode runs it too.

With ``BENCH_KAFKA_BASELINE=<git revision>`` (as the ``kafka`` row, `bench.kafka`) that
revision's worker runs too, with its defaults, right after the current defaults: ``baseline
<commit>`` in the details, measured under the same load.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import Figure, Goal, Mode, Row, Settings
from bench.kafka import BASELINE_ENV, baseline_tree
from bench.kafka_host import cpu_seconds
from bench.kafka_latency_child import Contender, command, start_child, starved, waits
from bench.kafka_latency_clock import (
    RATE,
    WARMUP_S,
    Clock,
    Pacer,
    Round,
    expected_contributions,
    read_meter_events,
    read_relayed,
    reader,
    relayed,
)
from bench.kafka_parts import Deployment, bootstrap_or_reason
from bench.kafka_phases import phase_figures
from bench.kafka_relay import DEFAULTS as RELAY_DEFAULTS
from bench.latency import paced_events, percentile
from streams.scaleout.ingest import TableEventProducer

SECONDS: dict[Mode, float] = {"tiny": 3.0, "quick": 6.0, "default": 12.0, "full": 30.0}
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
RELAY = "plain relay"
#: Seconds of paced input the untimed warm-up sends (`warm_up`), longer than the clock's own
#: `WARMUP_S` so that it reaches the steady state the contenders are measured in. 5 s was not:
#: the defaults, measured first, had a p99 1.2-1.7x the explicit 0.01's (the same worker, later
#: in the same run) in 5 of 5 runs on a warm broker; after 15 s 0.8x, 1.1x, 1.0x and 0.8x
#: (four runs; bench/PROPOSALS.md, issue 13, branch ``k13-s23``).
WARMUP_RUN_S = 15.0


@dataclass(frozen=True, slots=True)
class Measured:
    """One contender's run."""

    name: str
    latencies_ms: tuple[float, ...]
    rounds_expected: int
    achieved: float
    cpu_s: float | None  # the child's CPU time (user + system) while the input was paced
    stages_ms: dict[str, list[float]] = field(default_factory=dict)  # `STAGES`
    send_late_ms: tuple[float, ...] = ()  # the pacer's own lateness per counted round
    phases: dict[str, Figure] = field(default_factory=dict)  # the worker's (`bench.kafka_phases`)
    load: float = float("nan")  # the host's 1-minute load average at the end of the run
    hops_ms: dict[str, list[float]] = field(default_factory=dict)  # `HOPS`
    starved: dict[str, float] = field(default_factory=dict)  # `starved`, per second paced

    def figure(self, fraction: float) -> float:
        """A quantile of the latencies, in ms (NaN when none)."""
        return round(percentile(self.latencies_ms, fraction), 3)


def paced(
    bootstrap: str, raws: Sequence[dict[str, Any]], clock: Clock, deployment: Deployment, pid: int
) -> tuple[Pacer, float | None, dict[str, float]]:
    """The input paced into ``deployment`` and read back until done, timed by ``clock`` (the
    relay's copies if ``clock.relay``); the child's CPU seconds meanwhile (None if unreadable)
    and how starved of CPU it and the host were (`starved`)."""
    names, relay = deployment.names, clock.relay
    topics = (deployment.plain_out,) if relay else (names.events, names.meter_claims)
    consumer = reader(bootstrap, *topics)
    pacer = Pacer(TableEventProducer(bootstrap, names, "bench-latency"), raws, clock)
    cpu_before, before, after = cpu_seconds(pid), waits(pid), []
    pacer.finished = lambda: after.append(waits(pid))  # the paced input's end, not the drain's
    try:
        pacer.start()
        if relay:
            read_relayed(consumer, clock, pacer)
        else:
            read_meter_events(consumer, clock, pacer, names.meter_claims)
    finally:
        consumer.close()
    cpu_after, hungry = cpu_seconds(pid), starved(before, after[0] if after else waits(pid))
    cpu = None if cpu_before is None or cpu_after is None else cpu_after - cpu_before
    return pacer, cpu, hungry


def measure(
    bootstrap: str,
    raws: Sequence[dict[str, Any]],
    expected: Counter[Round],
    folder: Path,
    contender: Contender,
) -> Measured:
    """One contender on a deployment of its own, paced input, latencies read."""
    deployment = Deployment(bootstrap, [], contender.tree)
    slug = contender.name.replace(" ", "-")
    process = None
    try:
        argv = command(bootstrap, deployment, contender)
        process = start_child(argv, folder / f"{slug}.log", contender.tree)
        clock = Clock(relayed(expected), relay=True) if contender.relay else Clock(expected)
        pacer, cpu, waits = paced(bootstrap, raws, clock, deployment, process.pid)
    finally:
        if process is not None:
            process.terminate()
            process.wait(timeout=30)
        deployment.delete()
    expected = clock.expected
    counted = sum(1 for w, due in clock.due.items() if due >= clock.counted_from and expected[w])
    phases = phase_figures(folder.glob(f"{slug}.phases.*"), clock.counted_from + clock.epoch)
    return Measured(
        contender.name,
        tuple(clock.latencies_ms),
        counted,
        pacer.achieved,
        cpu,
        clock.stages_ms,
        tuple(clock.late_ms),
        phases,
        round(os.getloadavg()[0], 2),
        clock.hops_ms,
        waits,
    )


def warm_up(bootstrap: str, settings: Settings, folder: Path) -> Measured | None:
    """An untimed run of the defaults' worker before the measured ones (module docstring); None
    in the ``tiny`` mode."""
    if settings.mode == "tiny":
        return None
    raws = paced_events(int(RATE * WARMUP_RUN_S), settings.seed + 1)
    return measure(bootstrap, raws, expected_contributions(raws), folder, Contender("warmup"))


def contenders(settings: Settings) -> list[Contender]:
    """The defaults, the plain relay, the baseline if asked for (``BENCH_KAFKA_BASELINE=
    <revision>``, as `bench.kafka`: that revision's worker with its defaults), then the other
    settings (not in the ``tiny`` mode): the three the row compares run side by side."""
    ran = [Contender(name, options) for name, options in SETTINGS]
    chosen = [ran[0], Contender(RELAY, relay=True)]
    revision = os.environ.get(BASELINE_ENV, "")
    if revision:
        commit, tree = baseline_tree(revision, settings.cache_dir)
        chosen.append(Contender(f"baseline {commit[:9]}", (), tree))
    return chosen if settings.mode == "tiny" else [*chosen, *ran[1:]]


def figures(run: Measured, events: int) -> dict[str, Figure]:
    """One contender's details, named after it (``<name>_p99_ms``, ...)."""
    key = run.name.replace(" ", "_").replace(".", "")
    options = "(relay: the worker's batch and interval)" if run.name == RELAY else "(defaults)"
    extra: dict[str, Figure] = {
        f"{key}_options": " ".join(dict(SETTINGS).get(run.name, ())) or options,
        f"{key}_rate_achieved": round(run.achieved, 1),
        f"{key}_rounds": len(run.latencies_ms),
        f"{key}_rounds_expected": run.rounds_expected,
        f"{key}_p50_ms": run.figure(0.5),
        f"{key}_p90_ms": run.figure(0.9),  # less at the mercy of one stall of the host than p99
        f"{key}_p99_ms": run.figure(0.99),
        f"{key}_max_ms": round(max(run.latencies_ms, default=float("nan")), 3),
    }
    for stage, gaps in run.stages_ms.items():
        extra[f"{key}_{stage}_p50_ms"] = round(percentile(gaps, 0.5), 1)
        extra[f"{key}_{stage}_p99_ms"] = round(percentile(gaps, 0.99), 1)
    for hop, gaps in run.hops_ms.items():
        extra[f"{key}_{hop}_p50_ms"] = round(percentile(gaps, 0.5), 1)
        extra[f"{key}_{hop}_p99_ms"] = round(percentile(gaps, 0.99), 1)
    extra[f"{key}_send_late_p99_ms"] = round(percentile(run.send_late_ms, 0.99), 1)
    extra |= {f"{key}_{name}": value for name, value in run.starved.items()}
    extra[f"{key}_load_1m"] = run.load
    for phase, figure in run.phases.items():
        extra[f"{key}_worker_{phase}"] = figure
    if run.cpu_s is not None:  # steadier than latency on a shared machine
        extra[f"{key}_cpu_us_per_event"] = round(1e6 * run.cpu_s / events)
    return extra


def row(runs: list[Measured], extra: dict[str, Figure], tiny: bool) -> Row:
    """The row: the defaults' p99 against the relay's (`contenders` puts them first)."""
    default, relay = runs[0], runs[1]
    summary = "; ".join(f"{r.name}: p50 {r.figure(0.5)} / p99 {r.figure(0.99)} ms" for r in runs)
    notes = (
        f"Kafka engine, one worker, steady {RATE} events/s: wagers_locked scheduled send -> all "
        f"its contributions read read_committed on <p>.events (one transaction with local "
        f"apply); reference: the plain transactional relay of the same hop; {summary}"
    )
    return Row(
        name="kafka latency",
        unit="ms",
        value=default.figure(0.99),
        reference_name="plain transactional relay p99 (same hop, batch cap, interval)",
        reference=relay.figure(0.99),
        goal=GOAL,
        samples=default.latencies_ms if tiny else (),
        reference_samples=relay.latencies_ms if tiny else (),
        notes=notes,
        extra=extra,
    )


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
        warm = warm_up(bootstrap, settings, Path(folder))
        chosen = contenders(settings)
        runs = [measure(bootstrap, raws, expected, Path(folder), c) for c in chosen]
    extra: dict[str, Figure] = {"rate_target": RATE, "seconds": seconds, "warmup_s": WARMUP_S}
    extra["relay_batch"], extra["relay_commit_interval_s"] = (
        RELAY_DEFAULTS.batch,
        RELAY_DEFAULTS.commit_interval_s,
    )
    if warm is not None:  # untimed: shown only to tell how cold the broker was
        extra |= {"warmup_p50_ms": warm.figure(0.5), "warmup_p99_ms": warm.figure(0.99)}
    for run in runs:
        extra |= figures(run, len(raws))
    return [row(runs, extra, settings.mode == "tiny")]
