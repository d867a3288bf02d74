"""Local apply: a table's claim applied to its meter in the round lane's own batch, when this
worker owns the meter, so a round is one transaction instead of two in series.

Without it a lock's contribution claims go to ``meter-claims`` in the round lane's transaction,
and the meter lane (of whichever worker owns the meter's partition) applies them in a later
batch: two commits in series before the meter event is visible ``read_committed``. When the
worker deciding the table event also owns the meter-claims partition of the claim's meter, the
claim is instead handed straight to the meter lane's logic (`MeterProcessor.local`: seed check,
mystery arming, watermark, apply, divert, conservation), and the meter event, any award and the
meter's changelog record go into the SAME transaction as the table event; the claim itself is
not written. The transaction also carries the meter-claims partition's consumed offset (its
progress, unchanged), so the partition's next owner reads the group's committed offset stable
and waits for this transaction to end before it restores the meter (KIP-447), exactly as for
the partitions the batch consumed; and a group that moved to a new generation refuses the
transaction (`streams.scaleout.tx_failures.Migrated`): ownership holds at the commit.

**Order per (meter, table).** The meter lane skips a claim at or below the meter's mark for its
table (`streams.scaleout.meters`, step 3). A claim of table T for meter m still in the topic
(written while this worker did not own m, or by T's previous owner) followed by T's next claim
applied here would move the mark past it, and the meter lane would then skip it as a
redelivery: money lost. So the table's record keeps ``owed``: per meter, T's last claim written
to the topic. A claim is applied here only if the meter's mark for T has reached T's owed claim
on m (everything T wrote to the topic for m is applied); else it goes to the topic too, and
becomes the owed claim. Both records are restored from changelogs written in the same
transactions, so after a crash they agree as they did at the last commit.

**Order across tables.** A hit claim is priced from the meter as it stands (649a.12(e)(4)),
and that must hold every contribution of a wager locked before it. A claim of another table
still queued in the topic (written while this worker did not own the meter, or by the tables'
previous owner) must not be passed: applied here first, a newer claim would reach the meter
before it, and a hit between them be priced without it (no cent lost, but not the lock order,
and with one table-events partition not `jackpot replay`'s: the CI's zombie run paid one
progressive award $1.82 short and a later one that much over). So a claim is applied here only
if no claim of any of this worker's tables waits in the topic for that meter
(`streams.scaleout.queued.QueuedClaims`, kept from the tables' ``owed``); else it goes to the
topic behind them. Tables other workers own are not known here: across table-events partitions
the order is their workers' commits' interleaving (docs/kafka.md, *Parity*).

**Open meters.** A meter's plain contributions (no seed, no mystery level, above the table's
mark) grow its record in place across the batch (`streams.scaleout.open_meter`), sealed into the
frozen record before anything else reads it (a hit, a reversal, the meter lane, the batch's end:
`streams.scaleout.batch.decide`); ``open_meters=False`` applies each to a frozen record.

A meter with no state yet is seeded by its first claim applied here, as the meter lane seeds a
meter whose first claim comes before its provisioning ``seed`` (that seed is then a no-op).
Not applied here (they stay claims on the topic): a meter this worker does not own or whose
partition has no progress to commit (`streams.scaleout.ownership` sets it on assignment), a
meter the configuration does not name, and the diverts a meter makes (the target applies them
once by its own watermark per source meter).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controller.claims import ContributionClaim
from streams.codec import Output
from streams.scaleout.claim_output import Claim
from streams.scaleout.contribute import Contributions
from streams.scaleout.meter_ops import op_from_bytes
from streams.scaleout.meters import MeterProcessor, MeterRecord
from streams.scaleout.open_meter import OpenMeter  # a meter open in its batch, as frozen
from streams.scaleout.open_table import OpenTable  # a record open in its batch, as frozen
from streams.scaleout.queued import QueuedClaims
from streams.scaleout.records import Processed, processed
from streams.scaleout.store import PartitionState
from streams.scaleout.table_record import TableRecord

Where = tuple[str, int]
Owed = tuple[tuple[str, int, int], ...]


def murmur2(data: bytes) -> int:
    """Kafka's key hash (the Java client's ``Utils.murmur2``, librdkafka's ``murmur2_random``
    for a keyed record): the producers of this engine place keys with it
    (`streams.adapters.kafka.sink.producer_config`)."""
    m, length = 0x5BD1E995, len(data)
    h = (0x9747B28C ^ length) & 0xFFFFFFFF
    whole = length & ~3
    for i in range(0, whole, 4):
        k = int.from_bytes(data[i : i + 4], "little")
        k = (k * m) & 0xFFFFFFFF
        k ^= k >> 24
        k = (k * m) & 0xFFFFFFFF
        h = ((h * m) & 0xFFFFFFFF) ^ k
    extra = length - whole
    if extra == 3:
        h ^= data[whole + 2] << 16
    if extra >= 2:
        h ^= data[whole + 1] << 8
    if extra >= 1:
        h ^= data[whole]
        h = (h * m) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * m) & 0xFFFFFFFF
    return h ^ (h >> 15)


def key_partition(key: bytes, partitions: int) -> int:
    """The partition a keyed record goes to among ``partitions`` (Kafka's default)."""
    return (murmur2(key) & 0x7FFFFFFF) % partitions


class LocalApply:
    """Applies the round lane's claims on owned meters in its batch (module docstring)."""

    def __init__(
        self,
        meters: MeterProcessor,
        claims_topic: str,
        partitions: int,
        *,
        open_meters: bool = True,
    ) -> None:
        """``open_meters``: a meter's contributions grown in its open record across the batch
        (`streams.scaleout.open_meter`); False, each applied to a frozen record (the reference)."""
        self._meters, self.topic, self._partitions = meters, claims_topic, partitions
        self._open = open_meters
        self._lean = Contributions(meters.config, meters.events_topic, claims_topic)
        self._queued = QueuedClaims(claims_topic)  # other tables' claims a local one must not pass
        self._queued_meters = self._queued.by_meter  # asked first: one lookup while none queued
        self._where: dict[str, Where] = {}
        self._places: dict[str, tuple[Where, bytes]] = {}

    def where(self, meter_id: str) -> Where:
        """The meter-claims partition of a meter (cached: a few dozen meters on a floor)."""
        found = self._where.get(meter_id)
        if found is None:
            part = key_partition(meter_id.encode(), self._partitions)
            found = self._where[meter_id] = (self.topic, part)
        return found

    def _place(self, meter_id: str) -> tuple[Where, bytes]:
        """`where` and the meter's state key (cached as `where`)."""
        found = self._places.get(meter_id)
        if found is None:
            found = self._places[meter_id] = (self.where(meter_id), meter_id.encode())
        return found

    def begin(self, states: Mapping[Where, PartitionState[Any]]) -> None:
        """A batch's decide starts (`streams.scaleout.batch.decide`): the queued claims follow
        the state it decides from (`QueuedClaims.follow`)."""
        self._queued.follow(states)

    def applied(
        self,
        result: Processed[TableRecord | OpenTable],
        batch_states: dict[Where, dict[bytes, Any]],
        progress: dict[Where, int],
        outcomes: list[str],
        states: Mapping[Where, PartitionState[Any]],
    ) -> Processed[TableRecord | OpenTable]:
        """``result`` (an accepted table event) with each claim it may apply here replaced by
        the meter lane's outputs, the meters' records put into ``batch_states``, their
        partitions' progress into ``progress`` and their outcomes into ``outcomes``; the table's
        record with its ``owed`` claims brought up to date."""
        record, topic = result.record, self.topic
        if record is None:
            return result
        if not record.owed and _claimless(result.outputs, topic):
            return result  # what the loop below gives back for it, unchanged
        owed = {m: (seq, index) for m, seq, index in record.owed}
        outputs = []
        for out in result.outputs:
            if out.topic != topic:
                outputs.append(out)
                continue
            if self._contribution(out, owed, outputs, batch_states, progress, outcomes, states):
                continue  # a lock's contribution, applied in one step (`Contributions`)
            # the operation the record holds; a `Claim` hands it over without its bytes
            op = out.op() if type(out) is Claim else op_from_bytes(out.value)
            where, key = self._place(op.meter_id)
            owned, meter = self._meter(where, key, batch_states, states)
            if isinstance(meter, OpenMeter):  # the reference's steps read the frozen record
                meter = batch_states[where][key] = meter.seal()
            done = None
            if owned and self._in_order(meter, op.meter_id, op.table_id, owed):
                done = self._meters.local(meter, op, where[1])
            if done is None or done.record is None:
                outputs.append(out)
                owed[op.meter_id] = (op.table_seq, op.index)
                self._queued.wrote(op.meter_id, op.table_id, (op.table_seq, op.index))
                continue
            owed.pop(op.meter_id, None)
            outputs.extend(done.outputs)
            outcomes.append(done.outcome)
            batch_states.setdefault(where, {})[key] = done.record
            progress.setdefault(where, states[where].progress or 0)
        kept: Owed = tuple(sorted((m, seq, index) for m, (seq, index) in owed.items()))
        if kept != record.owed:
            record = record.owing(kept)
        return processed(result.outcome, record, tuple(outputs))

    def _contribution(  # noqa: PLR0917 - `applied`'s own arguments, handed on
        self,
        out: Output,
        owed: dict[str, tuple[int, int]],
        outputs: list[Output],
        batch_states: dict[Where, dict[bytes, Any]],
        progress: dict[Where, int],
        outcomes: list[str],
        states: Mapping[Where, PartitionState[Any]],
    ) -> bool:
        """Whether ``out`` was a contribution claim `Contributions.contributed` applied here (its
        outputs, record, progress and outcome put where `applied` puts `MeterProcessor.local`'s);
        False leaves everything as it was, for `applied`'s general way."""
        if type(out) is not Claim:
            return False
        claim = out.claim
        if type(claim) is not ContributionClaim:
            return False
        meter_id = claim.meter_id
        where, key = self._place(meter_id)
        owned, meter = self._meter(where, key, batch_states, states)
        if meter is None or not owned or not self._in_order(meter, meter_id, claim.table_id, owed):
            return False
        if self._open:
            grown = self._lean.grown(meter, claim, out.table_seq, out.index)
            if grown is None:
                return False
            opened, made = grown
            if opened is not meter:  # opened here: the batch holds it from now on
                batch_states.setdefault(where, {})[key] = opened
                progress.setdefault(where, states[where].progress or 0)
        else:
            assert not isinstance(meter, OpenMeter)  # none is opened on this way
            done = self._lean.contributed(meter, claim, out.table_seq, out.index)
            if done is None:
                return False
            made = done[1]
            batch_states.setdefault(where, {})[key] = done[0]
            progress.setdefault(where, states[where].progress or 0)
        owed.pop(meter_id, None)
        outputs.extend(made)
        outcomes.append("applied")
        return True

    def _in_order(
        self,
        meter: MeterRecord | OpenMeter | None,
        meter_id: str,
        table_id: str,
        owed: dict[str, tuple[int, int]],
    ) -> bool:
        """Whether a claim of the table applied here keeps the meter's order: every claim the
        table wrote to the topic for the meter is applied (order per (meter, table)), and so is
        every claim another table of this worker left there (order across tables,
        `streams.scaleout.queued`)."""
        if not _caught_up(meter, table_id, owed.get(meter_id)):
            return False
        if meter_id not in self._queued_meters:
            return True
        return self._queued.none_before(meter_id, None if meter is None else meter.marks)

    @staticmethod
    def _meter(
        where: Where,
        key: bytes,
        batch_states: dict[Where, dict[bytes, Any]],
        states: Mapping[Where, PartitionState[Any]],
    ) -> tuple[bool, MeterRecord | OpenMeter | None]:
        """Whether this worker owns the meter's partition and it has progress (else the claim
        goes to the topic), and the meter's record as it stands (this batch's first, maybe
        open; None: not seeded yet)."""
        state = states.get(where)
        if state is None or state.progress is None:
            return False, None
        pending = batch_states.get(where)
        if pending is not None and key in pending:
            found: MeterRecord | OpenMeter = pending[key]
            return True, found
        return True, state.get(key)


def _claimless(outputs: tuple[Output, ...], topic: str) -> bool:
    """Whether none of ``outputs`` is a claim (a record on ``topic``): a plain loop, as this
    runs for every accepted table event (``all`` over a generator showed as ~2% of a table
    event's time in a sampling profile)."""
    for out in outputs:  # noqa: SIM110 - see above
        if out.topic == topic:
            return False
    return True


def _caught_up(
    meter: MeterRecord | OpenMeter | None, table_id: str, owed: tuple[int, int] | None
) -> bool:
    """Whether every claim the table wrote to the topic for this meter has been applied."""
    if owed is None:
        return True
    mark = None if meter is None else meter.marks.get(table_id)
    return mark is not None and mark >= owed
