"""A meter's record held open (mutable) across the contributions local apply gives it in one
decided batch.

Local apply's frozen way (`streams.scaleout.contribute.Contributions.contributed`, the reference
kept as it is) builds per contribution a `MeterState` (18 fields, the ``open_rounds`` map set),
a copy of the table marks and a `MeterRecord`: ~10 contributions a lock, most of a batch's on a
floor's one or two meters, and only the batch's last record of a meter is ever stored or read
(`streams.scaleout.batch.decide` seals them at its end, as it seals the round lane's open tables,
`streams.scaleout.open_table`). So a meter is opened at its first plain contribution of a batch
(a dict of marks and a map mutation it writes to, its sums as integers) and sealed into the
frozen record once: when the batch is decided, or before anything else reads it (a hit, a
reversal, a claim read from the topic, any claim that is not the plain case: the reference then
runs on the sealed record).

Opening copies the marks and mutates a copy of the round map (`immutables.Map.mutate`): the
record it came from (the committed state, or a record of this batch) is never changed, so an
aborted or dropped batch leaves the state as it was. A sealed record is byte for byte the one
the frozen way's chain gives (``tests/streams/scaleout/test_procs_differential.py``, the
``open_meters`` lane).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, cast

from controller.claims import ContributionClaim
from controller.config.floor import MeterDef
from controller.fast.meter_lane import METER_FIELDS, METER_PLAIN, meter_event
from controller.model.events import ContributionRecorded
from controller.model.state import MeterState
from streams import native
from streams.codec import Output
from streams.scaleout.diverts import divert_output
from streams.scaleout.meters import MeterRecord, meter_record
from streams.scaleout.records import event_output, fast_builder, output

if TYPE_CHECKING:
    from immutables import MapMutation

#: `MeterState`'s positional maker, as `controller.fast.meter_lane.next_meter` builds it
_METER: Final = fast_builder(MeterState, METER_FIELDS)
#: the extension's writer of a contribution's log record, as `records.event_output` writes it
#: (None without the extension)
_WRITER: Final = native.contribution_writer(ContributionRecorded)


def _recorded_output(topic: str, key: str, event: ContributionRecorded, dedupe_id: str) -> Output:
    """`records.event_output(topic, key, event, dedupe_id)` of a contribution on the meter
    events topic: its record written natively when the extension runs (`_WRITER`)."""
    written = None if _WRITER is None else _WRITER(event)
    if written is None:
        return event_output(topic, key, event, dedupe_id)
    return output(topic, key, written, dedupe_id)


class OpenMeter:
    """A meter's record open in a batch: its sums, marks and open rounds growing in place, the
    rest as read. `meter_event` reads it as a `MeterState` (``seq``, ``amount_sub``)."""

    __slots__ = (
        "amount_sub", "base", "contributed_sub", "contributions", "diverts", "hold", "marks",
        "meter", "meter_id", "offset", "overflow_sub", "partition", "reserve_sub", "rounds",
        "seq", "transferred_sub",
    )  # fmt: skip

    def __init__(self, record: MeterRecord) -> None:
        meter = record.meter
        self.meter = meter  # the fields a contribution leaves as they are
        self.base = meter.seeded_sub - meter.paid_sub + meter.corrected_sub  # `explained_sub`'s
        self.meter_id, self.seq = meter.meter_id, meter.seq
        self.amount_sub, self.reserve_sub = meter.amount_sub, meter.reserve_sub
        self.contributed_sub, self.contributions = meter.contributed_sub, meter.contributions
        self.overflow_sub, self.transferred_sub = meter.overflow_sub, meter.transferred_sub
        self.rounds: MapMutation[str, tuple[str, int, int]] = meter.open_rounds.mutate()
        self.marks: dict[str, tuple[int, int]] = dict(record.marks)
        self.partition, self.offset = record.partition, record.offset
        self.diverts, self.hold = record.diverts, record.hold

    def took(
        self, definition: MeterDef, claim: ContributionClaim, mark: tuple[int, int], topics: Topics
    ) -> tuple[Output, ...] | None:
        """`Contributions.contributed`'s step, in place: ``claim`` (above the table's mark, the
        meter no mystery level: the caller checked) decided (`meter_event`) and added as
        `next_meter` adds it; its outputs. None, nothing changed, if the meter would break
        conservation (the reference then raises)."""
        # `decide_meter`: a contribution reads the meter's ``seq`` and ``amount_sub`` (ceiling)
        made = meter_event(cast("MeterState", self), definition, claim)
        event = cast("ContributionRecorded", made)
        primary, reserve = event.primary_sub, event.reserve_sub  # `next_meter`'s sums
        overflow, diverted = event.overflow_sub, event.diverted_sub
        amount = self.amount_sub + primary - overflow - diverted
        reserved, contributed = self.reserve_sub + reserve, self.contributed_sub + primary + reserve
        overflowed, transferred = self.overflow_sub + overflow, self.transferred_sub - diverted
        if self.base + contributed + transferred != amount + reserved + overflowed:
            return None  # `explained_sub() != held_sub()`
        self.amount_sub, self.reserve_sub, self.contributed_sub = amount, reserved, contributed
        self.overflow_sub, self.transferred_sub = overflowed, transferred
        self.contributions += 1
        seq = self.seq = event.meter_seq
        table_id, rounds = claim.table_id, self.rounds
        # `controller.meter_evolve._with_contribution`: the table's open round added to, or
        # replaced by a newer round's entry (what stayed in the pool: primary less diverted)
        entry, pooled = rounds.get(table_id), primary - diverted
        if entry is not None and entry[0] == claim.round_id:
            rounds.set(table_id, (claim.round_id, entry[1] + pooled, entry[2] + reserve))
        else:
            rounds.set(table_id, (claim.round_id, pooled, reserve))
        self.marks[table_id] = mark  # `{**marks, table: mark}`: an old key keeps its place
        meter_id = self.meter_id
        first = _recorded_output(topics[0], meter_id, event, f"{meter_id}@{seq}")
        onward = divert_output(topics[1], event) if diverted else None  # (None: none diverted)
        return (first,) if onward is None else (first, onward)

    def seal(self) -> MeterRecord:
        """The frozen record the reference would hold now; this meter is done with (its marks
        go to the record, its map mutation is finished)."""
        m = self.meter
        meter = _METER(
            self.meter_id, self.amount_sub, self.reserve_sub, m.seeded_sub, self.contributed_sub,
            self.contributions, m.paid_sub, m.corrected_sub, m.hits, self.seq, self.overflow_sub,
            self.transferred_sub, m.retired, m.mystery_commitment, m.mystery_sealed,
            m.mystery_trigger_cents, m.mystery_salt, self.rounds.finish(),
        )  # fmt: skip
        return meter_record(meter, self.marks, self.partition, self.offset, self.diverts, self.hold)


#: (the meter events' topic, the meter-claims topic) a contribution's outputs go to
Topics = tuple[str, str]

#: Whether a meter can be opened here: `next_meter` builds `MeterState` positionally (else it
#: is `evolve_meter`, and so is local apply's every contribution)
OPENABLE: Final = METER_PLAIN
