"""A wager's and a decision's amount in cents, read off the door's structs: compiled.

`streams.door.contract_structs` makes `WagerPlacedStruct.amount_cents` and
`DecisionStruct.amount_cents` properties of these functions. The session reads a wager's amount
several times (its check against a linked wager's unit, the lock's pricing, the settlement's
read) and a decision's twice: ~1.4 reads a hot line. As interpreted properties each read was a
Python frame called from compiled code; compiled (`streams.compiled.COMPILED`), a call to a
builtin and one dict lookup (bench/PROPOSALS.md, "The hot line's glue"). Interpreted (no
build, ``JACKPOT_COMPILED=0``) the same functions give the same answers.

Nothing of the structs is imported here (they import this module): the getters read the one
field they need through a protocol.
"""

from __future__ import annotations

from typing import Final, Protocol

from msgspec import UNSET, UnsetType

from controller.model.money import parse_cents

_CENTS: Final[dict[str, int]] = {}
_CENTS_KEPT: Final = 4_096  # a floor uses a few distinct amounts; a hostile stream cannot grow this


class _Wager(Protocol):
    @property
    def amount(self) -> str: ...


class _Decision(Protocol):
    @property
    def amount(self) -> str | UnsetType: ...


def cents(text: str) -> int:
    """`parse_cents` of an amount its pattern accepted, remembered per text (the session
    reads a wager's amount several times: its checks, the lock's pricing, the settlement)."""
    value = _CENTS.get(text)
    if value is None:
        value = parse_cents(text)
        if len(_CENTS) < _CENTS_KEPT:
            _CENTS[text] = value
    return value


def wager_cents(struct: _Wager) -> int:
    """`WagerPlacedStruct.amount_cents`: the amount in cents (a known text is one lookup)."""
    amount = struct.amount
    known = _CENTS.get(amount)
    return cents(amount) if known is None else known


def decision_cents(struct: _Decision) -> int | None:
    """`DecisionStruct.amount_cents`: the amount in cents, None when the line names none."""
    amount = struct.amount
    if amount is UNSET:
        return None
    known = _CENTS.get(amount)
    return cents(amount) if known is None else known
