"""Local apply inside `procs_harness`'s round lanes: the worker's open meters against main's.

With ``open_meters`` the harness's round lanes apply the claims of each accepted table event
to the meters as the worker's batch does (`streams.scaleout.local_apply`, every meter-claims
partition owned): the candidate is the worker's lane (`OpenRoundProcessor.process_open`, then
`LocalApply` growing open meters, `streams.scaleout.open_meter`), the reference main's round
processor and local apply at bf26c78 (`tests.streams.scaleout.mainref.bf26c78`: every claim
encoded, decoded and applied by `MeterProcessor.local` to a frozen record). Each lane's
`MeterSide` holds its meters as the worker does: the batch's records first (open ones
included), then the committed state, restored from the changelog's bytes on a crash and
dropped with a dropped batch. The harness compares, after every input, the step's outputs and
outcome (the meter events in place of the claims), the meter lane's outcomes and every meter
record the batch holds (an open one peeked at: sealed on a copy), and after every batch the
meters' changelog."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from controller.config.floor import FloorConfig
from streams.adapters.kafka.topics import TopicNames
from streams.scaleout import meters
from streams.scaleout.batch import for_local
from streams.scaleout.local_apply import LocalApply
from streams.scaleout.meters import MeterRecord, meter_record_from_bytes, meter_record_to_bytes
from streams.scaleout.open_meter import OpenMeter
from streams.scaleout.open_rounds import OpenRoundProcessor
from streams.scaleout.records import Processed, SourcePos
from streams.scaleout.store import PartitionState
from tests.streams.scaleout.mainref.bf26c78 import local_apply as main_local
from tests.streams.scaleout.mainref.bf26c78 import rounds as main_rounds

Where = tuple[str, int]
Step = Callable[[Any, str | None, bytes, SourcePos], Processed[Any]]


@dataclass(slots=True)
class MeterSide:
    """One lane's local apply and its meters: committed (and their changelog bytes), and the
    batch's (`batch.decide`'s ``batch.states`` for the meter-claims partitions)."""

    apply: Any  # `LocalApply`, or main's
    states: dict[Where, PartitionState[Any]]
    changelog: dict[tuple[Where, bytes], bytes] = field(default_factory=dict)
    pending: dict[Where, dict[bytes, Any]] = field(default_factory=dict)
    progress: dict[Where, int] = field(default_factory=dict)
    outcomes: list[str] = field(default_factory=list)

    def wrapped(self, process: Step, gate: Callable[[Processed[Any]], bool]) -> Step:
        """``process`` then, for a table event ``gate`` hands it (as `batch.decide`: the
        worker's `batch.for_local`, main's every accepted one), local apply."""

        def step(record: Any, key: str | None, raw: bytes, pos: SourcePos) -> Processed[Any]:
            result = process(record, key, raw, pos)
            if not gate(result):
                return result
            args = (self.pending, self.progress, self.outcomes, self.states)
            return self.apply.applied(result, *args)  # type: ignore[no-any-return]

        return step

    def begin(self) -> None:
        """A new batch: nothing pending."""
        self.pending, self.progress, self.outcomes = {}, {}, []

    def shown(self) -> tuple[list[str], dict[tuple[Where, bytes], bytes]]:
        """The meter lane's outcomes so far and each meter record the batch holds, as bytes (an
        open one sealed on a copy, itself left open)."""
        held = {
            (where, key): meter_record_to_bytes(peek_meter(record))
            for where, records in self.pending.items()
            for key, record in records.items()
        }
        return list(self.outcomes), held

    def differs(self, other: MeterSide) -> str:
        """What of `shown` differs from ``other``'s ("" if nothing): the outcomes, or the first
        meter record whose bytes differ, both ways."""
        (mine, held), (theirs, others) = self.shown(), other.shown()
        if mine != theirs:
            return f"meter outcomes {mine} != {theirs}"
        for where in sorted(held.keys() | others.keys()):
            if held.get(where) != others.get(where):
                return f"meter {where}: {held.get(where)!r} != {others.get(where)!r}"
        return ""

    def counts(self) -> Counter[str]:
        """The batch's local outcomes (``local:<outcome>``) and the meters it holds open
        (``local:open``): what shows the open path ran."""
        counted = Counter(f"local:{outcome}" for outcome in self.outcomes)
        held = [record for records in self.pending.values() for record in records.values()]
        counted["local:open"] = sum(isinstance(record, OpenMeter) for record in held)
        return counted

    def end(self, *, keep: bool) -> None:
        """The batch decided (its open meters sealed, as `batch.decide` does at its end), then
        committed (records stored through their bytes, as a restore reads them) unless
        dropped."""
        for records in self.pending.values():
            records.update(
                (key, record.seal() if type(record) is OpenMeter else record)
                for key, record in records.items()
            )
        if not keep:
            return
        for where, records in self.pending.items():
            for key, record in records.items():
                raw = self.changelog[(where, key)] = meter_record_to_bytes(record)
                self.states[where].records[key] = meter_record_from_bytes(raw)
        for where, offset in self.progress.items():
            self.states[where].progress = offset

    def restore(self) -> None:
        """A restart: the meters read back from the changelog."""
        for state in self.states.values():
            state.records.clear()
        for (where, key), raw in self.changelog.items():
            self.states[where].records[key] = meter_record_from_bytes(raw)


@dataclass(slots=True)
class Sides:
    """The candidate's and the reference's `MeterSide`, compared as `procs_harness` runs them."""

    mine: MeterSide
    theirs: MeterSide

    @staticmethod
    def of(mine: MeterSide | None, theirs: MeterSide | None) -> Sides | None:
        """Both lanes' sides, if they apply locally."""
        return None if mine is None or theirs is None else Sides(mine, theirs)

    def begin(self) -> None:
        """A new batch on both."""
        self.mine.begin()
        self.theirs.begin()

    def compare(self, part: int, offset: int, value: bytes) -> None:
        """After an input: the meter outcomes and every meter record the batch holds equal."""
        differs = self.mine.differs(self.theirs)
        assert not differs, (part, offset, value, differs)

    def end(self, *, keep: bool) -> Counter[str]:
        """The batch sealed and (``keep``) committed on both, the changelogs compared; the
        candidate's counts (`MeterSide.counts`, taken before the seal)."""
        counted = self.mine.counts()
        self.mine.end(keep=keep)
        self.theirs.end(keep=keep)
        assert self.mine.changelog == self.theirs.changelog
        return counted


def peek_meter(record: MeterRecord | OpenMeter) -> MeterRecord:
    """The record ``record`` is or would seal into now (an open meter left open: its round map
    finished and mutated again, sealed with a mutation of its own and a copy of its marks; a
    compiled class, `streams.compiled`: no twin made with ``object.__new__``)."""
    if not isinstance(record, OpenMeter):
        return record
    rounds, marks = record.rounds.finish(), record.marks
    record.rounds, record.marks = rounds.mutate(), dict(marks)  # what `seal` finishes, hands on
    try:
        return record.seal()
    finally:
        record.rounds, record.marks = rounds.mutate(), marks


def local_lanes(
    config: FloorConfig, names: TopicNames, key: bytes | None, partitions: int
) -> tuple[tuple[Step, MeterSide], tuple[Step, MeterSide]]:
    """(candidate, reference): each round lane's step with local apply, and its meters."""
    sides = []
    for applier in (LocalApply, main_local.LocalApply):
        processor = meters.MeterProcessor(config, names, key)
        claims = [(names.meter_claims, p) for p in range(partitions)]
        states = {where: PartitionState[Any](progress=0) for where in claims}
        sides.append(MeterSide(applier(processor, names.meter_claims, partitions), states))
    worker = OpenRoundProcessor(config, names).process_open
    main = main_rounds.RoundProcessor(config, names).process
    candidate = sides[0].wrapped(worker, for_local)  # the worker's own gate (`batch.decide`)
    reference = sides[1].wrapped(main, _accepted)  # main's `batch.decide`: every accepted one
    return (candidate, sides[0]), (reference, sides[1])


def _accepted(result: Processed[Any]) -> bool:
    return result.outcome == "accepted"
