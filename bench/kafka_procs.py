"""Row "kafka-procs": the Kafka worker's two processors without a broker, in CPU µs per event.

The worker is CPU-bound (docs/kafka.md, Speed), so its ceiling is what the pure processors cost.
This row runs the simulated floor's table events through `RoundProcessor.process` and the claims it
makes through `MeterProcessor.process`, with the state handling `streams.scaleout.txloop` does per
batch (a batch's pending records read first, each touched key's record encoded once when the batch
ends), against a ``json.loads`` of the same records: the least any processor that reads JSON does.
Time is ``time.process_time`` (CPU, steadier than wall time on a shared host), alternating the
contenders ``repeats`` times. Every pass runs under the worker's process setting
(`streams.process.settled_gc`, as ``jackpot kafka worker`` runs: the collector's young threshold
raised, start-up's objects frozen), for every contender alike; without it the collector was ~9% of
the round lane's samples, a share the worker does not pay.

``python -m bench.kafka_procs [--events N] [--repeats R] [--profile OUT.pstats]`` runs it alone;
``--versus PKG`` alternates another package's ``rounds`` and ``meters`` with this tree's;
``--once r|rm`` makes one untimed pass (`once`: for cachegrind).
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import json
import os
import pickle
import time
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from bench import workload
from bench.common import CACHE_DIR, Row, Settings, median
from controller.config.floor import FloorConfig
from streams.adapters.kafka.topics import TopicNames
from streams.codec import Output
from streams.process import settled_gc
from streams.scaleout import meters as meters_module
from streams.scaleout import rounds as rounds_module
from streams.scaleout.meters import MeterProcessor, meter_record_to_bytes
from streams.scaleout.records import Processed, SourcePos, coalesced, source_pos
from streams.scaleout.rounds import RoundProcessor, table_record_to_bytes

PARTITIONS = 6
BATCH = 500
EVENTS = {"tiny": 400, "quick": 10_000, "default": 20_000, "full": 50_000}
Input = tuple[str, int, str, bytes]  # topic, partition, key, value
Step = Callable[[Any, str | None, bytes, SourcePos], Processed[Any]]


@dataclass(slots=True)
class Lane:
    """One processor with its in-memory state per partition, as the worker keeps it."""

    process: Step
    to_bytes: Callable[[Any], bytes]
    states: dict[int, dict[str, Any]]
    offsets: dict[int, int]


def partitioned(topic: str, key: str, value: bytes, offsets: dict[int, int]) -> tuple[int, int]:
    """A partition for ``key`` (stable, like the producer's hash) and the next offset in it."""
    part = zlib.crc32(key.encode()) % PARTITIONS
    offset = offsets.get(part, 0)
    offsets[part] = offset + 1
    return part, offset


def run_batches(lane: Lane, topic: str, inputs: Sequence[Input]) -> list[Output]:
    """Every input through ``lane`` in batches of `BATCH` (txloop's `decide`, `_produce` and
    `_write_state`): the outputs, in order."""
    outputs: list[Output] = []
    for start in range(0, len(inputs), BATCH):
        pending: dict[tuple[int, str], Any] = {}
        batch: list[Output] = []
        for _, part, key, value in inputs[start : start + BATCH]:
            record = pending.get((part, key)) or lane.states[part].get(key)
            pos = source_pos(topic, part, lane.offsets.get(part, 0), 1_764_417_600_000)
            lane.offsets[part] = pos.offset + 1
            result = lane.process(record, key, value, pos)
            batch.extend(result.outputs)
            if result.record is not None:
                pending[(part, key)] = result.record
        produced(batch)
        outputs.extend(batch)
        for (part, key), record in pending.items():
            lane.to_bytes(record)
            lane.states[part][key] = record
    return outputs


def produced(batch: list[Output]) -> int:
    """What `txloop._produce` reads of a batch's outputs: the kept ones' key, value and dedupe
    id (a lazy output is written here, as in the worker); the bytes handed over."""
    size = 0
    for out in coalesced(batch):
        size += len(out.key.encode()) + len(out.value) + len(out.dedupe_id.encode())
    return size


def claims_of(outputs: Sequence[Output], topic: str) -> list[Input]:
    """The round processor's outputs on the meter-claims topic, as the meter lane's inputs."""
    offsets: dict[int, int] = {}
    claims = []
    for out in outputs:
        if out.topic == topic:
            part, _ = partitioned(topic, out.key, out.value, offsets)
            claims.append((topic, part, out.key, out.value))
    return claims


def table_inputs(count: int, seed: int, topic: str) -> tuple[FloorConfig, list[Input]]:
    """``count`` simulated table events keyed by table, with their partitions."""
    _, config = workload.example_floor()
    offsets: dict[int, int] = {}
    inputs = []
    for raw in workload.events(config, count, seed):
        key = str(raw["table_id"])
        part, _ = partitioned(topic, key, b"", offsets)
        inputs.append((topic, part, key, workload.to_line(raw)))
    return config, inputs


def fresh(step: Step, to_bytes: Callable[[Any], bytes]) -> Lane:
    """A lane with no state yet (a new prefix)."""
    return Lane(step, to_bytes, {p: {} for p in range(PARTITIONS)}, {})


def contenders(versus: str) -> dict[str, tuple[ModuleType, ModuleType]]:
    """The (rounds, meters) modules measured: this tree's, and with ``versus`` (a package
    holding ``rounds`` and ``meters``, e.g. ``tests.streams.scaleout.mainref``, main's before
    the fast path) that one too, alternating in the same process."""
    got = {"": (rounds_module, meters_module)}
    if versus:
        got["versus_"] = (
            importlib.import_module(f"{versus}.rounds"),
            importlib.import_module(f"{versus}.meters"),
        )
    return got


def measure(events: int, seed: int, repeats: int, versus: str = "") -> dict[str, tuple[float, ...]]:
    """CPU µs per input of each pass, ``repeats`` times alternating."""
    names = TopicNames("bench")
    config, tables = table_inputs(events, seed, names.table_events)
    lanes = {
        who: (
            (mods[0].RoundProcessor(config, names).process, mods[0].table_record_to_bytes),
            (mods[1].MeterProcessor(config, names).process, mods[1].meter_record_to_bytes),
        )
        for who, mods in contenders(versus).items()
    }
    outputs = run_batches(fresh(*lanes[""][0]), names.table_events, tables)
    claims = claims_of(outputs, names.meter_claims)
    with settled_gc():  # the worker's process setting (module docstring)
        return _samples(lanes, names, tables, claims, repeats)


def _samples(
    lanes: Mapping[str, tuple[tuple[Step, Callable[[Any], bytes]], ...]],
    names: TopicNames,
    tables: list[Input],
    claims: list[Input],
    repeats: int,
) -> dict[str, tuple[float, ...]]:
    samples: dict[str, list[float]] = {"round_parse": [], "meter_parse": []}
    for _ in range(repeats):
        samples["round_parse"].append(_parsed(tables))
        samples["meter_parse"].append(_parsed(claims))
        for who, (round_lane, meter_lane) in lanes.items():
            for lane, topic, inputs in (
                (round_lane, names.table_events, tables),
                (meter_lane, names.meter_claims, claims),
            ):
                kind = "round" if inputs is tables else "meter"
                samples.setdefault(f"{who}{kind}", []).append(_timed(fresh(*lane), topic, inputs))
    samples["claims"] = [len(claims)]
    return {k: tuple(v) for k, v in samples.items()}


def _parsed(inputs: Sequence[Input]) -> float:
    start = time.process_time()
    for *_, value in inputs:
        json.loads(value)
    return (time.process_time() - start) * 1e6 / max(1, len(inputs))


def _timed(lane: Lane, topic: str, inputs: Sequence[Input]) -> float:
    start = time.process_time()
    run_batches(lane, topic, inputs)
    return (time.process_time() - start) * 1e6 / max(1, len(inputs))


def run_rows(settings: Settings) -> list[Row]:
    """The round and the meter processor, each against json.loads of its own inputs."""
    got = measure(EVENTS[settings.mode], settings.seed, settings.repeats)
    rows = []
    for lane, unit in (("round", "table event"), ("meter", "meter claim")):
        value, parse = median(got[lane]), median(got[f"{lane}_parse"])
        rows.append(
            Row(
                name=f"kafka {lane} processor, no broker",
                unit=f"CPU µs per {unit}",
                value=value,
                reference_name="json.loads only",
                reference=parse,
                samples=got[lane],
                reference_samples=got[f"{lane}_parse"],
            )
        )
    return rows


def once(events: int, seed: int, which: str) -> None:
    """One pass of the round lane ("r"), the meter lane on its claims ("m") or both, untimed,
    for ``valgrind --tool=cachegrind`` (instructions: deterministic where CPU time is not). The
    inputs are made once and kept in ``.cache/bench`` so that their making is not counted; the
    round lane runs for "m" too (its claims are the meter lane's input), so the meter lane's
    count is "rm" less "r"."""
    names = TopicNames("bench")
    path = CACHE_DIR / f"kafka-procs-{events}-{seed}.pickle"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(pickle.dumps(table_inputs(events, seed, names.table_events)[1]))
    tables: list[Input] = pickle.loads(path.read_bytes())  # noqa: S301 - our own cache file
    config = workload.example_floor()[1]
    rounds = fresh(RoundProcessor(config, names).process, table_record_to_bytes)
    meters = fresh(MeterProcessor(config, names).process, meter_record_to_bytes)
    with settled_gc():  # the worker's process setting (module docstring)
        outputs = run_batches(rounds, names.table_events, tables)
        if "m" in which:
            run_batches(meters, names.meter_claims, claims_of(outputs, names.meter_claims))


def main(argv: list[str] | None = None) -> None:
    """Print the figures (and write a cProfile of one pass of both lanes if asked)."""
    parser = argparse.ArgumentParser(prog="python -m bench.kafka_procs")
    parser.add_argument("--events", type=int, default=EVENTS["default"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--profile", default="")
    parser.add_argument("--versus", default="", help="a package with rounds and meters to compare")
    parser.add_argument("--once", default="", help="one untimed pass of these lanes (r, m, rm)")
    args = parser.parse_args(argv)
    if args.once:
        once(args.events, args.seed, args.once)
        return
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(measure, args.events, args.seed, 1)
        profiler.dump_stats(args.profile)
        return
    print(f"load average before: {os.getloadavg()}")
    got = measure(args.events, args.seed, args.repeats, args.versus)
    print(f"load average after: {os.getloadavg()}")
    for name, values in got.items():
        print(f"{name:12} median {median(values):8.1f}  {' '.join(f'{v:.1f}' for v in values)}")
    for lane in ("round", "meter") if args.versus else ():
        pairs = tuple(a / b for a, b in zip(got[lane], got[f"versus_{lane}"], strict=True))
        spread = f"{min(pairs):.3f}-{max(pairs):.3f}"
        print(f"{lane} / versus per pair: median {median(pairs):.3f}  {spread}")


if __name__ == "__main__":
    main()
