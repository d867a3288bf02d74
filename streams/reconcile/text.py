"""A reconciliation as a readable text table (``jackpot reconcile --format table``).

Built from `controller.reconciliation.view.report_document`, so the text, the JSON and the CSV can
never disagree on a figure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from streams.reconcile.live import Drift

Doc = dict[str, Any]


def table(
    headers: Sequence[str], rows: Sequence[Sequence[object]], indent: str = "  "
) -> list[str]:
    """Columns padded to their widest cell; the first column left-aligned, the rest right."""
    cells = [[str(h) for h in headers], *[[str(c) for c in row] for row in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = []
    for row in cells:
        parts = [row[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)
        ]
        lines.append(indent + "  ".join(parts).rstrip())
    return lines


def render(document: Doc, drifts: Sequence[Drift] = ()) -> str:
    """The whole report as text."""
    ok = document["balanced"] and not any(d.status != "ahead" for d in drifts)
    lines = [
        f"Reconciliation: {document['period']}",
        f"Log positions {document['opening_position'] + 1}..{document['closing_position']} "
        f"({document['records']} records); opening is the state after position "
        f"{document['opening_position']}",
        f"Result: {'BALANCED' if ok else 'DIFFERENCES FOUND'}",
    ]
    for meter in document["meters"]:
        lines += ["", *_meter(meter)]
    lines += _findings(document)
    if drifts:
        lines += [
            "",
            f"Live read model compared with the log at position {document['head_position']}:",
        ]
        rows = [(d.meter_id, d.field, d.log, d.live, d.status) for d in drifts]
        lines += table(("meter", "field", "log", "live", "status"), rows)
    return "\n".join(lines) + "\n"


def _balance(m: Doc) -> list[tuple[object, ...]]:
    c, r, k, o = m["contributions"], m["reversals"], m["corrections"], m["overflow"]
    released = m["reserve_released"]

    def pools(key: str, label: str) -> tuple[object, ...]:
        return (label, "", m[key]["amount"], m[key]["reserve"], m[key]["overflow"])

    return [
        pools("opening", "opening"),
        ("+ contributions", c["count"], c["primary"], c["reserve"], ""),
        ("-/+ carried above the ceiling", "", _negated(o["carried"]), "", o["carried"]),
        ("- diverted to another meter", "", o["diverted_out"], "", ""),
        ("+ diverted from another meter", "", o["diverted_in"], "", ""),
        ("- voids reversed (overflow part)", r["count"], r["primary"], r["reserve"], o["reversed"]),
        ("+ seeds", "", m["seeds"], "", ""),
        ("+ reseeds", "", m["reseeds"], "", ""),
        ("- paid from the meter", "", m["paid"], "", ""),
        ("+/- reserve released at 100% hits", "", released, _negated(released), ""),
        ("+/- overflow released at 100% hits", "", o["released"], "", _negated(o["released"])),
        ("+/- corrections", len(k["items"]), k["amount"], k["reserve"], ""),
        _moved("- transferred out (retired)", m["transfers"]["out"]),
        _moved("+ transferred in", m["transfers"]["in"]),
        pools("expected", "= expected"),
        pools("closing", "closing"),
        pools("difference", "difference"),
    ]


def _moved(label: str, pools: Doc) -> tuple[object, ...]:
    return (label, "", pools["amount"], pools["reserve"], pools["overflow"])


def _meter(m: Doc) -> list[str]:
    c, balance = m["contributions"], _balance(m)
    verdict = "balanced" if m["balanced"] else "DOES NOT BALANCE"
    lines = [
        f"Meter {m['meter_id']} ({verdict})",
        *table(("", "count", "meter", "reserve", "overflow"), balance),
    ]
    for title, key, name in (
        ("table", "by_table", "table_id"),
        ("wager type", "by_wager", "wager"),
    ):
        rows = [(t[name], t["count"], t["wagers"], t["primary"], t["reserve"]) for t in c[key]]
        if rows:
            lines += [
                f"  Contributions by {title}:",
                *table((name, "count", "wagers", "meter", "reserve"), rows, "    "),
            ]
    awards = [(a["kind"], a["hand"], a["count"], a["amount"]) for a in m["awards"]]
    if awards:
        lines += ["  Awards (fixed and envy are paid at the table, not from the meter):"]
        lines += table(("kind", "hand", "count", "amount"), awards, "    ")
    lines += _events(m)
    return lines + _regulator(m)


def _events(m: Doc) -> list[str]:
    lines = []
    voids = [
        (
            v["position"],
            f"{v['table_id']}/{v['round_id']}",
            v["count"],
            v["primary"],
            v["reserve"],
            v["reason"],
        )
        for v in m["reversals"]["items"]
    ]
    if voids:
        lines += [
            "  Voids:",
            *table(("position", "round", "count", "meter", "reserve", "reason"), voids, "    "),
        ]
    fixes = [
        (x["position"], x["occurred_at"], x["by"], x["amount"], x["reserve"], x["reason"])
        for x in m["corrections"]["items"]
    ]
    if fixes:
        lines += [
            "  Corrections:",
            *table(("position", "at", "by", "meter", "reserve", "reason"), fixes, "    "),
        ]
    lines.append(
        f"  Hits: validated {m['hits_validated']}, paid {m['hits_paid']}, awaiting payment at "
        f"close {len(m['outstanding_hits'])}; dealer-hand splits {m['splits']}"
    )
    return lines


def _regulator(m: Doc) -> list[str]:
    g = m["regulator"]
    ceiling = "none" if g["ceiling"] is None else g["ceiling"]
    lines = [
        f"  Level totals to close: contributions {g['contributions']} ({g['contributed']}), "
        f"hits {g['hits']}, total won {g['total_won']}, reserve {g['reserve']}",
        f"  Ceiling {ceiling}: overflow {g['overflow']}, contributed above the ceiling "
        f"{g['contributed_above_ceiling']}",
    ]
    hits = [
        (
            h["position"],
            h["occurred_at"],
            f"{h['table_id']}/{h['round_id']}",
            h["hand"],
            " ".join(h["cards"]),
            h["amount"],
            h["meter_before"],
            h["meter_after"],
        )
        for h in g["last_hits"]
    ]
    if hits:
        lines += [f"  Last {len(hits)} hits (newest first):"]
        lines += table(
            ("position", "at", "round", "hand", "cards", "amount", "before", "after"), hits, "    "
        )
    return lines


def _findings(document: Doc) -> list[str]:
    lines = []
    if document["findings"]:
        lines += ["", "Findings (events that do not add up):"]
        for f in document["findings"]:
            where = ", ".join(str(p) for p in f["positions"]) or "-"
            lines.append(
                f"  [{f['kind']}] {f['meter_id'] or 'log'} at position {where}: {f['message']}"
            )
    if document["notes"]:
        lines += ["", "Notes:", *(f"  {n}" for n in document["notes"])]
    return lines


def _negated(amount: str) -> str:
    return amount if amount.strip("0.") == "" else f"-{amount}"
