"""The read API reports a meter's ``overflow`` (issue 17; NY 5320.8, NJ 13:69E-1.39A), and a
ceiling raised or lowered through a configuration change behaves as Maryland COMAR 36.04.01.30
says, on the running service.

Worked by hand: tcp-progressive capped at $1,000.20; three $1 progressive wagers: $1,000.20 on the
meter, $0.22 carried in the overflow.
"""

from __future__ import annotations

from pathlib import Path

from controller.model.commands import ActivateConfig
from tests.streams.http.support import CONFIG, auth, full_round, open_api

PLAIN = '[meters.tcp-progressive]\nprogressive = "pa-649a12e-A"\n'


def capped(ceiling: str) -> ActivateConfig:
    text = CONFIG.read_text(encoding="utf-8")
    assert PLAIN in text
    return ActivateConfig(
        command_id=f"cap-{ceiling}",
        source="capped.toml",
        text=text.replace(PLAIN, f'{PLAIN}ceiling = "{ceiling}"\n'),
        by="supervisor 1",
        occurred_at="2026-11-29T12:00:00Z",
    )


def test_the_meter_endpoint_shows_the_overflow_and_a_lower_ceiling_is_refused(
    tmp_path: Path,
) -> None:
    with open_api(tmp_path) as api:
        assert api.controller.operate(capped("1000.20")).status == "accepted"
        for n in range(3):
            answer = api.client.post(
                "/v1/events",
                json=full_round(round_id=f"R{n}", start=1 + 6 * n),
                headers=auth("table_device"),
            )
            assert answer.status_code == 200, answer.text
        meter = api.client.get("/v1/meters/tcp-progressive", headers=auth("read_only")).json()
        assert (meter["amount"], meter["reserve"], meter["overflow"]) == ("1000.20", "0.00", "0.22")
        lower = api.controller.operate(capped("1000.19"))
        assert lower.status != "accepted"
        assert "Maryland" in str(lower.reason)
        assert api.controller.operate(capped("2000.00")).status == "accepted"
