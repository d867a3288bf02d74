"""The round processor's meter claims, encoded only when read, and handed to local apply as the
operation they carry.

A table event's claim (`streams.scaleout.rounds`) is an output on ``<p>.meter-claims``. When the
worker owns the claim's meter, local apply (`streams.scaleout.local_apply`) applies it in the
round lane's own batch instead and the claim is never written; main encoded every claim
(`streams.scaleout.meter_ops.claim_bytes`) and local apply decoded it straight back
(`op_from_bytes`), a visible share of the worker's CPU on a lock's claims. A `Claim` (made by
`new_claim`) is an `Output` whose ``value`` is those bytes, written from its fields when first
read (the worker reads them only for a claim it produces), and whose `op` is the operation
`op_from_bytes` reads from them: for a contribution (all of a lock's claims) built from the
claim itself, its fields being text and integers, which JSON gives back as they were
(``tests/streams/scaleout/test_claim_output.py``); for a reversal or a hit read back from the
bytes, as main did.
"""

from __future__ import annotations

from typing import Any, Final

from controller.claims import ContributionClaim
from controller.meter import MeterClaim
from streams.codec import Output
from streams.scaleout.meter_ops import MeterOp, claim_bytes, meter_op, op_from_bytes
from streams.scaleout.records import slot_setter


class Claim(Output):
    """A table step's claim on meter ``key`` (``claim``, step ``index`` of the table event whose
    seq is ``table_seq``), an `Output` as the eager one main wrote (module docstring).

    The parent's ``value`` slot stays empty: the property stands for it, so equality, hashing and
    ``repr`` (the dataclass's, reading attributes) see the same fields as an eager `Output`'s."""

    __slots__ = ("claim", "encoded", "index", "table_seq")
    claim: MeterClaim
    table_seq: int
    index: int
    encoded: bytes | None

    def __init__(  # noqa: PLR0917 - positional, as `new_claim` takes them; key: the meter_id
        self, topic: str, key: str, dedupe_id: str, claim: MeterClaim, table_seq: int, index: int
    ) -> None:
        _SETS[0](self, topic)  # a frozen parent: its slots are set through their descriptors
        _SETS[1](self, key)
        _SETS[2](self, dedupe_id)
        _SETS[3](self, False)
        _SETS[4](self, claim)
        _SETS[5](self, table_seq)
        _SETS[6](self, index)
        _SETS[7](self, None)

    @property
    def value(self) -> bytes:
        """`claim_bytes`'s JSON, as the eager `Output` held it (written once, then kept)."""
        encoded = self.encoded
        if encoded is None:
            encoded = claim_bytes(self.claim, self.table_seq, self.index)
            _SETS[7](self, encoded)
        return encoded

    def op(self) -> MeterOp:
        """``op_from_bytes(self.value)``: for a contribution without the bytes in between."""
        claim = self.claim
        if type(claim) is ContributionClaim:
            return meter_op(  # meter_id, kind, table_id, table_seq, index, occurred_at, claim
                claim.meter_id,
                "contribution",
                claim.table_id,
                self.table_seq,
                self.index,
                claim.occurred_at,
                claim,
            )
        return op_from_bytes(self.value)


#: The slot setters `Claim` uses (`object.__setattr__` by name costs twice as much).
_SETS: Final[tuple[Any, ...]] = tuple(
    vars(cls)[name].__set__
    for cls, name in (
        (Output, "topic"),
        (Output, "key"),
        (Output, "dedupe_id"),
        (Output, "latest_wins"),
        (Claim, "claim"),
        (Claim, "table_seq"),
        (Claim, "index"),
        (Claim, "encoded"),
    )
)
#: ``Claim(topic, key, dedupe_id, claim, table_seq, index)``, natively when the process runs the
#: extension (`streams.scaleout.records.slot_setter`).
new_claim: Final = slot_setter(
    Claim,
    ("topic", "key", "dedupe_id", "claim", "table_seq", "index"),
    {"latest_wins": False, "encoded": None},
    Claim,
)
