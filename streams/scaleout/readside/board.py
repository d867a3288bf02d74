"""The surveillance page's view of the read side's aggregates: each table's recent hours and
gaming days as one JSON document, which the read side writes to Redis and ``jackpot kafka pages``
serves at ``/v1/surveillance/aggregates`` (`streams.http.kafka_pages`).

Why a document in Redis: the pages hold no Kafka client (they are fed from the signage read
model), and the read side already holds the windows a review needs (the hours the
contribution-rate alert looks at, the current and previous gaming day), so it publishes exactly
those after each timer review; nothing is computed twice and the page never folds the changelog.

Money keeps the units it has in the aggregates (integers: ``contributed_sub`` in sub-units,
``hit_cents`` and ``award_cents`` in cents) and, beside them, the project's outward spelling:
dollar strings (``contributed`` to the sub-unit, 8 decimals, as reconciliation spells it;
``hit_amount`` and ``award_amount`` to the cent). Never a float.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from controller.model.money import format_cents, format_subunits_exact
from streams.scaleout.readside.aggregate import Tally, WindowKind, iso

VERSION = 1
#: hours and gaming days kept per table in the document, newest first
HOURS_SHOWN, DAYS_SHOWN = 8, 2


def window_row(start: str, tally: Tally) -> dict[str, object]:
    """One window of one table as the page shows it (every counted field, and the amounts)."""
    row: dict[str, object] = {"start": start, **tally.counts()}
    row["contributed"] = format_subunits_exact(tally.contributed_sub)
    row["reversed"] = format_subunits_exact(tally.reversed_sub)
    row["hit_amount"] = format_cents(tally.hit_cents)
    row["award_amount"] = format_cents(tally.award_cents)
    return row


def board_document(
    windows: Mapping[tuple[str, WindowKind, str], Tally],
    alerting: Mapping[str, str],
    watermark: datetime | None,
    published_at: datetime,
    *,
    complete: bool = True,
) -> dict[str, Any]:
    """The document: per table its newest `HOURS_SHOWN` hours and `DAYS_SHOWN` gaming days
    (newest first) and the reason of its latest closed hour's alert (None: none).

    ``complete`` says whether this read side owned every partition of the events topic when it
    published (each window is the sum of its source partitions; a process that owns some of them
    shows part of each table)."""
    tables: dict[str, dict[str, list[dict[str, object]]]] = {}
    for (table_id, kind, start), tally in sorted(windows.items(), reverse=True):
        shown = tables.setdefault(table_id, {"hours": [], "days": []})
        rows = shown["hours" if kind == "h" else "days"]
        if len(rows) < (HOURS_SHOWN if kind == "h" else DAYS_SHOWN):
            rows.append(window_row(start, tally))
    return {
        "version": VERSION,
        "as_of": None if watermark is None else iso(watermark),
        "published_at": iso(published_at),
        "complete": complete,
        "tables": [
            {"table_id": table_id, "alert": alerting.get(table_id), **shown}
            for table_id, shown in sorted(tables.items())
        ],
    }


def board_text(document: Mapping[str, object]) -> str:
    """The document as Redis stores it (compact, keys sorted: the same windows, the same text)."""
    return json.dumps(document, separators=(",", ":"), sort_keys=True)
