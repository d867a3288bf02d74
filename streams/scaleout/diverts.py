"""A ceiling's ``divert:<meter>`` overflow on the Kafka engine (NY 9 NYCRR 5320.8, N.J.A.C.
13:69E-1.39A: what a contribution would put above a meter's ceiling is contributed to the named
meter instead; `controller.ceiling`).

The target meter has a single writer of its own, on its own ``meter-claims`` partition (key =
meter id), so the source meter's processor cannot apply the excess itself. It emits a **divert
record** keyed by the target meter to ``meter-claims``, as one more output of the batch: it is
produced in the SAME transaction as the source meter's event, its changelog record and the
consumed offsets (`streams.scaleout.txloop`), so it exists exactly when the source's diverting
contribution is committed, never without it and never twice as far as a ``read_committed``
reader (the target's processor) can tell.

The target applies it exactly once: a record names its source meter and the source event's
``meter_seq``; one writer per source meter emits its diverts in increasing ``meter_seq`` order, so
the target keeps a watermark per source meter (`streams.scaleout.meters.MeterRecord.diverts`)
and skips a record at or below it (a redelivery after an operator moved offsets back).

Its ``dedupe_id`` is ``{source}@{meter_seq}>{target}``, a pure function of the source event.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass

from controller.ceiling import DivertClaim, onward_claim
from controller.model.errors import InvalidEvent
from controller.model.events import MeterEvent
from streams.codec import Output
from streams.scaleout.records import dumps

DIVERT_KIND = "divert"
#: How a divert record's JSON starts to say what it is (`dumps` sorts keys: "claim" comes first,
#: then "from_seq", "kind"); a cheap test before the full parse, which still checks everything.
_MARK = b'"kind":"divert"'


@dataclass(frozen=True, slots=True)
class DivertOp:
    """A divert record: the claim on the target meter and the source event's ``meter_seq``."""

    claim: DivertClaim
    from_seq: int

    @property
    def meter_id(self) -> str:
        return self.claim.meter_id

    @property
    def occurred_at(self) -> str:
        return self.claim.occurred_at


def divert_output(topic: str, event: MeterEvent) -> Output | None:
    """The divert record a meter event makes (None if it diverts nothing), keyed by the target."""
    claim = onward_claim(event)
    if claim is None:
        return None
    body = {
        "kind": DIVERT_KIND,
        "meter_id": claim.meter_id,
        "from_seq": event.meter_seq,
        "claim": dataclasses.asdict(claim),
    }
    dedupe = f"{claim.from_meter_id}@{event.meter_seq}>{claim.meter_id}"
    return Output(topic, claim.meter_id, dumps(body), dedupe)


def is_divert(raw: bytes) -> bool:
    """Whether ``raw`` claims to be a divert record (`divert_from_bytes` decides if it is one)."""
    return _MARK in raw


def divert_from_bytes(raw: bytes) -> DivertOp:
    """The divert a record holds; InvalidEvent if it is not one (never a crash on rogue bytes)."""
    try:
        body = json.loads(raw)
        if body["kind"] != DIVERT_KIND:
            msg = f"kind {body['kind']!r}"
            raise ValueError(msg)
        fields = body["claim"]
        claim = DivertClaim(
            meter_id=str(fields["meter_id"]),
            from_meter_id=str(fields["from_meter_id"]),
            table_id=str(fields["table_id"]),
            round_id=str(fields["round_id"]),
            amount_sub=int(fields["amount_sub"]),
            occurred_at=str(fields["occurred_at"]),
        )
        op = DivertOp(claim, int(body["from_seq"]))
    except (ValueError, KeyError, TypeError, RecursionError, OverflowError) as exc:  # 1e999
        msg = f"not a divert record: {exc!r}"
        raise InvalidEvent(msg) from exc
    if claim.meter_id != str(body["meter_id"]) or claim.amount_sub <= 0 or op.from_seq <= 0:
        msg = "not a divert record: its target, amount or source seq is not one"
        raise InvalidEvent(msg)
    return op
