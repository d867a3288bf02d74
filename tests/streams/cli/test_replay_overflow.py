"""`jackpot replay` reports each meter's ``overflow`` beside ``amount`` and ``reserve`` (issue 17;
NY 5320.8, NJ 13:69E-1.39A), run as a user runs it.

Worked by hand: tcp-progressive capped at $1,000.20; three rounds each put $0.14 on it: $1,000.14,
then $1,000.20 with $0.08 carried, then $0.14 more carried: overflow $0.22.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.streams.http.support import CONFIG, ROOT, full_round

PLAIN = '[meters.tcp-progressive]\nprogressive = "pa-649a12e-A"\n'


def test_replay_shows_the_meter_stopped_at_its_ceiling_and_the_overflow(tmp_path: Path) -> None:
    text = CONFIG.read_text(encoding="utf-8")
    assert PLAIN in text
    config = tmp_path / "capped.toml"
    config.write_text(text.replace(PLAIN, PLAIN + 'ceiling = "1000.20"\n'), encoding="utf-8")
    events = [e for n in range(3) for e in full_round(round_id=f"R{n}", start=1 + 6 * n)]
    capture = tmp_path / "events.jsonl"
    capture.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "streams.cli", "replay", "--config", str(config), str(capture)],
        cwd=ROOT,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["rejected"] == []
    meters = {m["meter_id"]: m for m in document["meters"]}
    assert (meters["tcp-progressive"]["amount"], meters["tcp-progressive"]["overflow"]) == (
        "1000.20",
        "0.22",
    )
    assert meters["tcp-five-card"]["overflow"] == "0.00"
