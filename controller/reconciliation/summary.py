"""What a reconciliation report says about the period as a whole, once the fold is done: the
period in words, the meters that do not balance, the records left out of the cut, and the notes on
records whose time stamp disagrees with where the log put them.

Kept apart from `controller.reconciliation.report`, whose fold walks the log record by record;
these are plain functions of what the fold counted, so each message's wording lives in one place
(operators and auditors read them, and the tests pin them). Pure: no I/O, no clock.
"""

from __future__ import annotations

from controller.model.money import format_subunits_exact
from controller.reconciliation.period import Finding, MeterReport, Period, PositionWindow

__all__ = ["balance_findings", "describe", "left_out_finding", "time_notes"]


def balance_findings(reports: tuple[MeterReport, ...]) -> tuple[Finding, ...]:
    """One finding per meter whose closing differs from its opening plus flows, with the
    positions after which the difference changed."""
    findings = []
    for meter in reports:
        if not meter.balanced:
            amount, reserve, overflow = (format_subunits_exact(d) for d in meter.difference)
            message = (
                f"closing differs from opening + flows by {amount} on the meter, "
                f"{reserve} on the reserve and {overflow} on the overflow; the difference "
                "changed after the events listed"
            )
            findings.append(Finding("balance", meter.meter_id, meter.behind, message))
    return tuple(findings)


def left_out_finding(left_out: list[int]) -> tuple[Finding, ...]:
    """Records timed inside the period but logged after its cut were left out: the report
    is not whole, so it does not balance (issue 15: a device dated 9999-12-31 closed a
    gaming day early and 5,053 records were left out of a report that exited 0)."""
    if not left_out:
        return ()
    message = (
        f"{len(left_out)} records timed inside the period were logged after its cut "
        "and left out (the first 100 positions listed)"
    )
    return (Finding("left_out", "", tuple(left_out[:100]), message),)


def time_notes(early: int, late: int, unstamped: int) -> list[str]:
    """A note per kind of record the time cut kept where the log put it, so an odd cut is
    visible rather than silently moved."""
    notes = []
    for count, what in (
        (early, "logged in the period but stamped before its start"),
        (late, "logged after the period but stamped before its end"),
        (unstamped, "in the period without a readable occurred_at"),
    ):
        if count:
            notes.append(f"{count} records {what} (left where the log put them)")
    return notes


def describe(period: Period) -> str:
    """The period in words, as the report's heading gives it."""
    if isinstance(period, PositionWindow):
        to = "the end of the log" if period.to is None else f"position {period.to}"
        return f"records after position {period.after} to {to}"
    return f"{period.start.isoformat()} to {period.end.isoformat()} (end exclusive)"
