"""`jackpot replay --reference` runs the readable core; without it, the proven-equal fast path.
Both must print the same document, byte for byte, for a simulated floor full of jackpots."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.streams.http.support import CONFIG, ROOT

CLI = [sys.executable, "-m", "streams.cli"]


def _run(*args: str) -> bytes:
    done = subprocess.run([*CLI, *args], cwd=ROOT, capture_output=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_fast_and_the_reference_replay_print_the_same_bytes(tmp_path: Path) -> None:
    events = tmp_path / "floor.jsonl"
    _run("simulate", "--config", str(CONFIG), "--rounds", "30", "--seed", "5",
         "--forced-hands", "0.4", "--out", str(events))  # fmt: skip
    with events.open("ab") as out:  # bad input is listed the same way by both
        out.write(b'{"type": "wager_placed", "event_id": "x"}\nnot json\n')
    fast = _run("replay", "--config", str(CONFIG), str(events))
    reference = _run("replay", "--config", str(CONFIG), "--reference", str(events))
    assert fast == reference
    assert b'"kind": "progressive"' in fast  # jackpots were paid: awards are compared
    assert b"malformed JSON" in fast  # the bad lines are listed
