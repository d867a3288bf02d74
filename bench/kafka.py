"""Row "kafka": the scale-out engine end to end, one worker, vs a plain consume-and-produce loop.

Subject: ``python -m streams.scaleout.worker`` (ONE worker process) over a freshly provisioned
prefix
(6 table-events partitions, the configuration recorded and every meter seeded) whose table-events
topic already holds N simulated table events (`bench.workload`, produced with the engine's own
idempotent producer, `streams.scaleout.ingest.TableEventProducer`). Done when the events topic holds
every output the embedded engine writes for the same input (ConfigActivated, the meter seeds,
accepted table events, contributions, fixed and envy awards, hits, reversals: the same records,
counted by a ``read_committed`` reader, `bench.kafka_parts.Tail`).

Reference (the goal's): the plain confluent-kafka loop of `bench.kafka_parts` with
``--transactional``: one transaction per batch of up to 500 records holding the copied records and
the consumed offsets, the worker's batch size and commit rhythm (one transaction per batch) but
nothing to decide. Also reported (details ``plain_*``, ``vs_plain_ratio``): the same loop without
transactions (flush, then commit the offsets). Both are child processes on the same broker and
input topic.

**What the row reports** is the steady-state rate: N over the seconds from the child's first
output record to its last (the records' own timestamps), so the child's start-up (imports, the
consumer-group join, which the broker delays by up to 3 s for a new group, table recovery) is
left out; the start-up (spawn to first output) and the wall time (spawn to last output seen) are
in the row's details (``*_startup_s``, ``*_wall_s``).

CPU time per input event (user + system, read from ``/proc`` between the first output seen and
the last) is in the details too (``*_cpu_us_per_event``): on a shared machine a neighbour's load
stretches a process's wall time but not the CPU it uses. Beside it, the broker's CPU meanwhile
(``*_broker_cpu_us_per_event``, when the broker's process is known: `bench.kafka_host`) and how
long the contender's threads waited for a CPU (``*_runq_wait_us_per_event``): the ratio is wall
throughput on 2 shared cores, and these say where the cores went.

**Before and after in one run.** With ``BENCH_KAFKA_BASELINE=<git revision>`` the worker of that
revision runs too (its tree extracted with ``git archive`` into ``.cache/bench/``, the worker
started from there), on a deployment of its own with the same input, in every repetition, the
order rotating: a second row reports it against the same reference, and the first row's details
give the speed-up of the current worker over it (median of the per-repetition ratios). The
baseline tree gets the fast path built as this one's (`compiled`): both workers run compiled.

The row is skipped (no error) when ``KAFKA_BOOTSTRAP`` is unset or the broker does not answer.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench import workload
from bench.common import EXAMPLE_CONFIG, REPO, Figure, Goal, Mode, Paired, Row, Settings, rate_row
from bench.kafka_parts import (
    TABLE_PARTITIONS,
    Deployment,
    Timing,
    bootstrap_or_reason,
    time_child,
)
from streams.adapters.memory import MemoryLog
from streams.embedded.engine import EmbeddedController

GOAL = Goal(text=">= 1/2 of the plain transactional consume-and-produce loop", ratio_at_least=0.5)
#: Table events per repetition, by mode (`bench.common.Settings` has no Kafka size yet).
EVENTS: dict[Mode, int] = {"tiny": 300, "quick": 2_000, "default": 10_000, "full": 50_000}
BASELINE_ENV = "BENCH_KAFKA_BASELINE"
CONTENDERS = ("plain-tx", "plain", "worker", "baseline")


def expected_outputs(text: str, raws: Sequence[dict[str, Any]]) -> int:
    """Records the embedded engine logs for the configuration and ``raws``: what the events
    topic holds once the worker is done (the same events, one record each)."""
    log = MemoryLog()
    controller = EmbeddedController(log, MemoryLog())
    controller.start(text, str(EXAMPLE_CONFIG))
    controller.submit(raws)
    return log.head()


def baseline_tree(revision: str, cache: Path) -> tuple[str, Path]:
    """The commit ``revision`` names and its tree, extracted once into ``cache``."""
    git = ["git", "-C", str(REPO)]
    commit = subprocess.run(  # noqa: S603 - git on a revision the person benchmarking names
        [*git, "rev-parse", "--verify", f"{revision}^{{commit}}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    tree = cache / f"kafka-baseline-{commit[:12]}"
    if not (tree / "streams").is_dir():
        tree.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile() as archive:
            subprocess.run([*git, "archive", commit], stdout=archive, check=True)  # noqa: S603
            archive.seek(0)
            with tarfile.open(fileobj=archive) as tar:
                tar.extractall(tree, filter="data")
    compiled(tree)
    return commit, tree


def compiled(tree: Path) -> None:
    """The fast path built for ``tree`` as for this one: without a build of its own, the
    baseline's worker ran its compiled modules interpreted (`streams.compiled`, "not built")
    against the current worker compiled. This tree's build is copied in, then the tree's own
    ``scripts/build_fast.py`` keeps it (every hashed source equal) or rebuilds it."""
    build, script = REPO / "build", tree / "scripts" / "build_fast.py"
    if build.is_dir() and not (tree / "build").exists():
        shutil.copytree(build, tree / "build", symlinks=True)
    if script.is_file():  # the tree's own modules first: the interpreter's editable install
        env = {**os.environ, "PYTHONPATH": str(tree)}  # names this tree's, which it would build
        subprocess.run(  # noqa: S603 - our own interpreter on the baseline's own script
            [sys.executable, str(script)], cwd=tree, env=env, check=False, capture_output=True
        )


class KafkaRun:
    """Runs the contenders on deployments of the same input, rotating their order."""

    def __init__(self, bootstrap: str, lines: list[bytes], expected: int, folder: Path) -> None:
        self.bootstrap, self.lines, self.expected, self.folder = bootstrap, lines, expected, folder
        self.timings: dict[str, list[Timing]] = {name: [] for name in CONTENDERS}
        self.baseline: Path | None = None

    def worker(self, deployment: Deployment, index: int, tree: Path = REPO) -> Timing:
        """One worker (of the tree ``tree``) until every output is on the events topic."""
        names = deployment.names
        module = "streams.kafka_worker" if (tree / "streams" / "kafka_worker.py").is_file() else ""
        module = module or "streams.scaleout.worker"  # a baseline from before the house moved
        command = [sys.executable, "-m", module, "--bootstrap", self.bootstrap]
        command += ["--prefix", names.prefix, "--config", str(EXAMPLE_CONFIG)]
        command += ["--data-dir", str(self.folder / "data"), "--loglevel", "warning"]
        log = self.folder / f"worker-{tree.name}-{index}.log"
        # the config record is on the topic already: the worker writes the rest
        target = self.expected - 1
        return time_child(command, log, self.bootstrap, names.events, target=target, cwd=tree)

    def plain(self, deployment: Deployment, index: int, *, transactional: bool) -> Timing:
        """The plain loop until it copied every input record (to an output topic of its own)."""
        names = deployment.names
        name = "plain-tx" if transactional else "plain"
        target = deployment.plain_out if transactional else f"{deployment.plain_out}-2"
        command = [sys.executable, "-m", "bench.kafka_parts", "plain-loop", "--bootstrap"]
        command += [self.bootstrap, "--source", names.table_events, "--target", target]
        command += ["--count", str(len(self.lines)), "--group", f"{names.prefix}-{name}"]
        command += ["--transactional"] if transactional else []
        log = self.folder / f"{name}-{index}.log"
        return time_child(command, log, self.bootstrap, target, target=len(self.lines))

    def _contenders(self, deployment: Deployment) -> dict[str, Callable[[int], Timing]]:
        runs: dict[str, Callable[[int], Timing]] = {
            "plain-tx": lambda i: self.plain(deployment, i, transactional=True),
            "plain": lambda i: self.plain(deployment, i, transactional=False),
            "worker": lambda i: self.worker(deployment, i),
        }
        baseline = self.baseline
        if baseline is not None:  # a deployment of its own: a worker's group owns its input
            other = Deployment(self.bootstrap, self.lines, baseline)
            self._extra.append(other)
            runs["baseline"] = lambda i: self.worker(other, i, baseline)
        return runs

    def run(self, repeats: int) -> None:
        """``repeats`` repetitions, each on fresh prefixes; the order rotates."""
        for index in range(repeats):
            self._extra: list[Deployment] = []
            deployment = Deployment(self.bootstrap, self.lines)
            try:
                runs = self._contenders(deployment)
                order = list(runs)
                shift = index % len(order)
                for name in order[shift:] + order[:shift]:
                    self.timings[name].append(runs[name](index))
            finally:
                for done in [deployment, *self._extra]:
                    done.delete()

    def close(self) -> None:
        """Nothing is held between contenders (each `time_child` closes its reader)."""


def _median(values: Sequence[float]) -> float:
    return round(float(statistics.median(values)), 3)


def costs(name: str, timings: Sequence[Timing], lines: int) -> dict[str, Figure]:
    """µs an input event, medians over the repetitions, first output to last: the contender's
    CPU (steadier than wall time), the broker's CPU meanwhile, and the run-queue wait of the
    contender's threads (`bench.kafka_host`: where the host's 2 cores went). Each only where
    read."""
    figures: dict[str, Figure] = {}
    for field, label in (("cpu", "cpu"), ("broker_cpu", "broker_cpu"), ("runq", "runq_wait")):
        values = [v for t in timings if (v := getattr(t, field)) is not None]
        if values:
            figures[f"{name}_{label}_us_per_event"] = round(1e6 * statistics.median(values) / lines)
    return figures


def details(run: KafkaRun, lines: int, expected: int) -> dict[str, Figure]:
    """The row's details: sizes, start-up and wall times, and the baseline comparison."""
    extra: dict[str, Figure] = {
        "events": lines,
        "outputs_per_run": expected,
        "table_partitions": TABLE_PARTITIONS,
        "bootstrap": run.bootstrap,
        "reports": "steady state: first to last output record; start-up excluded",
    }
    for name, timings in run.timings.items():
        if timings:
            extra[f"{name}_startup_s"] = _median([t.startup for t in timings])
            extra[f"{name}_wall_s"] = _median([t.wall for t in timings])
            extra[f"{name}_steady_samples"] = ",".join(f"{t.steady:.3f}" for t in timings)
            extra.update(costs(name, timings, lines))
    if run.timings["plain"]:
        pairs = zip(run.timings["plain"], run.timings["worker"], strict=True)
        extra["vs_plain_ratio"] = _median([p.steady / w.steady for p, w in pairs])
    if run.timings["baseline"]:
        pairs = zip(run.timings["baseline"], run.timings["worker"], strict=True)
        extra["speedup_vs_baseline"] = _median([b.steady / w.steady for b, w in pairs])
    return extra


def run_rows(settings: Settings) -> list[Row]:
    """The Kafka row (and the baseline's); none (and a note on stderr) when no broker answers."""
    bootstrap, reason = bootstrap_or_reason()
    if bootstrap is None:
        print(f"bench: skipped kafka: {reason}", file=sys.stderr)
        return []
    text, config = workload.example_floor()
    raws = workload.events(config, EVENTS[settings.mode], settings.seed)
    lines = [workload.to_line(raw) for raw in raws]
    expected = expected_outputs(text, raws)
    revision = os.environ.get(BASELINE_ENV, "")
    with tempfile.TemporaryDirectory(prefix="bench-kafka-") as folder:
        run = KafkaRun(bootstrap, lines, expected, Path(folder))
        commit = ""
        if revision:
            commit, run.baseline = baseline_tree(revision, settings.cache_dir)
        try:
            run.run(settings.repeats)
        finally:
            run.close()
    extra = details(run, len(lines), expected)
    if commit:
        extra["baseline_commit"] = commit
    rows = [_row(run, "worker", "kafka: end to end, one worker", len(lines), extra)]
    if commit:
        name = f"kafka: baseline worker {commit[:9]}"
        rows.append(_row(run, "baseline", name, len(lines), {"baseline_commit": commit}))
    return rows


def _row(run: KafkaRun, who: str, name: str, count: int, extra: dict[str, Figure]) -> Row:
    times = Paired(
        tuple(t.steady for t in run.timings[who]), tuple(t.steady for t in run.timings["plain-tx"])
    )
    return rate_row(
        name=name,
        count=count,
        times=times,
        reference_name="plain transactional consume-and-produce loop",
        goal=GOAL,
        notes=(
            "Kafka engine: end to end per worker, table events in to meter events out "
            f"({run.expected} output records for {count} inputs), one worker process, "
            "vs a plain confluent-kafka consume-and-produce loop on the same broker and "
            "topics (one transaction per batch of 500 with its offsets, as the worker; the "
            "non-transactional loop in details); steady-state rates from "
            "first to last output record, child start-up and group join excluded (start-up "
            "and wall times in details)"
        ),
        extra=extra,
    )
