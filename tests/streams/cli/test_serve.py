"""``jackpot serve`` for real: a subprocess on a free loopback port, events posted with httpx.

Runs ``python -m streams.cli.serve`` (the same handler as ``jackpot serve``), so it needs nothing
beyond Python; it takes about two seconds, most of it interpreter start-up.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import httpx

from streams.adapters.chain import load_key
from streams.adapters.sqlite import SqliteLog
from streams.cli.serve import unbound_note
from streams.http.tokens import TokenEntry, TokenStore, add_token
from tests.streams.http.support import CONFIG, ROOT, full_round

STARTUP_SECONDS = 20.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def serve_command(tmp_path: Path, config: Path, port: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "streams.cli.serve",
        "--config",
        str(config),
        "--db",
        str(tmp_path / "var" / "jackpot.db"),
        "--tokens",
        str(tmp_path / "var" / "tokens.json"),
        "--port",
        str(port),
        "--snapshot-key",
        str(tmp_path / "secrets" / "snapshot.key"),
    ]


@contextmanager
def serving(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[bytes], Path]]:
    """The server's base URL, its process and the file its output goes to (never a pipe that
    could fill up and stall it)."""
    port = free_port()
    output = tmp_path / "serve.log"
    with output.open("wb") as sink:
        process = subprocess.Popen(
            serve_command(tmp_path, CONFIG, port),
            cwd=ROOT,
            stdout=sink,
            stderr=subprocess.STDOUT,
            # faulthandler: a server that hangs is asked (SIGABRT) where each thread stands
            env=os.environ | {"PYTHONUNBUFFERED": "1", "PYTHONFAULTHANDLER": "1"},
        )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_ready(base, process, output)
        yield base, process, output
    finally:
        stop_serving(process, output)


def stop_serving(process: subprocess.Popen[bytes], output: Path) -> None:
    """SIGTERM, then 15 s. A server still up after that is a hang, not a slow stop: its threads'
    stacks (faulthandler, on SIGABRT) go into the failure, after the test's own error if it had
    one, and it is killed so no later test meets it (or its Popen's warning)."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    with suppress(subprocess.TimeoutExpired):
        process.wait(timeout=15)
        return
    process.send_signal(signal.SIGABRT)
    with suppress(subprocess.TimeoutExpired):
        process.wait(timeout=5)
    if process.poll() is None:
        process.kill()
        process.wait()
    stacks = output.read_text(encoding="utf-8", errors="replace")[-6000:]
    msg = f"jackpot serve did not stop within 15 s of SIGTERM; its last output:\n{stacks}"
    raise AssertionError(msg)


def wait_ready(base: str, process: subprocess.Popen[bytes], output: Path) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        assert process.poll() is None, output.read_text(encoding="utf-8")
        try:
            if httpx.get(f"{base}/readyz", timeout=1.0).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    msg = f"jackpot serve was not ready within {STARTUP_SECONDS} s: {output.read_text()}"
    raise AssertionError(msg)


def full_check_settled(base: str) -> dict[str, object]:
    """/readyz's ``full_check`` once it is no longer running or not started (or at the deadline)."""
    deadline = time.monotonic() + STARTUP_SECONDS
    while True:
        check: dict[str, object] = httpx.get(f"{base}/readyz", timeout=10.0).json()["full_check"]
        if check["state"] in ("passed", "failed") or time.monotonic() > deadline:
            return check
        time.sleep(0.05)


def test_serve_ingests_over_real_http_and_snapshots_on_stop(tmp_path: Path) -> None:
    device = add_token(tmp_path / "var" / "tokens.json", "tcp-1-device", "table_device")
    reader = add_token(tmp_path / "var" / "tokens.json", "signage", "read_only")
    with serving(tmp_path) as (base, process, output):
        posted = httpx.post(
            f"{base}/v1/events",
            json=full_round(),
            headers={"Authorization": f"Bearer {device}"},
            timeout=10.0,
        )
        assert posted.status_code == 200
        assert posted.json()["accepted"] == 6
        meter = httpx.get(
            f"{base}/v1/meters/tcp-progressive",
            headers={"Authorization": f"Bearer {reader}"},
            timeout=10.0,
        )
        assert meter.json()["amount"] == "1000.14"
        assert httpx.get(f"{base}/v1/meters", timeout=10.0).status_code == 401
        assert "jackpot_meter_amount_dollars" in httpx.get(f"{base}/metrics", timeout=10.0).text
        # The full check starts right after start-up, not after the first hour's interval.
        check = full_check_settled(base)
        assert (check["state"], check["reason"]) == ("passed", ""), check
    # uvicorn drains, shuts the app down, then re-raises the SIGTERM it caught
    assert process.returncode == -signal.SIGTERM, output.read_text(encoding="utf-8")
    assert f"listening on {base}" in output.read_text(encoding="utf-8")
    # The device token is not bound to tables: said once at start.
    said = output.read_text(encoding="utf-8")
    assert said.count("1 table_device token is not bound to tables") == 1
    assert "tcp-1-device; bind them with jackpot token add --tables" in said
    key = load_key(tmp_path / "secrets" / "snapshot.key", create=False)  # made by serve
    log = SqliteLog(tmp_path / "var" / "jackpot.db", snapshot_key=key)
    try:
        latest = log.latest()
        assert latest is not None
        assert latest[0] == log.head()  # the snapshot taken on the way out
    finally:
        log.close()


def test_serve_refuses_a_bad_configuration_before_opening_a_port(tmp_path: Path) -> None:
    add_token(tmp_path / "var" / "tokens.json", "ann", "supervisor")
    broken = tmp_path / "broken.toml"
    broken.write_text('title = "no meters"\n[tables.t]\ngame = "chess"\n', encoding="utf-8")
    done = subprocess.run(
        serve_command(tmp_path, broken, free_port()),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "jackpot serve:" in done.stderr


def test_serve_without_a_tokens_file_says_how_to_make_one(tmp_path: Path) -> None:
    done = subprocess.run(
        serve_command(tmp_path, CONFIG, free_port()),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "jackpot token add" in done.stderr


def test_the_start_up_note_names_unbound_device_tokens_only() -> None:
    def device(name: str, tables: tuple[str, ...] | None = None) -> TokenEntry:
        return TokenEntry(name, "table_device", "0" * 64, tables)

    supervisor = TokenEntry("ann", "supervisor", "1" * 64)
    assert unbound_note(TokenStore([supervisor, device("d1", ("tcp-1",))])) == ""
    assert unbound_note(TokenStore([])) == ""
    note = unbound_note(
        TokenStore([supervisor, device("d1", ("tcp-1",)), device("d2"), device("d3")])
    )
    assert note.startswith("note: 2 table_device tokens are not bound to tables")
    assert "d2, d3;" in note
    assert "d1" not in note
    assert "ann" not in note
    many = unbound_note(TokenStore([device(f"d{n}") for n in range(9)]), shown=3)
    assert "d0, d1, d2 and 6 more;" in many
