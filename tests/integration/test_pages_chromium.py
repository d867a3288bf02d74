"""Signage and surveillance in real headless Chromium, over ``jackpot serve`` on a loopback port.

The sign is opened, a round funds the meter (the display rises to the new value, never past it),
a round with a forced AKQ of spades hits it (a celebration with the table and amount, then the
reset value), and the screenshots are checked. Then the server process is frozen (SIGSTOP): with
no data and no heartbeat the sign must replace every number by its stale fault, and come back
when the process resumes. Surveillance lists the hit with its cards, pending validation.
Skipped without Chromium; a failure when ``CI`` is set.

A started controller knows no table until it speaks (issue 7), so every table sends a heartbeat
first, under a silence limit of an hour (`LONG_LIMIT`): this test is about the sign, not about
silence (tests/integration/test_pages_liveness.py is).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from streams.http.tokens import add_token
from tests.integration.chromium import (
    Browser,
    chromium,
    decode_png,
    png_size,
    require_chromium,
    save,
)
from tests.streams.http.support import AKQ_SPADES, CONFIG, ROOT, event, full_round

pytestmark = pytest.mark.integration

FAULT = "SIGN OFFLINE — DATA STALE"
GOLD, FAULT_RED = (255, 210, 63), (200, 16, 46)
METERS = "tcp-progressive,tcp-five-card,tcp-five-card-bonus,tcp-five-of-six"
AMOUNT = "document.querySelector('[data-meter=\"tcp-progressive\"] .amount')"
PANEL = "document.querySelector('[data-meter=\"tcp-progressive\"]')"
WIDTH, HEIGHT = 1280, 720


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def floor_config(tmp_path: Path, limit_seconds: int) -> Path:
    """The example floor with a silence limit of ``limit_seconds``, as a file in ``tmp_path``."""
    path = tmp_path / f"floor-{limit_seconds}.toml"
    text = CONFIG.read_text(encoding="utf-8")
    path.write_text(
        text.replace(
            "table_silence_limit_seconds = 30", f"table_silence_limit_seconds = {limit_seconds}"
        ),
        encoding="utf-8",
    )
    return path


LONG_LIMIT = 3_600


def heartbeats(tables: Iterator[str] | list[str], n: int = 1) -> list[dict[str, object]]:
    """One heartbeat per table (contract version 2)."""
    return [
        {
            "event_id": f"hb-{table}-{n}",
            "type": "heartbeat",
            "table_id": table,
            "occurred_at": "2026-11-29T16:00:00Z",
            "schema_version": 2,
        }
        for table in tables
    ]


TABLES = [f"tcp-{n}" for n in range(1, 9)]


@contextmanager
def serving(
    tmp_path: Path, config: Path | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`jackpot serve` (with the page routes) on a free loopback port, until the block ends; by
    default over the example floor with a silence limit of an hour."""
    port, output = free_port(), tmp_path / "serve.log"
    config = config or floor_config(tmp_path, LONG_LIMIT)
    command = [
        *(sys.executable, "-m", "streams.cli.serve", "--config", str(config)),
        *("--db", str(tmp_path / "jackpot.db"), "--tokens", str(tmp_path / "tokens.json")),
        *("--port", str(port)),
    ]
    with output.open("wb") as sink:
        process = subprocess.Popen(command, cwd=ROOT, stdout=sink, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while not _ready(base):
            assert process.poll() is None, output.read_text()
            assert time.monotonic() < deadline, output.read_text()
            time.sleep(0.1)
        yield base, process
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGCONT)  # in case the test stopped it and failed
            process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)


def _ready(base: str) -> bool:
    try:
        return httpx.get(f"{base}/readyz", timeout=1.0).status_code == 200
    except httpx.TransportError:
        return False


def post(base: str, token: str, events: object) -> None:
    answer = httpx.post(
        f"{base}/v1/events", json=events, headers={"Authorization": f"Bearer {token}"}, timeout=10
    )
    assert answer.status_code == 200, answer.text


def cents(text: str) -> int:
    return int(text.removeprefix("$").replace(",", "").replace(".", ""))


def check_live_screenshot(browser: Browser, saved: Path) -> None:
    """The whole sign at full size (saved), then its pixels at a quarter and the amount's."""
    full = browser.screenshot()
    saved.write_bytes(full)
    assert png_size(full) == (WIDTH, HEIGHT)
    small = decode_png(browser.screenshot(scale=0.25))
    assert small.distinct_colours() > 200  # not blank: gradients, glow, text
    assert small.share_near(GOLD) > 0.01  # big gold digits
    amount = decode_png(
        browser.screenshot(browser.rect("[data-meter='tcp-progressive'] .amount"), 0.5)
    )
    assert amount.share_near(GOLD) > 0.08
    assert amount.share_near(FAULT_RED) == 0.0


def sign_rises_then_celebrates_and_resets(
    browser: Browser, base: str, device: str, saved: Path
) -> None:
    browser.wait_for(f"{AMOUNT}.textContent === '$1,000.00'")
    browser.evaluate(
        f"window.shown = []; new MutationObserver(() => shown.push({AMOUNT}.textContent))"
        f".observe({AMOUNT}, {{childList: true, characterData: true, subtree: true}})"
    )
    post(base, device, full_round())  # $1 progressive at 14%: 14 cents
    browser.wait_for(f"{AMOUNT}.textContent === '$1,000.14'")
    shown = [cents(text) for text in browser.evaluate("shown")]
    assert shown == sorted(shown), shown  # it rises, it never goes back
    assert max(shown) == 100_014  # never more than the meter holds
    assert len(set(shown)) >= 3, shown  # paced, not a jump
    posted = time.monotonic()
    post(base, device, full_round(AKQ_SPADES, round_id="R2", start=7))
    text = browser.wait_for(f"{PANEL}.classList.contains('celebrating') && {PANEL}.innerText")
    save(browser, "signage-celebration", saved)
    assert time.monotonic() - posted < 30  # the winning value within 30 seconds of the hit
    assert "JACKPOT!" in text
    assert "TABLE TCP-1" in text
    assert "$1,000.28" in text
    browser.wait_for(f"!{PANEL}.classList.contains('celebrating')", timeout=15)
    assert browser.evaluate(f"{AMOUNT}.textContent") == "$1,000.00"  # reseed 1,000 for 1


def sign_turns_stale_while_the_server_is_frozen(
    browser: Browser, server: subprocess.Popen[bytes], saved: Path
) -> None:
    time.sleep(5)  # quiet for longer than stale_after_seconds: heartbeats keep it live
    assert browser.evaluate("document.body.className") == ""
    os.kill(server.pid, signal.SIGSTOP)  # a hung controller: no data, no heartbeat
    browser.wait_for(f"{AMOUNT}.textContent === {FAULT!r}", timeout=15)
    texts = browser.evaluate("[...document.querySelectorAll('.amount')].map(e => e.textContent)")
    assert texts == [FAULT] * 4  # no number is left to look live
    save(browser, "signage-stale", saved)
    box = browser.rect("[data-meter='tcp-progressive'] .amount")
    assert box["x"] >= 0
    assert box["x"] + box["width"] <= WIDTH
    assert decode_png(browser.screenshot(box, 0.5)).share_near(FAULT_RED) > 0.5
    os.kill(server.pid, signal.SIGCONT)
    browser.wait_for(f"{AMOUNT}.textContent === '$1,000.00'", timeout=15)


def busy_round() -> list[dict[str, object]]:
    """tcp-2, round R3: AKQ of hearts at seat 1 (500 for 1, and a $25 Envy Bonus to seat 2),
    a dealer royal split by seats 3 and 4, a wager after the lock and two settlements whose
    cards repeat (both refused) before the good one."""
    seats: dict[str, list[str]] = {
        **{"1": ["Ah", "Kh", "Qh"], "2": ["2c", "7s", "9h"]},
        **{"3": ["3c", "4s", "8h"], "4": ["5c", "6s", "9c"]},
    }
    bets = [(1, "progressive", "own"), (2, "progressive", "own")]
    bets += [(3, "five_card_hand_bonus", "dealer"), (4, "five_card_hand_bonus", "dealer")]
    steps: list[tuple[str, dict[str, object]]] = [("round_opened", {"game": "three_card_poker"})]
    steps += [("wager_placed", {"seat": s, "wager": "ante", "amount": "1.00"}) for s in range(1, 5)]
    steps += [
        ("wager_placed", {"seat": s, "wager": w, "amount": "1.00", "on": on}) for s, w, on in bets
    ]
    steps += [
        ("wagers_locked", {}),
        ("wager_placed", {"seat": 5, "wager": "ante", "amount": "1.00"}),
    ]
    steps += [("decision", {"seat": s, "action": "play", "amount": "1.00"}) for s in range(1, 5)]
    board = {"dealer": ["Qd", "Jd", "Td"], "community": ["Ad", "Kd"]}
    for repeat in (["2c", "2c", "9h"], ["2c", "Ah", "9h"], seats["2"]):
        steps.append(("round_settled", {**board, "seats": {**seats, "2": repeat}}))
    return [
        event(seq, kind, "tcp-2", "R3", **fields) for seq, (kind, fields) in enumerate(steps, 1)
    ]


def table_text(browser: Browser, table: str) -> str:
    text: str = browser.evaluate(f"document.getElementById({table!r}).innerText")
    return text


def surveillance_lists_hits_awards_and_alerts(
    browser: Browser, base: str, tokens: dict[str, str], saved: Path
) -> None:
    browser.open(f"{base}/surveillance?token={tokens['reader']}")
    title = "document.getElementById('pending-title').textContent"
    browser.wait_for(f"{title} === '1 HIT WAITING FOR VALIDATION'")
    row = browser.evaluate("document.querySelector('#pending tr[data-hit]').innerText")
    for shown in (
        *("tcp-1", "R2", "A♠", "K♠", "Q♠", "ace king queen of spades"),
        *("$1,000.28", "$1,000.28 → $1,000.00", "PENDING VALIDATION"),
    ):
        assert shown in row, (shown, row)
    assert browser.evaluate("document.getElementById('status').textContent") == "LIVE"
    post(base, tokens["device"], busy_round())  # live from here on: no reload
    supervisor = {"Authorization": f"Bearer {tokens['supervisor']}"}
    fix = {"amount": "5.00", "reason": "sign test credit"}
    keyed = {**supervisor, "Idempotency-Key": "chromium-correction-1"}
    httpx.post(f"{base}/v1/meters/tcp-five-of-six/corrections", json=fix, headers=keyed)
    browser.wait_for(f"{title} === '2 HITS WAITING FOR VALIDATION'")
    browser.wait_for("document.querySelectorAll('#alerts tr:not(.empty) td').length > 0")
    browser.wait_for("document.getElementById('alerts').innerText.includes('sign test credit')")
    split = table_text(browser, "splits")
    assert "seat 4: $5,000.21; seat 3: $5,000.21" in split
    assert "A♦K♦Q♦J♦10♦" in split.replace("\t", "").replace(" ", "")
    assert "ace king queen suited\tA♥" in table_text(browser, "envy")
    assert "2\t1\ttcp-progressive" in table_text(browser, "envy")  # seat 2 paid, seat 1 held
    assert "$500.00" in table_text(browser, "fixed")
    alerts = table_text(browser, "alerts")
    for shown in ("wager after lock", "repeated card", "meter moved without round", "sign test"):
        assert shown in alerts, (shown, alerts)
    assert "card Ah appears twice" in table_text(browser, "rejected")
    (saved / "surveillance.png").write_bytes(browser.screenshot())
    hit_id = browser.evaluate(
        "document.querySelector('#hits tr[data-hit$=\"/seat1\"]').dataset.hit"
    )
    keyed = {**supervisor, "Idempotency-Key": "chromium-validate-1"}
    answer = httpx.post(f"{base}/v1/hits/{hit_id}/validate", headers=keyed, timeout=10)
    assert answer.status_code == 200, answer.text
    browser.wait_for(f"{title} === '1 HIT WAITING FOR VALIDATION'")
    assert "validated" in table_text(browser, "hits")


def test_signage_and_surveillance_in_chromium(tmp_path: Path) -> None:
    executable = require_chromium()
    token_file = tmp_path / "tokens.json"
    device = add_token(token_file, "tcp-1-device", "table_device")
    reader = add_token(token_file, "lobby-sign", "read_only")
    supervisor = add_token(token_file, "floor-sup-ann", "supervisor")
    with serving(tmp_path) as (base, server), chromium(executable, tmp_path / "profile") as browser:
        post(base, device, heartbeats(TABLES))
        query = f"token={reader}&meters={METERS}&stale_after_seconds=4&celebrate_seconds=4"
        browser.open(f"{base}/signage?{query}")
        sign_rises_then_celebrates_and_resets(browser, base, device, tmp_path)
        check_live_screenshot(browser, tmp_path / "signage-live.png")
        sign_turns_stale_while_the_server_is_frozen(browser, server, tmp_path)
        tokens = {"reader": reader, "device": device, "supervisor": supervisor}
        surveillance_lists_hits_awards_and_alerts(browser, base, tokens, tmp_path)
