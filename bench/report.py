"""The results table, on the terminal and in ``bench/results/``: ``<timestamp>.json`` holds every
figure, sample and machine fact of a run; ``latest.md`` the table and facts of the latest run."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from bench.common import Figure, Row, Settings

HEADER = ("benchmark", "value", "reference", "ratio", "goal", "result")


def _number(value: float, unit: str) -> str:
    if unit == "events/s":
        return f"{value:,.0f}/s"
    if unit == "s":
        return f"{value:.3f} s"
    if unit == "MB":
        return f"{value:,.0f} MB"
    return f"{value:,.3g} {unit}"


def cells(row: Row) -> tuple[str, ...]:
    """A row as the table's text cells."""
    reference = "—"
    if row.reference is not None:
        reference = f"{_number(row.reference, row.unit)} {row.reference_name}"
    ratio = "—" if row.ratio is None else f"{row.ratio:.2f}"
    verdict = {True: "PASS", False: "FAIL", None: "—"}[row.passed]
    goal = row.goal.text if row.goal else "—"
    return (row.name, _number(row.value, row.unit), reference, ratio, goal, verdict)


def text_table(rows: list[Row]) -> str:
    """The table as aligned plain text."""
    lines = [HEADER, *(cells(row) for row in rows)]
    widths = [max(len(line[i]) for line in lines) for i in range(len(HEADER))]
    out = ["  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True))
           for line in lines]  # fmt: skip
    out.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(line.rstrip() for line in out)


def markdown_table(rows: list[Row]) -> str:
    """The table as Markdown."""
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(cells(row)) + " |" for row in rows]
    return "\n".join(lines)


def row_record(row: Row) -> dict[str, Any]:
    """A row as JSON: its figures, samples, goal and verdict."""
    record = dataclasses.asdict(row)
    record.update(ratio=row.ratio, passed=row.passed, goal=row.goal.text if row.goal else None)
    return record


def _settings_record(settings: Settings) -> dict[str, Figure]:
    return {key: str(value) if isinstance(value, Path) else value
            for key, value in dataclasses.asdict(settings).items()}  # fmt: skip


def previous_run(results: Path, mode: str) -> dict[str, Any] | None:
    """The newest earlier results file of the same mode, if any."""
    for path in sorted(results.glob("*.json"), reverse=True):
        try:
            document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if document.get("settings", {}).get("mode") == mode:
            document["file"] = path.name
            return document
    return None


def comparison(rows: list[Row], earlier: dict[str, Any] | None) -> list[str]:
    """One line per row also measured in ``earlier``: its value then and now."""
    if earlier is None:
        return []
    before = {record["name"]: record for record in earlier.get("rows", [])}
    lines = []
    for row in rows:
        old = before.get(row.name)
        if old is None or not old.get("value"):
            continue
        change = (row.value / old["value"] - 1) * 100
        lines.append(
            f"{row.name}: {_number(old['value'], row.unit)} -> {_number(row.value, row.unit)} "
            f"({change:+.1f}%)"
        )
    return lines


def write(
    results: Path, rows: list[Row], settings: Settings, machine: dict[str, Figure]
) -> tuple[Path, list[str]]:
    """Write ``<timestamp>.json`` and ``latest.md``; the JSON's path and the comparison lines."""
    results.mkdir(parents=True, exist_ok=True)
    earlier = previous_run(results, settings.mode)
    compared = comparison(rows, earlier)
    stamp = str(machine["timestamp"]).replace("-", "").replace(":", "")
    path = results / f"{stamp}.json"
    suffix = 1
    while path.exists():
        suffix += 1
        path = results / f"{stamp}-{suffix}.json"
    document = {
        "machine": machine,
        "settings": _settings_record(settings),
        "rows": [row_record(row) for row in rows],
        "compared_with": None if earlier is None else earlier["file"],
        "comparison": compared,
    }
    path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    (results / "latest.md").write_text(
        markdown(rows, settings, machine, path.name, compared), encoding="utf-8"
    )
    return path, compared


def markdown(
    rows: list[Row],
    settings: Settings,
    machine: dict[str, Figure],
    source: str,
    compared: list[str],
) -> str:
    """``latest.md``: the table, each row's notes and details, the comparison, the machine."""
    parts = [
        "# Benchmarks: latest run",
        "",
        f"`python -m bench` in mode `{settings.mode}` ({settings.repeats} repetitions, medians), "
        f"{machine['timestamp']}; figures and samples in `{source}`.",
        "",
        markdown_table(rows),
        "",
        "## Rows",
        "",
    ]
    for row in rows:
        details = ", ".join(f"{key} {value}" for key, value in row.extra.items())
        parts.append(f"- **{row.name}**: {row.notes}. {details}")
    if compared:
        parts += ["", "## Against the previous run of this mode", ""]
        parts += [f"- {line}" for line in compared]
    parts += ["", "## Machine", ""]
    parts += [f"- {key}: {value}" for key, value in machine.items()]
    return "\n".join(parts) + "\n"
