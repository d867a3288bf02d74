"""`jackpot replay` over a device capture that holds heartbeats (contract v2).

A heartbeat only says a table was alive: the engines note it for playability and never log it, so
a replay of the capture must give the same document as the capture without them, while a bad
heartbeat is still listed under "rejected" with its reason.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from streams.cli.replay import replay_file
from tests.streams.http.support import CONFIG, ROOT

SIMULATE = [sys.executable, "-m", "streams.cli", "simulate", "--config", str(CONFIG),
            "--rounds", "4", "--seed", "11", "--forced-hands", "0.2"]  # fmt: skip


def heartbeat(table_id: str, number: int, **extra: object) -> bytes:
    body = {
        "event_id": f"hb-{table_id}-{number}",
        "type": "heartbeat",
        "table_id": table_id,
        "occurred_at": "2026-11-29T16:03:10Z",
        "schema_version": 2,
        **extra,
    }
    return json.dumps(body).encode()


def test_heartbeats_in_a_capture_change_nothing_and_bad_ones_are_listed(tmp_path: Path) -> None:
    plain = tmp_path / "plain.jsonl"
    made = subprocess.run(
        [*SIMULATE, "--out", str(plain)], cwd=ROOT, capture_output=True, timeout=120, check=False
    )
    assert made.returncode == 0, made.stderr
    lines = [line for line in plain.read_bytes().splitlines() if line.strip()]
    tables = sorted({json.loads(line)["table_id"] for line in lines})
    beating: list[bytes] = []
    for number, line in enumerate(lines):
        beating.append(line)
        if number % 7 == 0:
            beating.append(heartbeat(tables[number % len(tables)], number))
    beating.append(heartbeat(tables[0], 999_999, seq=5))  # a heartbeat carries no seq
    captured = tmp_path / "captured.jsonl"
    captured.write_bytes(b"\n".join(beating) + b"\n")

    reference = replay_file(CONFIG, plain)
    replayed = replay_file(CONFIG, captured)

    assert len(beating) - len(lines) > 10
    assert replayed["meters"] == reference["meters"]
    assert replayed["awards"] == reference["awards"]
    rejected = replayed["rejected"]
    assert isinstance(rejected, list)
    extra = rejected[len(reference["rejected"]) :]  # type: ignore[arg-type]
    assert [r["event_id"] for r in extra] == [f"hb-{tables[0]}-999999"]
    assert "seq" in extra[0]["reason"]
