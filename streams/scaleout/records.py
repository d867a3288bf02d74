"""What the scale-out engine's processors write, as plain records: outputs with deterministic ids,
and meter operations (claims) as JSON.

Every output carries a ``dedupe_id`` header that is a pure function of its input, so a redelivered
input re-emits byte-identical records with the same ids and any reader keeps the first:

=======================  =========================================================================
record                   dedupe_id
=======================  =========================================================================
accepted table event     its ``event_id``
step ``i`` of an event   ``{event_id}#{i}`` (a meter claim, a fixed or envy award)
meter event              ``{meter_id}@{meter_seq}`` (the meter's own operation number)
progressive award        its ``hit_id`` on the awards topic
rejection, dead letter   ``rejected@{topic}:{partition}:{offset}`` (the input's place in the log)
=======================  =========================================================================

A meter operation names its source (table, table seq, step index): the meter processor's
idempotency watermark per (meter, table) is the last (seq, index) it applied.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any, Final, Generic, Literal, TypeVar

import msgspec

from controller.fast.build import builder
from controller.meter import ContributionClaim, HitClaim, MeterClaim, ReversalClaim
from controller.model.errors import InvalidEvent
from controller.model.events import Event
from streams.codec import MAX_RAW_KEPT, Output, encode
from streams.scaleout.award_record import Award, award_body

#: `streams.adapters.kafka.topics.TopicNames.awards` is ``{prefix}.awards``.
AWARDS_SUFFIX = ".awards"
OpKind = Literal["seed", "contribution", "reversal", "hit"]
R = TypeVar("R")
_FAST = msgspec.json.Encoder(order="sorted")
_FIELDS: dict[type, tuple[str, ...]] = {}
_REFERENCE = json.JSONEncoder(separators=(",", ":"), sort_keys=True)


@dataclass(frozen=True, slots=True)
class SourcePos:
    """Where an input record sits in the log, and its timestamp (ms since the epoch)."""

    topic: str
    partition: int
    offset: int
    timestamp_ms: int = 0

    @property
    def label(self) -> str:
        return f"{self.topic}:{self.partition}:{self.offset}"

    def occurred_at(self) -> str:
        """The record's timestamp as RFC 3339: a clock reading fixed in the log, so it is the
        same on every redelivery."""
        moment = datetime.fromtimestamp(self.timestamp_ms / 1000, UTC)
        return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def coalesced(outputs: list[Output]) -> list[Output]:
    """``outputs`` without each latest-wins record a later one of its topic and key supersedes:
    a batch of 500 events from 8 tables writes 8 liveness records, not 500 (measured: one per
    event cost the worker a visible share of its throughput on a 2-core host)."""
    last: dict[tuple[str, str], int] = {}
    for index, out in enumerate(outputs):
        if out.latest_wins:
            last[(out.topic, out.key)] = index
    if not last:
        return outputs
    return [
        out
        for index, out in enumerate(outputs)
        if not out.latest_wins or last[(out.topic, out.key)] == index
    ]


@dataclass(frozen=True, slots=True)
class Processed(Generic[R]):
    """What one input did: an outcome (a metrics label), the key's state record after it (None:
    leave the stored record as it is) and the records to produce, in order."""

    outcome: str
    record: R | None
    outputs: tuple[Output, ...] = ()


#: Positional constructors of the records made once or more per input (`controller.fast.build`:
#: each slot set through its own descriptor, where a frozen dataclass's ``__init__`` looks up
#: ``object.__setattr__`` per field, ~1 µs for five fields): the same objects, field for field.
source_pos: Final = builder(SourcePos, ("topic", "partition", "offset", "timestamp_ms"))
processed: Final = builder(Processed, ("outcome", "record", "outputs"))
output: Final = builder(Output, ("topic", "key", "value", "dedupe_id"))


def safe_key(value: str) -> str:
    """A record key from text no door has vouched for: at most 64 characters (a table id's
    limit), and encodable. A lone surrogate or a megabyte-long table id would make the record
    unproducible: at ingest the run would crash, in a worker the batch would fail and the worker
    crash on the same record after every restart."""
    return value[:64].encode("utf-8", "replace").decode("utf-8")


def dead_letter(topic: str, key: str, raw: bytes, reason: str, pos: SourcePos) -> Output:
    """The dead-letter record: the raw input as received (as text, at most 64 KiB), the reason and
    where it came from."""
    body = {
        "reason": reason,
        "raw": raw[:MAX_RAW_KEPT].decode("utf-8", "replace"),
        "source": pos.label,
        "occurred_at": pos.occurred_at(),
    }
    return Output(topic, key, dumps(body), f"rejected@{pos.label}")


def event_output(topic: str, key: str, event: Event, dedupe_id: str) -> Output:
    """An event as the log stores it (`streams.codec.encode`, its bytes); on the awards topic,
    the outward award record (`streams.scaleout.award_record`: the contract's dollar strings, not
    the log's integer units). Both processors write awards through here, so the topic decides
    the spelling in one place."""
    if topic.endswith(AWARDS_SUFFIX) and isinstance(event, Award):
        return Output(topic, key, dumps(award_body(event, dedupe_id)), dedupe_id)
    return output(topic, key, encode(event), dedupe_id)


def dumps(value: object) -> bytes:
    """Compact, key-sorted JSON (one value, one byte string): `reference_dumps`'s bytes, written
    by msgspec (several times faster: the worker writes one or more of these per input) when
    they are printable ASCII throughout, where the two encoders cannot differ (they differ only
    in escapes); anything else by json (``tests/streams/scaleout/test_fast_records.py``). The
    values are ints, strings, bools, None, lists and dicts: no float, whose spelling differs."""
    try:
        out = _FAST.encode(value)
    except (TypeError, ValueError, OverflowError):  # a lone surrogate, a type msgspec lacks
        return reference_dumps(value)
    if out.isascii() and b"\\" not in out and b"\x7f" not in out:
        return out
    return reference_dumps(value)


def reference_dumps(value: object) -> bytes:
    """The definition of `dumps`'s bytes: json's compact, key-sorted, ASCII-escaped form."""
    return _REFERENCE.encode(value).encode()


@dataclass(frozen=True, slots=True)
class MeterOp:
    """One operation on a meter: a claim from a table step, or the opening seed."""

    meter_id: str
    kind: OpKind
    table_id: str
    table_seq: int
    index: int
    occurred_at: str
    claim: MeterClaim | None = None

    @property
    def op_id(self) -> str:
        if self.kind == "seed":
            return f"seed:{self.meter_id}"
        return f"{self.table_id}:{self.table_seq}#{self.index}"


def seed_op(meter_id: str, occurred_at: str) -> MeterOp:
    """The opening seed of a meter (applied once: only while the meter has no state)."""
    return MeterOp(meter_id, "seed", "", 0, 0, occurred_at)


def claim_op(claim: MeterClaim, table_seq: int, index: int) -> MeterOp:
    """A table step's claim on a meter, with where it came from."""
    kind: OpKind
    match claim:
        case ContributionClaim():
            kind = "contribution"
        case ReversalClaim():
            kind = "reversal"
        case HitClaim():
            kind = "hit"
    return _meter_op(
        claim.meter_id, kind, claim.table_id, table_seq, index, claim.occurred_at, claim
    )


_meter_op: Final = builder(
    MeterOp, ("meter_id", "kind", "table_id", "table_seq", "index", "occurred_at", "claim")
)


def op_to_bytes(op: MeterOp) -> bytes:
    """The JSON a meter operation travels as."""
    body: dict[str, Any] = {
        "meter_id": op.meter_id,
        "kind": op.kind,
        "table_id": op.table_id,
        "table_seq": op.table_seq,
        "index": op.index,
        "occurred_at": op.occurred_at,
    }
    if op.claim is not None:
        body["claim"] = _claim_fields(op.claim)
    return dumps(body)


#: The claim kinds whose fields are all plain (text, integers): msgspec writes the dataclass itself
#: as the object of its fields, key-sorted, which is the dict `_claim_fields` makes.
_PLAIN_KINDS: Final[dict[type, OpKind]] = {
    ContributionClaim: "contribution",
    ReversalClaim: "reversal",
}


def claim_bytes(claim: MeterClaim, table_seq: int, index: int) -> bytes:
    """``op_to_bytes(claim_op(claim, table_seq, index))``, without the `MeterOp` and the claim's
    field dict in between for the plain kinds (a contribution is one or more claims per locked
    wager): the body handed to msgspec with the claim dataclass in it, its bytes kept only when
    they are printable ASCII as `dumps` keeps them; anything else (a hit, a field that needs an
    escape) through `op_to_bytes` (``tests/streams/scaleout/test_fast_records.py``)."""
    kind = _PLAIN_KINDS.get(type(claim))
    if kind is not None:
        body = {
            "meter_id": claim.meter_id,
            "kind": kind,
            "table_id": claim.table_id,
            "table_seq": table_seq,
            "index": index,
            "occurred_at": claim.occurred_at,
            "claim": claim,
        }
        try:
            out = _FAST.encode(body)
        except (TypeError, ValueError, OverflowError):  # a lone surrogate: json escapes it
            out = b"\\"
        if out.isascii() and b"\\" not in out and b"\x7f" not in out:
            return out
    return op_to_bytes(claim_op(claim, table_seq, index))


def _claim_fields(claim: MeterClaim) -> dict[str, Any]:
    names = _FIELDS.get(type(claim))
    if names is None:  # looked up once per claim class: `dataclasses.fields` is slow
        names = _FIELDS[type(claim)] = tuple(f.name for f in dataclasses.fields(claim))
    fields = {name: getattr(claim, name) for name in names}
    if isinstance(claim, HitClaim):
        fields["share"] = f"{claim.share.numerator}/{claim.share.denominator}"
        fields["cards"] = list(claim.cards)
        fields["recipients"] = list(claim.recipients)
    return fields


class _ContributionFields(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A contribution claim's fields as `_claim` takes them (``ContributionClaim(**fields)``: no
    other key, none missing), each of the type this code writes."""

    meter_id: str
    table_id: str
    round_id: str
    seat: int
    wager: str
    on: str
    wager_cents: int
    primary_sub: int
    reserve_sub: int
    occurred_at: str


class _ContributionOp(msgspec.Struct, gc=False):
    """A contribution operation as `op_from_bytes` reads it (other keys ignored, as there)."""

    meter_id: str
    kind: Literal["contribution"]
    table_id: str
    table_seq: int
    index: int
    occurred_at: str
    claim: _ContributionFields


_CONTRIBUTION_FIELDS: Final = tuple(f.name for f in dataclasses.fields(ContributionClaim))
#: The struct reader, only while the claim has exactly the fields it reads.
_READ_CONTRIBUTION: Final = (
    msgspec.json.Decoder(_ContributionOp)
    if _ContributionFields.__struct_fields__ == _CONTRIBUTION_FIELDS
    else None
)
_contribution_claim: Final = builder(ContributionClaim, _CONTRIBUTION_FIELDS)


def op_from_bytes(payload: bytes) -> MeterOp:
    """The meter operation a record holds; InvalidEvent if it is not one.

    A contribution (most of the meter lane's input) is read by msgspec into `_ContributionOp`
    and built positionally: the same `MeterOp` as `reference_op_from_bytes` makes, for every
    input the strict struct accepts (ASCII only: what this code writes, escapes included; a
    field of another JSON type, a key missing or too many, a lone surrogate, a non-ASCII byte:
    the struct refuses and the reference reads it, accepting or wording the refusal as ever)."""
    if _READ_CONTRIBUTION is not None and payload.isascii():
        try:
            op = _READ_CONTRIBUTION.decode(payload)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return reference_op_from_bytes(payload)
        c = op.claim
        fields = (c.meter_id, c.table_id, c.round_id, c.seat, c.wager, c.on, c.wager_cents)
        claim = _contribution_claim(*fields, c.primary_sub, c.reserve_sub, c.occurred_at)
        return _meter_op(  # meter_id, kind, table_id, table_seq, index, occurred_at, claim
            op.meter_id, "contribution", op.table_id, op.table_seq, op.index, op.occurred_at, claim
        )
    return reference_op_from_bytes(payload)


def reference_op_from_bytes(payload: bytes) -> MeterOp:
    """`op_from_bytes` by `json` alone: the definition of what a record holds."""
    try:
        body = json.loads(payload)
        kind = body["kind"]
        claim = None if kind == "seed" else _claim(kind, body["claim"])
        return _meter_op(  # meter_id, kind, table_id, table_seq, index, occurred_at, claim
            str(body["meter_id"]),
            kind,
            str(body["table_id"]),
            int(body["table_seq"]),
            int(body["index"]),
            str(body["occurred_at"]),
            claim,
        )
    except (ValueError, KeyError, TypeError, RecursionError) as exc:  # deep nesting: no crash
        msg = f"not a meter operation: {exc!r}"
        raise InvalidEvent(msg) from exc


def _claim(kind: str, fields: dict[str, Any]) -> MeterClaim:
    match kind:
        case "contribution":
            return ContributionClaim(**fields)
        case "reversal":
            return ReversalClaim(**fields)
        case "hit":
            numerator, denominator = str(fields["share"]).split("/")
            return HitClaim(
                **{
                    **fields,
                    "share": Fraction(int(numerator), int(denominator)),
                    "cards": tuple(fields["cards"]),
                    "recipients": tuple(fields["recipients"]),
                }
            )
    msg = f"unknown meter operation kind {kind!r}"
    raise ValueError(msg)
