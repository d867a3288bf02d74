"""A reconciliation as JSON (for other systems) and as CSV rows (for spreadsheets). Pure.

Meter amounts are exact decimal strings to the sub-unit ("1234.56789012", 8 decimals) so that a
spreadsheet can re-add them to the last digit; awards, which are whole cents, have 2 decimals.

The CSV is one long table, ``section, meter_id, item, count, amount, reserve, overflow, detail``.
In the ``balance`` section the rows from ``opening`` to ``corrections`` are signed so that their
``amount`` column sums to ``expected`` (and likewise ``reserve`` and ``overflow``); ``closing`` and
``difference`` follow.
"""

from __future__ import annotations

from collections.abc import Iterator

from controller.model.money import format_cents, format_subunits_exact
from controller.model.state import MeterState
from controller.reconciliation.period import (
    Correction,
    Finding,
    HitRow,
    MeterReport,
    Report,
    Reversal,
    Tally,
)

Document = dict[str, object]
CSV_HEADER = ("section", "meter_id", "item", "count", "amount", "reserve", "overflow", "detail")
REGULATOR_ROWS: tuple[str, ...] = ("contributions", "contributed", "hits", "total_won")
REGULATOR_ROWS += ("reserve", "ceiling", "overflow", "contributed_above_ceiling")
Row = tuple[str, str, str, str, str, str, str, str]
_sub = format_subunits_exact


def report_document(report: Report) -> Document:
    """The whole report as JSON-ready data."""
    return {
        "period": report.period,
        "opening_position": report.opening_position,
        "closing_position": report.closing_position,
        "records": report.records,
        "balanced": report.balanced,
        "meters": [meter_document(m) for m in report.meters],
        "findings": [finding_document(f) for f in report.findings],
        "notes": list(report.notes),
        "head_position": report.head_position,
        "head": [state_document(s) for s in report.head],
    }


def state_document(state: MeterState) -> Document:
    """A meter's value and reserve at a point, exactly, with its operation number."""
    return {
        "meter_id": state.meter_id,
        "amount": _sub(state.amount_sub),
        "reserve": _sub(state.reserve_sub),
        "overflow": _sub(state.overflow_sub),
        "seq": state.seq,
    }


def finding_document(finding: Finding) -> Document:
    """A flagged difference and the log positions behind it."""
    return {
        "kind": finding.kind,
        "meter_id": finding.meter_id,
        "positions": list(finding.positions),
        "message": finding.message,
    }


def meter_document(meter: MeterReport) -> Document:
    """One meter's reconciliation."""
    f = meter.flows
    expected, difference = meter.expected, meter.difference
    return {
        "meter_id": meter.meter_id,
        "opening": _pools(meter.opening),
        "contributions": _contributions(meter),
        "reversals": {
            "count": f.reversed_count,
            "primary": _sub(f.reversed_primary_sub),
            "reserve": _sub(f.reversed_reserve_sub),
            "items": [_reversal(r) for r in meter.reversals],
        },
        "seeds": _sub(f.seeded_sub),
        "reseeds": _sub(f.reseeded_sub),
        "paid": _sub(f.paid_sub),
        "reserve_released": _sub(f.released_sub),
        "overflow": {
            "carried": _sub(f.to_overflow_sub),
            "diverted_out": _sub(f.diverted_out_sub),
            "diverted_in": _sub(f.diverted_in_sub),
            "reversed": _sub(f.reversed_overflow_sub),
            "released": _sub(f.overflow_released_sub),
        },
        "transfers": {"out": _pair(*f.moved_out), "in": _pair(*f.moved_in)},
        "corrections": {
            "amount": _sub(f.corrected_amount_sub),
            "reserve": _sub(f.corrected_reserve_sub),
            "items": [_correction(c) for c in meter.corrections],
        },
        "awards": [
            {"kind": a.kind, "hand": a.hand, "count": a.count, "amount": format_cents(a.cents)}
            for a in meter.awards
        ],
        "splits": meter.splits,
        "hits_validated": meter.hits_validated,
        "hits_paid": meter.hits_paid,
        "outstanding_hits": list(meter.outstanding_hits),
        "closing": _pools(meter.closing),
        "expected": _pair(*expected),
        "difference": _pair(*difference),
        "balanced": meter.balanced,
        "regulator": _regulator(meter),
    }


def _contributions(meter: MeterReport) -> Document:
    f = meter.flows
    return {
        "count": f.contributed_count,
        "primary": _sub(f.contributed_primary_sub),
        "reserve": _sub(f.contributed_reserve_sub),
        "by_table": [_tally("table_id", k, t) for k, t in meter.by_table],
        "by_wager": [_tally("wager", k, t) for k, t in meter.by_wager],
    }


def _pair(amount_sub: int, reserve_sub: int, overflow_sub: int) -> Document:
    return {
        "amount": _sub(amount_sub),
        "reserve": _sub(reserve_sub),
        "overflow": _sub(overflow_sub),
    }


def _pools(state: MeterState) -> Document:
    return _pair(state.amount_sub, state.reserve_sub, state.overflow_sub)


def _tally(name: str, key: str, tally: Tally) -> Document:
    return {
        name: key,
        "count": tally.count,
        "wagers": format_cents(tally.wager_cents),
        "primary": _sub(tally.primary_sub),
        "reserve": _sub(tally.reserve_sub),
    }


def _reversal(r: Reversal) -> Document:
    return {
        "position": r.position,
        "occurred_at": r.occurred_at,
        "table_id": r.table_id,
        "round_id": r.round_id,
        "count": r.count,
        "primary": _sub(r.primary_sub),
        "reserve": _sub(r.reserve_sub),
        "reason": r.reason,
    }


def _correction(c: Correction) -> Document:
    return {
        "position": c.position,
        "occurred_at": c.occurred_at,
        "by": c.by,
        "reason": c.reason,
        "amount": _sub(c.amount_delta_sub),
        "reserve": _sub(c.reserve_delta_sub),
    }


def _regulator(meter: MeterReport) -> Document:
    """The meters a regulator asks for per level, lifetime to the closing."""
    closing = meter.closing
    ceiling = meter.ceiling_cents
    return {
        "contributions": closing.contributions,
        "contributed": _sub(closing.contributed_sub),
        "hits": closing.hits,
        "total_won": _sub(closing.paid_sub),
        "amount": _sub(closing.amount_sub),
        "reserve": _sub(closing.reserve_sub),
        "ceiling": None if ceiling is None else format_cents(ceiling),
        "overflow": _sub(meter.overflow_sub),
        "contributed_above_ceiling": _sub(meter.above_ceiling_sub),
        "last_hits": [hit_document(h) for h in meter.last_hits],
    }


def hit_document(hit: HitRow) -> Document:
    """One of the last 25 hits."""
    return {
        "position": hit.position,
        "occurred_at": hit.occurred_at,
        "table_id": hit.table_id,
        "round_id": hit.round_id,
        "wager": hit.wager,
        "on": hit.on,
        "hand": hit.hand,
        "cards": list(hit.cards),
        "share": hit.share,
        "amount": format_cents(hit.amount_cents),
        "winners": [{"seat": w.seat, "amount": format_cents(w.amount_cents)} for w in hit.winners],
        "meter_before": _sub(hit.meter_before_sub),
        "meter_after": _sub(hit.meter_after_sub),
    }


def csv_rows(report: Report) -> Iterator[Row]:
    """The report as rows under `CSV_HEADER`."""
    for meter in report.meters:
        yield from _balance_rows(meter)
        yield from _detail_rows(meter)
    for finding in report.findings:
        where = " ".join(str(p) for p in finding.positions)
        message = f"positions {where}: {finding.message}"
        yield ("finding", finding.meter_id, finding.kind, "", "", "", "", message)
    for note in report.notes:
        yield ("note", "", "", "", "", "", "", note)


def _balance_rows(m: MeterReport) -> Iterator[Row]:
    f, mid, o, c = m.flows, m.meter_id, m.opening, m.closing
    reversed_meter = -f.reversed_primary_sub + f.reversed_overflow_sub
    lines: list[tuple[str, int | str, int, int, int]] = [
        ("opening", "", o.amount_sub, o.reserve_sub, o.overflow_sub),
        (
            "contributions",
            f.contributed_count,
            f.contributed_primary_sub,
            f.contributed_reserve_sub,
            0,
        ),
        ("carried_to_overflow", "", -f.to_overflow_sub, 0, f.to_overflow_sub),
        ("diverted_out", "", -f.diverted_out_sub, 0, 0),
        ("diverted_in", "", f.diverted_in_sub, 0, 0),
        (
            "reversals",
            f.reversed_count,
            reversed_meter,
            -f.reversed_reserve_sub,
            -f.reversed_overflow_sub,
        ),
        ("seeds", "", f.seeded_sub, 0, 0),
        ("reseeds", "", f.reseeded_sub, 0, 0),
        ("paid", "", -f.paid_sub, 0, 0),
        ("reserve_released", "", f.released_sub, -f.released_sub, 0),
        ("overflow_released", "", f.overflow_released_sub, 0, -f.overflow_released_sub),
        ("corrections", len(m.corrections), f.corrected_amount_sub, f.corrected_reserve_sub, 0),
        ("transferred_out", "", -f.moved_out[0], -f.moved_out[1], -f.moved_out[2]),
        ("transferred_in", "", *f.moved_in),
        ("expected", "", *m.expected),
        ("closing", "", c.amount_sub, c.reserve_sub, c.overflow_sub),
        ("difference", "", *m.difference),
    ]
    for item, count, amount, reserve, overflow in lines:
        yield ("balance", mid, item, str(count), _sub(amount), _sub(reserve), _sub(overflow), "")


def _detail_rows(m: MeterReport) -> Iterator[Row]:
    mid = m.meter_id
    for section, tallies in (("by_table", m.by_table), ("by_wager", m.by_wager)):
        for key, t in tallies:
            wagers = f"wagers {format_cents(t.wager_cents)}"
            primary, reserve = _sub(t.primary_sub), _sub(t.reserve_sub)
            yield (section, mid, key, str(t.count), primary, reserve, "", wagers)
    for a in m.awards:
        amount = format_cents(a.cents)
        yield ("awards", mid, f"{a.kind}:{a.hand}", str(a.count), amount, "", "", "")
    yield from _event_rows(m)
    regulator = _regulator(m)
    for key in REGULATOR_ROWS:
        value = regulator[key]
        yield ("regulator", mid, key, "", "" if value is None else str(value), "", "", "")
    for h in m.last_hits:
        meter = f"meter {_sub(h.meter_before_sub)} -> {_sub(h.meter_after_sub)}"
        detail = f"position {h.position} {h.hand} {' '.join(h.cards)} {meter}"
        round_id = f"{h.table_id}/{h.round_id}"
        yield ("last_hits", mid, round_id, "", format_cents(h.amount_cents), "", "", detail)


def _event_rows(m: MeterReport) -> Iterator[Row]:
    """Voids and corrections, one row each, with the log position in the detail."""
    for r in m.reversals:
        detail = f"position {r.position} at {r.occurred_at}: {r.reason}"
        primary, reserve = _sub(r.primary_sub), _sub(r.reserve_sub)
        round_id = f"{r.table_id}/{r.round_id}"
        yield ("reversal", m.meter_id, round_id, str(r.count), primary, reserve, "", detail)
    for c in m.corrections:
        detail = f"position {c.position} at {c.occurred_at}: {c.reason}"
        amount, reserve = _sub(c.amount_delta_sub), _sub(c.reserve_delta_sub)
        yield ("correction", m.meter_id, c.by, "", amount, reserve, "", detail)
