"""Issue 15, finding 7: a background check refolds the whole log and compares it with the state
served; on a break nothing more is written and /readyz says why."""

from __future__ import annotations

import sqlite3
import threading
import time
from contextlib import closing
from pathlib import Path

from controller.fast import Session
from streams.embedded.self_check import check_once, run_self_check
from tests.streams.http.support import auth, full_round, open_api


def test_the_check_holds_then_finds_a_record_changed_under_a_running_service(
    tmp_path: Path,
) -> None:
    with open_api(tmp_path) as api:
        api.client.post("/v1/events", json=full_round(), headers=auth("table_device"))
        assert check_once(api.controller, api.log) == ""
        with closing(sqlite3.connect(tmp_path / "jackpot.db")) as raw:  # another writer
            raw.execute(
                "UPDATE log SET payload = CAST(REPLACE(CAST(payload AS TEXT), '1.00', '2.00') "
                "AS BLOB) WHERE CAST(payload AS TEXT) LIKE '%wager_placed%'"
            )
            raw.commit()
        stop = threading.Event()
        checker = threading.Thread(
            target=run_self_check, args=(api.controller, api.log, 0.01, stop)
        )
        checker.start()
        for _ in range(500):
            if api.controller.integrity_fault:
                break
            time.sleep(0.01)
        stop.set()
        checker.join()
        assert "hash chain at position" in api.controller.integrity_fault
        ready = api.client.get("/readyz")
        assert ready.status_code == 503
        assert "integrity self-check failed" in ready.json()["reason"]
        head = api.log.head()
        posted = api.client.post(
            "/v1/events", json=full_round(round_id="R2", start=7), headers=auth("table_device")
        )
        assert posted.status_code == 503
        assert api.log.head() == head


def test_a_state_that_drifted_from_its_log_is_found(tmp_path: Path) -> None:
    with open_api(tmp_path) as api:
        api.client.post("/v1/events", json=full_round(), headers=auth("table_device"))
        api.controller._session = Session()  # the state served forgets everything
        assert "differs from the state served" in check_once(api.controller, api.log)


def test_the_first_check_runs_at_once_and_every_zero_runs_only_it(tmp_path: Path) -> None:
    """`jackpot serve --self-check-every 0`: the check after start-up still runs (start-up walked
    only the chain after its snapshot), then no more."""
    with open_api(tmp_path) as api:
        api.client.post("/v1/events", json=full_round(), headers=auth("table_device"))
        assert api.controller.full_check.state == "not_started"
        began = time.monotonic()
        run_self_check(api.controller, api.log, 0, threading.Event())  # returns: no interval
        assert time.monotonic() - began < 30
        check = api.controller.full_check
        assert (check.state, check.position) == ("passed", api.log.head())
        stopped = threading.Event()
        stopped.set()
        run_self_check(api.controller, api.log, 0, stopped)  # stopped before: nothing checked
        assert api.controller.full_check is check
