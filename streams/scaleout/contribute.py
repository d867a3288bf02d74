"""A lock's contribution claim applied to its meter in the round lane's batch, in one step.

Local apply (`streams.scaleout.local_apply`) hands most of the claims it applies to the meter
lane's logic: the contributions of a lock, one per linked wager. `MeterProcessor.local` takes each
through the meter lane's general steps (`MeterProcessor._operate`): the claim's operation and a
source position built for it, seed, mystery arming, the watermark, `decide_meter` and
`evolve_meter` (as `controller.fast.lane` writes them), the conservation check, the meter event's
record, any divert, a mystery hit, and the meter's record built twice (with the new meter, then
with the new mark and stamped) and wrapped in a `Processed`: ~8 µs a claim, most of local apply.

`contributed` is those steps for the case they all take the plain way, with nothing built that
the outputs and the stored record do not hold: a meter that has a record (no seed), is no
mystery level (nothing to arm or hit: `controller.mystery.hit_at_trigger` answers None for one),
and a claim above the table's mark. Anything else, and a meter that would break conservation,
answers None: the caller then asks `MeterProcessor.local`, which decides (and raises) as ever.
The record it stores is the one `local` stores: stamped with the record's own position, as a
claim applied here has no place in the meter-claims log.

``tests/streams/scaleout/test_contribute.py`` holds its answers equal to `local`'s, claim for
claim, and a worker using it equal to main's (``test_claim_output.py``).
"""

from __future__ import annotations

from controller.claims import ContributionClaim
from controller.config.floor import FloorConfig
from controller.fast.meter_lane import meter_event, next_meter
from streams.codec import Output
from streams.scaleout.diverts import divert_output
from streams.scaleout.meters import MeterRecord, meter_record
from streams.scaleout.open_meter import OPENABLE, OpenMeter
from streams.scaleout.records import event_output


class Contributions:
    """`contributed` for one floor and prefix: the meter lane's topics, named once."""

    def __init__(self, config: FloorConfig, events: str, claims: str) -> None:
        self._meters, self._events, self._claims = config.meters, events, claims
        self._topics = (events, claims)
        #: the meters that are no mystery level (`grown` asks per claim: the definition's
        #: ``mystery`` is a property, an interpreted call a claim from here)
        self._plain = {key: meter for key, meter in config.meters.items() if not meter.mystery}

    def contributed(
        self, record: MeterRecord, claim: ContributionClaim, table_seq: int, index: int
    ) -> tuple[MeterRecord, tuple[Output, ...]] | None:
        """The meter's next record and the claim's outputs (the meter event, and the divert if
        the ceiling sends part on) as `MeterProcessor.local` gives them for step ``index`` of the
        table event ``table_seq``; None when it is not the plain case (module docstring)."""
        definition = self._meters.get(claim.meter_id)
        if definition is None or definition.mystery:
            return None
        table_id, marks = claim.table_id, record.marks
        mark = marks.get(table_id)
        if mark is not None and (table_seq, index) <= mark:
            return None  # a duplicate: `local` says so
        event = meter_event(record.meter, definition, claim)  # `decide_meter`
        meter = next_meter(record.meter, event)  # `evolve_meter`
        if meter.explained_sub() != meter.held_sub():
            return None  # `local` raises the `InvariantViolation`
        meter_id = meter.meter_id
        first = event_output(self._events, meter_id, event, f"{meter_id}@{meter.seq}")
        onward = divert_output(self._claims, event)
        outputs = (first,) if onward is None else (first, onward)
        marked = {**marks, table_id: (table_seq, index)}
        at = (record.partition, record.offset)  # `local`'s stamp: the record's own position
        return meter_record(meter, marked, *at, record.diverts, record.hold), outputs

    def grown(
        self, record: MeterRecord | OpenMeter, claim: ContributionClaim, table_seq: int, index: int
    ) -> tuple[OpenMeter, tuple[Output, ...]] | None:
        """`contributed` the worker's way (`streams.scaleout.open_meter`): the claim added to
        the meter's open record (opened from ``record`` if it is frozen), the open record and
        the claim's outputs; None when it is not the plain case, an open ``record`` unchanged."""
        definition = self._plain.get(claim.meter_id)  # (None: no such meter, or a mystery)
        if definition is None or not OPENABLE:
            return None
        here = (table_seq, index)
        mark = record.marks.get(claim.table_id)
        if mark is not None and here <= mark:
            return None  # a duplicate: `local` says so
        meter = record if isinstance(record, OpenMeter) else OpenMeter(record)
        outputs = meter.took(definition, claim, here, self._topics)
        return None if outputs is None else (meter, outputs)
