"""The sign fits any number of meters on a wall screen, landscape and portrait, in real Chromium.

Issue 16: five meters left an empty sixth slot, and a sign had to be readable from across a pit
at 1920x1080 and 3840x2160 (landscape and portrait). A floor of sixteen meters (one per table) is
served; for each screen and each count of meters the panels must lie inside the screen without
overlapping, each panel's name, amount and lines must fit inside it, the digits must be large for
the screen, the panels must use most of it, and a short last row must be centred. The pixels of
each screen with five meters are checked (gold digits, no fault red) and the screenshots kept
(``JACKPOT_SCREENSHOTS=docs/screenshots`` also writes them there, for the docs:
`tests.integration.chromium.save`).

A table's own sign (``?tables=``) shows its meters only, and a panel's last hit is PENDING until
validated. Skipped without Chromium; a failure when ``CI`` is set.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from streams.http.tokens import add_token
from tests.integration.chromium import Browser, chromium, decode_png, require_chromium, save
from tests.integration.test_pages_chromium import FAULT_RED, GOLD, heartbeats, post, serving
from tests.streams.http.support import AKQ_SPADES, CONFIG, full_round

pytestmark = pytest.mark.integration

SCREENS = [(1920, 1080), (1080, 1920), (3840, 2160), (2160, 3840)]
COUNTS = [1, 2, 3, 5, 8, 12, 16]
TABLES = [f"t-{n:02d}" for n in range(1, 17)]
READY = (
    "document.querySelectorAll('.meter').length === {n} && "
    "[...document.querySelectorAll('.amount')].every(a => a.textContent.startsWith('$')) && "
    "document.body.className === ''"
)
GEOMETRY = """(() => {
  const box = (e) => { const r = e.getBoundingClientRect();
    return {x: r.x, y: r.y, w: r.width, h: r.height}; };
  return {
    grid: box(document.getElementById('grid')),
    panels: [...document.querySelectorAll('.meter')].map((p) => ({
      box: box(p),
      fits: ['.label', '.amount', '.subtitle', '.last'].every(
        (s) => !p.querySelector(s) || p.querySelector(s).scrollWidth <= p.clientWidth),
      amount: box(p.querySelector('.amount')),
      font: parseFloat(getComputedStyle(p.querySelector('.amount')).fontSize),
    })),
  };
})()"""


def wide_floor(tmp_path: Path) -> Path:
    """The example's progressives with sixteen tables, each with a meter of its own."""
    text = CONFIG.read_text(encoding="utf-8").replace(
        "table_silence_limit_seconds = 30", "table_silence_limit_seconds = 3600"
    )
    head = text[: text.index("[meters.")]
    parts = [head]
    for n, table in enumerate(TABLES, start=1):
        parts.append(
            f'[meters.m-{n:02d}]\nprogressive = "pa-649a12h"\nname = "Pit {n} Five-Card"\n\n'
            f'[tables.{table}]\ngame = "three_card_poker"\nseats = 7\nwager_unit = "1.00"\n'
            f'meters = {{ five_card_progressive = "m-{n:02d}" }}\n\n'
        )
    path = tmp_path / "wide.toml"
    path.write_text("".join(parts), encoding="utf-8")
    return path


def check_layout(browser: Browser, width: int, height: int, n: int) -> None:
    found = browser.evaluate(GEOMETRY)
    grid, panels = found["grid"], found["panels"]
    assert len(panels) == n
    where = f"{n} meters at {width}x{height}"
    for p in panels:
        b = p["box"]
        assert b["x"] >= 0, where
        assert b["y"] >= grid["y"] - 1, where
        assert b["x"] + b["w"] <= width + 0.5, where
        assert b["y"] + b["h"] <= height + 0.5, where
        assert p["fits"], where  # name, amount and lines inside the panel
        a = p["amount"]
        assert b["x"] <= a["x"], where
        assert a["x"] + a["w"] <= b["x"] + b["w"], where
        assert p["font"] >= 0.04 * min(width, height), (where, p["font"])  # across a pit
    for i, p in enumerate(panels):
        for q in panels[i + 1 :]:
            a, b = p["box"], q["box"]
            apart = (
                a["x"] + a["w"] <= b["x"] + 0.5
                or b["x"] + b["w"] <= a["x"] + 0.5
                or a["y"] + a["h"] <= b["y"] + 0.5
                or b["y"] + b["h"] <= a["y"] + 0.5
            )
            assert apart, where
    used = sum(p["box"]["w"] * p["box"]["h"] for p in panels) / (grid["w"] * grid["h"])
    assert used >= 0.45, (where, used)
    last_row = [p["box"] for p in panels if abs(p["box"]["y"] - panels[-1]["box"]["y"]) < 1]
    left = min(b["x"] for b in last_row) - grid["x"]
    right = grid["x"] + grid["w"] - max(b["x"] + b["w"] for b in last_row)
    assert abs(left - right) <= 2, (where, left, right)  # a short last row is centred


def check_pixels(browser: Browser, width: int, height: int, tmp_path: Path) -> None:
    save(browser, f"signage-{width}x{height}", tmp_path)
    small = decode_png(browser.screenshot(scale=0.125))
    assert small.distinct_colours() > 150
    assert small.share_near(GOLD) > 0.01
    assert small.share_near(FAULT_RED, tolerance=20) < 0.001


def test_the_sign_fits_any_number_of_meters_on_any_wall_screen(tmp_path: Path) -> None:
    executable = require_chromium()
    tokens = tmp_path / "tokens.json"
    device = add_token(tokens, "floor-device", "table_device")
    reader = add_token(tokens, "lobby-sign", "read_only")
    with serving(tmp_path, wide_floor(tmp_path)) as (base, _):
        post(base, device, heartbeats(TABLES))
        for width, height in SCREENS:
            with chromium(executable, tmp_path / f"p{width}", width, height) as browser:
                for n in COUNTS:
                    wanted = ",".join(f"m-{k:02d}" for k in range(1, n + 1))
                    browser.open(f"{base}/signage?token={reader}&meters={wanted}")
                    browser.wait_for(READY.format(n=n))
                    check_layout(browser, width, height, n)
                    if n == 5:
                        check_pixels(browser, width, height, tmp_path)


def test_a_tables_sign_shows_its_meters_and_a_pending_last_hit(tmp_path: Path) -> None:
    executable = require_chromium()
    tokens = tmp_path / "tokens.json"
    device = add_token(tokens, "tcp-1-device", "table_device")
    reader = add_token(tokens, "pit-sign", "read_only")
    supervisor = add_token(tokens, "floor-sup-ann", "supervisor")
    with serving(tmp_path) as (base, _), chromium(executable, tmp_path / "p", 1920, 1080) as b:
        post(base, device, heartbeats([f"tcp-{n}" for n in range(1, 9)]))
        post(base, device, full_round(AKQ_SPADES))  # 649a.12(e): $1,000.14, 100% of meter
        b.open(f"{base}/signage?token={reader}&tables=tcp-1")
        b.wait_for("document.querySelectorAll('.meter').length === 4")
        shown = b.evaluate("[...document.querySelectorAll('.meter')].map(m => m.dataset.meter)")
        assert shown == [
            "tcp-progressive",
            "tcp-five-card",
            "tcp-five-card-bonus",
            "tcp-five-of-six",
        ]
        assert b.evaluate("document.getElementById('venue').textContent") == (
            "Keystone Riverfront Casino"
        )
        panel = "document.querySelector('[data-meter=\"tcp-progressive\"]')"
        # The panel is marked pending when the hit arrives and filled when its meter and last-hit
        # lines render (a CI run read it in between: "—" and no LAST HIT line yet).
        b.wait_for(
            f"{panel}.classList.contains('last-pending') && {panel}.innerText.includes('LAST HIT')"
        )
        text = b.evaluate(f"{panel}.innerText")
        assert "THREE CARD POKER PROGRESSIVE" in text  # the name, not TCP PROGRESSIVE
        assert "ACE KING QUEEN OF SPADES WINS 100% OF METER" in text
        assert "LAST HIT $1,000.14 · TCP-1 · JUST NOW" in text
        assert "PENDING" in text
        bonus = b.evaluate(
            "document.querySelector('[data-meter=\"tcp-five-card-bonus\"]').innerText"
        )
        assert "ROYAL FLUSH WINS 100% OF METER" in bonus
        save(b, "signage-table-tcp-1", tmp_path)
        hit_id = "tcp-1/R1/6/progressive/seat1"
        answer = httpx.post(
            f"{base}/v1/hits/{hit_id}/validate",
            headers={"Authorization": f"Bearer {supervisor}", "Idempotency-Key": "validate-1"},
            timeout=10,
        )
        assert answer.status_code == 200, answer.text
        b.wait_for(f"!{panel}.classList.contains('last-pending')")
        assert "PENDING" not in b.evaluate(f"{panel}.innerText")
        assert "LAST HIT $1,000.14" in b.evaluate(f"{panel}.innerText")
