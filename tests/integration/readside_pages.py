"""The read side's board on the Kafka engine's surveillance page (issue 13: the rolling
aggregates "feed the surveillance page"), checked from the committed events topic.

`the_board_is_on_the_page` runs ``jackpot kafka readside --redis`` over a deployment whose
worker has processed its stream, then reads ``/v1/surveillance/aggregates`` from ``jackpot kafka
pages`` until every table's gaming day there equals the sums computed here from the events topic
(read ``read_committed``; `test_kafka_readside.expected_sums`), and finally the page in Chromium:
the section shows a table's gaming day with its contributions, hits and awards in dollars.
"""

from __future__ import annotations

import time
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx

from streams.adapters.kafka.topics import TopicNames
from tests.integration.chromium import Browser
from tests.integration.services import require_redis
from tests.integration.test_kafka_readside import ReadSide, expected_sums

WAIT_S = 120.0
#: what the comparison covers (reversals are rare in a short stream; they are compared too)
COUNTED = (
    "rounds", "contributions", "contributed_sub", "reversals", "reversed_sub", "hits",
    "hit_cents", "awards", "award_cents",
)  # fmt: skip


def dollars(units: int, places: int) -> str:
    """``units`` of 10^-places dollars as the page writes money ("$1,234.5" kept exact)."""
    return f"${Decimal(units).scaleb(-places):,.{places}f}"


def _days(board: dict[str, Any]) -> dict[tuple[str, str], Counter[str]]:
    """(table, gaming day) -> the counted fields, as the board has them."""
    fields = sorted(COUNTED)
    return {
        (table["table_id"], day["start"]): Counter({f: day[f] for f in fields if day[f]})
        for table in board["tables"]
        for day in table["days"]
    }


def _expected_days(bootstrap: str, names: TopicNames) -> dict[tuple[str, str], Counter[str]]:
    sums, _ends = expected_sums(bootstrap, names)
    wanted = set(COUNTED)
    return {
        (table, start): Counter({k: v for k, v in counts.items() if k in wanted and v})
        for (table, kind, start), counts in sums.items()
        if kind == "d"
    }


def the_board_is_on_the_page(
    tmp_path: Path, bootstrap: str, names: TopicNames, browser: Browser, *, base: str, token: str
) -> None:
    """The read side's board through the route and on the page (module docstring)."""
    expected = _expected_days(bootstrap, names)
    assert sum(c["contributions"] for c in expected.values()) > 0
    readside = ReadSide(bootstrap, names, tmp_path)
    readside.extra = ["--redis", require_redis(), "--redis-prefix", names.prefix]
    readside.start()
    try:
        board = _wait_for_board(f"{base}/v1/surveillance/aggregates?token={token}", expected)
        assert board["complete"] is True  # one read side: every partition
        _page_shows(browser, f"{base}/surveillance?token={token}", expected)
    except AssertionError as exc:
        raise AssertionError(f"{exc}\nread side log:\n{readside.logs()}") from exc
    finally:
        assert readside.process is not None
        readside.process.terminate()
        readside.process.wait(timeout=30)


def _wait_for_board(url: str, expected: dict[tuple[str, str], Counter[str]]) -> dict[str, Any]:
    deadline, last = time.monotonic() + WAIT_S, ""
    while time.monotonic() < deadline:
        answer = httpx.get(url, timeout=5)
        last = f"{answer.status_code} {answer.text[:300]}"
        if answer.status_code == 200:
            board: dict[str, Any] = answer.json()
            if _days(board) == expected:
                return board
        else:
            assert answer.status_code == 404, last  # nothing published yet
        time.sleep(0.5)
    msg = f"the board never equalled the events topic's sums; last answer: {last}"
    raise AssertionError(msg)


def _page_shows(browser: Browser, url: str, expected: dict[tuple[str, str], Counter[str]]) -> None:
    """One table's gaming day as a row of the page's section (the table filter picks it)."""
    (table, day), counts = max(expected.items(), key=lambda item: item[1]["contributions"])
    browser.open(url)
    browser.wait_for("!document.getElementById('aggregates-box').classList.contains('hidden')")
    browser.evaluate(
        f"(() => {{ const e = document.getElementById('f-table'); e.value = {table!r}; "
        "e.dispatchEvent(new Event('input')); })()"
    )
    rows = browser.wait_for(
        "[...document.querySelectorAll('#aggregates tr')].map((tr) => "
        "[...tr.cells].map((td) => td.innerText))"
        f".filter((cells) => cells[1] === 'gaming day {day}')"
    )
    assert rows == [
        [
            table,
            f"gaming day {day}",
            str(counts["rounds"]),
            str(counts["contributions"]),
            dollars(counts["contributed_sub"], 8),
            str(counts["hits"]),
            dollars(counts["hit_cents"], 2),
            str(counts["awards"]),
            dollars(counts["award_cents"], 2),
            "",
        ]
    ], rows
    shown = browser.evaluate(
        "[...document.querySelectorAll('#aggregates tr')].slice(1)"
        ".map((tr) => tr.cells[0].innerText)"
    )
    assert shown, "no rows"
    assert set(shown) == {table}, shown  # the filter leaves the table's hours and days only
