"""Issue 3, done means: `jackpot replay` over a simulated run reproduces the service's meters.

A seeded floor is posted to a real `jackpot serve` over HTTP (as table devices would), and the
same seeded floor is written to a file; the pure replay of the file, a clean fold of the service's
log, and the service's own answer must agree to the cent.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx

from controller.model.views import meters_view
from streams.adapters.sqlite import SqliteLog
from streams.cli.replay import replay_file
from streams.codec import fold_log
from streams.http.tokens import add_token
from tests.streams.cli.test_serve import serving
from tests.streams.http.support import CONFIG, ROOT

SIMULATE = [sys.executable, "-m", "streams.cli", "simulate", "--config", str(CONFIG),
            "--rounds", "12", "--seed", "3", "--forced-hands", "0.05"]  # fmt: skip


def test_the_service_the_log_and_the_pure_replay_agree(tmp_path: Path) -> None:
    tokens = tmp_path / "var" / "tokens.json"
    device = add_token(tokens, "simulator", "table_device")
    reader = add_token(tokens, "accounting", "read_only")
    with serving(tmp_path) as (base, _process, _output):
        posted = subprocess.run(
            [*SIMULATE, "--post", base, "--token", device, "--batch", "64"],
            cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert posted.returncode == 0, posted.stderr
        served = httpx.get(
            f"{base}/v1/meters", headers={"Authorization": f"Bearer {reader}"}, timeout=10
        ).json()["meters"]
    events = tmp_path / "floor.jsonl"
    written = subprocess.run(
        [*SIMULATE, "--out", str(events)], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert written.returncode == 0, written.stderr
    expected = replay_file(CONFIG, events)
    assert expected["rejected"] == []
    assert served == expected["meters"]
    log = SqliteLog(tmp_path / "var" / "jackpot.db")
    try:
        state, _ = fold_log(log)
    finally:
        log.close()
    assert meters_view(state) == expected["meters"]
    assert any(m["hits"] for m in served), "forced hands should have hit at least one meter"
