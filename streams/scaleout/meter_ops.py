"""Meter operations (claims) as JSON: what the round lane hands the meter lane on the
meter-claims topic, written and read on a fast path proven equal to the readable one.

A meter operation names its source (table, table seq, step index): the meter processor's
idempotency watermark per (meter, table) is the last (seq, index) it applied.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final, Literal

import msgspec

from controller.fast.build import CLAIM_FIELDS, CONTRIBUTION_CLAIM
from controller.meter import ContributionClaim, HitClaim, MeterClaim, ReversalClaim
from controller.model.errors import InvalidEvent
from streams.scaleout.records import FAST_WRITER, dumps, fast_builder

OpKind = Literal["seed", "contribution", "reversal", "hit"]
_FIELDS: dict[type, tuple[str, ...]] = {}


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
    return meter_op(
        claim.meter_id, kind, claim.table_id, table_seq, index, claim.occurred_at, claim
    )


meter_op: Final = fast_builder(
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
            out = FAST_WRITER.encode(body)
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


#: The struct reader, only while the claim has exactly the fields it reads, in the order
#: `CONTRIBUTION_CLAIM` takes them.
_READ_CONTRIBUTION: Final = (
    msgspec.json.Decoder(_ContributionOp)
    if _ContributionFields.__struct_fields__
    == CLAIM_FIELDS
    == tuple(f.name for f in dataclasses.fields(ContributionClaim))
    else None
)


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
        claim = CONTRIBUTION_CLAIM(*fields, c.primary_sub, c.reserve_sub, c.occurred_at)
        return meter_op(  # meter_id, kind, table_id, table_seq, index, occurred_at, claim
            op.meter_id, "contribution", op.table_id, op.table_seq, op.index, op.occurred_at, claim
        )
    return reference_op_from_bytes(payload)


def reference_op_from_bytes(payload: bytes) -> MeterOp:
    """`op_from_bytes` by `json` alone: the definition of what a record holds."""
    try:
        body = json.loads(payload)
        kind = body["kind"]
        claim = None if kind == "seed" else _claim(kind, body["claim"])
        return meter_op(  # meter_id, kind, table_id, table_seq, index, occurred_at, claim
            str(body["meter_id"]),
            kind,
            str(body["table_id"]),
            int(body["table_seq"]),
            int(body["index"]),
            str(body["occurred_at"]),
            claim,
        )
    except (ValueError, KeyError, TypeError, RecursionError, OverflowError) as exc:  # 1e999
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
