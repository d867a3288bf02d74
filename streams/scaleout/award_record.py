"""The record on ``<p>.awards``: an award as the cage and the floor read it, in contract money.

The awards topic is read outside the project (cage, floor systems, audits), so its money is
spelled as the table-event contract spells it (`schemas/README.md`): a decimal string of dollars
with two decimals (``"1234.56"``), never an integer of cents or of the meters' sub-units. The
record is checked against ``schemas/award.v1.json``. The controller's own log (``<p>.events``, the
same bytes as the embedded engine's log) keeps the codec's exact integer units: it is not an
outward contract.

One record per award event (its ``award_id`` is the record's dedupe id: the hit id of a
progressive award, ``{event_id}#{i}`` of a fixed or envy award); ``paid`` lists each player
paid, so a split dealer-hand jackpot is one record with several payments whose amounts add up
to ``amount``.
"""

from __future__ import annotations

from typing import Any, Final

from controller.model.events import EnvyAwarded, FixedAwarded, ProgressiveHit
from controller.model.money import format_cents

AWARD_SCHEMA_VERSION: Final = 1
Award = ProgressiveHit | FixedAwarded | EnvyAwarded
#: The award kinds, as the metrics label them (``jackpot_awards_total{kind}``).
KINDS: Final = {ProgressiveHit: "progressive", FixedAwarded: "fixed", EnvyAwarded: "envy"}


def award_body(award: Award, award_id: str) -> dict[str, Any]:
    """The awards-topic record of ``award`` (see the module docstring)."""
    body: dict[str, Any] = {
        "schema_version": AWARD_SCHEMA_VERSION,
        "award_id": award_id,
        "kind": KINDS[type(award)],
        "meter_id": award.meter_id,
        "table_id": award.table_id,
        "round_id": award.round_id,
        "wager": award.wager,
        "hand": award.hand,
        "cards": list(award.cards),
        "occurred_at": award.occurred_at,
        "amount": format_cents(award.amount_cents),
    }
    match award:
        case ProgressiveHit():
            body["on"] = award.on
            body["share"] = award.share
            body["reset"] = award.reset
            paid = [(share.seat, share.amount_cents) for share in award.winners]
        case FixedAwarded():
            body["on"] = award.on
            if award.hit_id:  # a floorperson verifies it before it is paid (649a.11(c)(8)(ii))
                body["hit_id"] = award.hit_id
            paid = [(award.seat, award.amount_cents)]
        case EnvyAwarded():
            body["on"] = f"seat:{award.holder_seat}"  # whose hand won it (as `awards_view`)
            paid = [(award.seat, award.amount_cents)]
    body["paid"] = [{"seat": seat, "amount": format_cents(cents)} for seat, cents in paid]
    return body
