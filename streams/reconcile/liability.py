"""The progressive liability per gaming day and level, for accounting (N.J.A.C. 13:69D-1.52), as
CSV, JSON or a text table; ``jackpot reconcile --liability`` (`streams.cli.reconcile_liability`)
calls it.

Each day is reconciled on its own (`controller.reconciliation.report`, cut as ``--gaming-day`` is)
and every level's line checked (`controller.reconciliation.liability`). The result is ok when every
line balances and no event of those days was flagged.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from datetime import date, time, timedelta

from controller.config.floor import FloorConfig
from controller.model.money import format_subunits_exact
from controller.reconciliation.liability import (
    LIABILITY_HEADER,
    LiabilityLine,
    liability_document,
    liability_lines,
    liability_rows,
)
from controller.reconciliation.report import gaming_day
from streams.ports import EventLog
from streams.reconcile.service import reconcile_log
from streams.reconcile.text import table

MAX_DAYS = 366


@dataclass(frozen=True, slots=True, kw_only=True)
class Liability:
    """The lines of every day asked for, and the findings of those days' reconciliations."""

    lines: tuple[LiabilityLine, ...]
    findings: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """Every line balances and nothing was flagged."""
        return not self.findings and all(line.balanced for line in self.lines)


def liability(
    log: EventLog,
    first: date,
    days: int,
    *,
    starts: time,
    utc_offset: timedelta,
    config: FloorConfig | None = None,
) -> Liability:
    """Reconcile ``days`` gaming days from ``first`` and return their liability lines."""
    lines: list[LiabilityLine] = []
    findings: list[str] = []
    for number in range(days):
        day = first + timedelta(days=number)
        report = reconcile_log(log, gaming_day(day, starts, utc_offset), config, to_head=False)
        lines += liability_lines(day.isoformat(), report)
        findings += [
            f"{day.isoformat()} [{f.kind}] {f.meter_id or 'log'}: {f.message}"
            for f in report.findings
        ]
    return Liability(lines=tuple(lines), findings=tuple(findings))


def liability_output(result: Liability, fmt: str) -> str:
    """The report as ``csv``, ``json`` or a text ``table``."""
    if fmt == "json":
        document = liability_document(result.lines)
        document["findings"] = list(result.findings)
        document["ok"] = result.ok
        return json.dumps(document, indent=2) + "\n"
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(LIABILITY_HEADER)
        writer.writerows(liability_rows(result.lines))
        return buffer.getvalue()
    return _text(result)


def _text(result: Liability) -> str:
    lines = [f"Progressive liability: {'BALANCED' if result.ok else 'DIFFERENCES FOUND'}"]
    rows = [
        (
            line.gaming_day,
            line.meter_id,
            *(
                format_subunits_exact(a)
                for a in (
                    line.opening.amount_sub + line.opening.reserve_sub + line.opening.overflow_sub,
                    line.contributions_primary_sub + line.contributions_reserve_sub,
                    line.carried_to_overflow_sub,
                    line.seeds_sub,
                    line.awards_paid_sub,
                    line.transfers_in_sub - line.transfers_out_sub,
                    line.corrections_sub - line.voids_sub,
                    line.closing.amount_sub + line.closing.reserve_sub + line.closing.overflow_sub,
                    line.difference_sub,
                )
            ),
        )
        for line in result.lines
    ]
    headers = (
        "day",
        "level",
        "opening",
        "contributed",
        "overflow",
        "seeds",
        "paid",
        "transfers",
        "corr-voids",
        "closing",
        "difference",
    )
    lines += table(headers, rows)
    if result.findings:
        lines += ["", "Findings:", *(f"  {f}" for f in result.findings)]
    return "\n".join(lines) + "\n"
