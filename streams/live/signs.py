"""What a sign says besides the amount: names players know, what the top hand pays, the last hit.

A player knows "Five Card Bonus", not ``TCP-FIVE-CARD-BONUS``: each panel is titled with the
meter's configured ``name`` (else its progressive's, else the id). A meter with reseed 0 reads
$0.24 right after a hit; beside "ROYAL FLUSH" that looks like the prize, so the subtitle says what
the rules pay, "ROYAL FLUSH WINS 100% OF METER", from the configuration's paytable. The venue's
title (``venue``) heads the sign, and ``links`` says which meters a table's own sign shows
(``/signage?tables=tcp-1``).

`LastHits` keeps each meter's last percentage-of-meter hit (amount, table, when the controller
received it, status) so each panel can show it, marked PENDING until a floorperson validates it
(649a.11(c)(5)(iii)).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from controller.config.floor import FloorConfig, MeterDef
from controller.model.money import format_cents

Row = dict[str, object]


@dataclass(frozen=True, slots=True)
class SignDisplay:
    """Per meter its title and subtitle; per table its meters; the venue's title."""

    labels: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    links: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    venue: str = ""


def sign_display(config: FloorConfig | None) -> SignDisplay:
    """The sign's text for ``config`` (empty before a configuration is active)."""
    if config is None:
        return SignDisplay()
    labels = {meter_id: meter_label(meter) for meter_id, meter in config.meters.items()}
    links = {
        table_id: tuple(dict.fromkeys(m for m in table.links.values() if m in config.meters))
        for table_id, table in config.tables.items()
    }
    return SignDisplay(labels=labels, links=links, venue=config.venue)


def meter_label(meter: MeterDef) -> tuple[str, str]:
    """The panel's title (a name players know) and subtitle (what the top hand wins, the unit)."""
    title = meter.name or meter.progressive.name or meter.meter_id.replace("-", " ").upper()
    unit = f"${format_cents(meter.unit_cents).removesuffix('.00')} WAGER"
    top = next(((h, a) for h, a in meter.progressive.pays if a.kind == "meter_percent"), None)
    if top is None:
        return title, unit
    hand, award = top
    return title, f"{hand.replace('_', ' ').upper()} WINS {award.describe().upper()} · {unit}"


def tables_meters(display: SignDisplay, tables: Iterable[str]) -> list[str]:
    """The meters linked to ``tables``, in configuration order, each once."""
    wanted = set(tables)
    order = list(display.labels)
    linked = {m for table in wanted for m in display.links.get(table, ())}
    return [m for m in order if m in linked]


class LastHits:
    """Each meter's last percentage-of-meter hit as its sign shows it; not thread-safe (the
    feed calls it under its lock)."""

    def __init__(self) -> None:
        self._by_meter: dict[str, Row] = {}
        self._meter_of: dict[str, str] = {}

    def hit(self, notice: Row) -> None:
        """A new hit on ``notice["meter_id"]``; it replaces the meter's last."""
        meter_id = str(notice["meter_id"])
        self._by_meter[meter_id] = dict(notice)
        if notice.get("hit_id"):
            self._meter_of[str(notice["hit_id"])] = meter_id

    def status(self, hit_id: str, status: str) -> Row | None:
        """The meter's last hit with its new status, if ``hit_id`` is still some meter's last."""
        meter_id = self._meter_of.get(hit_id)
        held = self._by_meter.get(meter_id or "")
        if held is None or held.get("hit_id") != hit_id:
            return None
        held["status"] = status
        return dict(held)

    def take(self, notices: Iterable[Row], rows: Iterable[Row]) -> list[tuple[str, str, Row]]:
        """A batch's hit notices and activity rows as (meter id, SSE event, body) for signs:
        each hit, then each last hit whose status changed (``last_hit``)."""
        out: list[tuple[str, str, Row]] = []
        for notice in notices:
            self.hit(notice)
            out.append((str(notice["meter_id"]), "hit", notice))
        for row in rows:
            if row.get("kind") != "hit_status":
                continue
            last = self.status(str(row["hit_id"]), str(row["status"]))
            if last is not None:
                out.append((str(last["meter_id"]), "last_hit", last))
        return out

    def of(self, meters: Iterable[str]) -> dict[str, Row]:
        """The last hits of ``meters`` (those with one)."""
        return {m: dict(self._by_meter[m]) for m in meters if m in self._by_meter}
