"""``jackpot serve``: the HTTP API (`streams.http.app`) over the embedded engine, with uvicorn.

On start it restores the state from the newest snapshot whose tag holds under
``--snapshot-key`` (and whose chain hash the log still holds) and the log's tail, walking the
hash chain over that tail (a break: it refuses to start, one line naming the position, exit 1);
the full check (the chain from the first record, the whole log refolded) then runs in the
background (`streams.embedded.self_check`: a break stops writes and fails /readyz, which shows the
check's status; `jackpot verify` is the same check offline). It activates
the configuration if it changed (a refused configuration stops it with exit code 2, before any
port is opened). On SIGINT or SIGTERM uvicorn finishes the requests in flight; then a snapshot is
saved so the next start replays little, and the log is closed (the process then ends by the signal,
as uvicorn re-raises it: exit status 143 for SIGTERM).

The default host is 127.0.0.1: /metrics, /healthz and /readyz have no authentication. Bind wider
only behind a proxy or on a private network.

At start it notes the table_device tokens not bound to tables (`streams.http.tokens`): each may post
for any table, which is how older tokens files behave but not the recommended practice.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import socket
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import uvicorn

from controller.model.errors import ConfigError, LogTampered, RuleViolation, StoreUnavailable
from streams.adapters.chain import load_key
from streams.adapters.prometheus.sensor import MetricsSensor
from streams.adapters.redis.playability_board import BoardPublisher
from streams.adapters.redis.read_model import RedisReadModel, add_redis_arguments, password_from
from streams.adapters.sqlite import SqliteLog
from streams.cli.common import OneLineParser, fail, one_line, run_handler, user_error
from streams.embedded.engine import EmbeddedController
from streams.embedded.mystery import key_for
from streams.embedded.self_check import run_self_check
from streams.embedded.signage_feed import SignageFeed, run_flusher
from streams.http.app import DEFAULT_MAX_BODY, create_app
from streams.http.tokens import TokenStore


def add_parser(sub: Any) -> None:
    """Register the subcommand."""
    parser = sub.add_parser("serve", help="serve the HTTP API over the embedded engine")
    parser.add_argument("--config", required=True, type=Path, help="floor configuration (TOML)")
    parser.add_argument("--db", type=Path, default=Path("var/jackpot.db"), help="the event log")
    parser.add_argument(
        "--tokens", type=Path, default=Path("var/tokens.json"), help="API tokens (hashed)"
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default loopback)")
    parser.add_argument("--port", type=int, default=8080, help="port (default 8080)")
    parser.add_argument("--snapshot-every", type=int, default=20_000, help="records per snapshot")
    parser.add_argument(
        "--snapshot-key",
        type=Path,
        default=_key_default(),
        help="file of the key snapshots are tagged with, apart from the database (made on first "
        "use; default $JACKPOT_SNAPSHOT_KEY_FILE); without one no snapshot is trusted",
    )
    parser.add_argument(
        "--self-check-every",
        type=float,
        default=3600.0,
        help="seconds between background full checks that the log's chain holds from its first "
        "record and refolds to the state served (one runs right after start; 0: only that one; "
        "a break stops all writes and fails /readyz)",
    )
    parser.add_argument(
        "--mystery-key",
        type=Path,
        help="the mystery levels' sealing key (default <db>.mystery-key)",
    )
    parser.add_argument(
        "--max-body-bytes", type=int, default=DEFAULT_MAX_BODY, help="largest request body"
    )
    add_redis_arguments(
        parser, "publish live meters to this Redis for signage (default $REDIS_URL; none if unset)"
    )
    parser.add_argument(
        "--log-level",
        default="info",
        choices=["critical", "error", "warning", "info", "debug"],
        help="uvicorn's log level (info logs every request)",
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    """Serve until stopped; exit 2 if the tokens, the log or the configuration is refused."""
    try:
        config_text = args.config.read_text(encoding="utf-8")  # the likelier typo first
        tokens = TokenStore.load(args.tokens)
        key = load_key(args.snapshot_key) if args.snapshot_key else None
        _check_port(args.host, args.port)  # before the log is opened: uvicorn would start first
        log = SqliteLog(args.db, snapshot_key=key)
    except (ConfigError, OSError, StoreUnavailable) as exc:
        return fail("jackpot serve", user_error(exc) or str(exc))
    try:
        return _serve(args, config_text, tokens, log)
    finally:
        log.close()


def _serve(args: argparse.Namespace, config_text: str, tokens: TokenStore, log: SqliteLog) -> int:
    """Start the controller on the opened log and serve it until stopped (uvicorn's loop)."""
    key = key_for(args.db, config_text, args.mystery_key)
    controller = EmbeddedController(log, log, snapshot_every=args.snapshot_every, mystery_key=key)
    try:
        started = controller.start(config_text, str(args.config), by="jackpot serve")
    except (LogTampered, StoreUnavailable, RuleViolation, ValueError) as exc:
        # GLI-12 self-check: meters from a log that is not the one written are never served.
        print(f"jackpot serve: refusing to start: {one_line(str(exc))}", file=sys.stderr)
        return 1
    if started.status == "rejected":  # the reason names the file and the key already
        return fail("jackpot serve", started.reason)
    sensor = MetricsSensor()
    stop_signage = _start_signage(args, controller, sensor)
    # The full check as the server starts (start-up walked only the chain after its
    # snapshot), then every --self-check-every seconds; /readyz shows its status. Started
    # by the app, not here: it holds the GIL for seconds at 10,000 tables, and the app's
    # set-up (routes, sensor) would wait for it before the port opens.
    checker = threading.Thread(
        target=run_self_check,
        args=(controller, log, args.self_check_every, stop_signage),
        daemon=True,
        name="self-check",
    )
    app = create_app(
        controller,
        tokens,
        max_body_bytes=args.max_body_bytes,
        log=log,
        sensor=sensor,
        on_shutdown=lambda: _stop(controller, log, stop_signage),
        on_startup=checker.start,
    )
    _announce(args, controller, tokens)
    # On SIGTERM uvicorn drains, runs the app's shutdown (`_stop`), then re-raises the signal.
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)
    return 0


def _key_default() -> Path | None:
    path = os.environ.get("JACKPOT_SNAPSHOT_KEY_FILE", "")
    return Path(path) if path else None


def _start_signage(
    args: argparse.Namespace, controller: EmbeddedController, sensor: MetricsSensor
) -> threading.Event:
    """With ``--redis``: every durable batch updates the signage read model; a Redis outage never
    stops ingest (the feed keeps the meters dirty and a timer republishes them when it returns)."""
    stop = threading.Event()
    if not args.redis:
        return stop
    password = password_from(args.redis_password_file)
    model = RedisReadModel(args.redis, prefix=args.redis_prefix, password=password)
    # Meters only: `partial_state` decodes no table (a restart leaves them for their first use).
    feed = SignageFeed(model, controller.partial_state, on_dirty=sensor.signage_dirty.set)
    controller.subscribe(feed.listener)
    feed.republish_all()
    threading.Thread(target=run_flusher, args=(feed, stop), daemon=True, name="signage").start()
    # Loss of communication for signs reading Redis: the board beside the meter hashes.
    board = BoardPublisher(controller.liveness, lambda: controller.partial_state().config, model)
    threading.Thread(target=_tick_board, args=(board, stop), daemon=True, name="board").start()
    return stop


def _tick_board(board: BoardPublisher, stop: threading.Event) -> None:
    """Publish playability every second until ``stop`` (a Redis outage is logged and retried)."""
    while not stop.wait(1.0):
        board.tick()


def _stop(controller: EmbeddedController, log: SqliteLog, signage: threading.Event) -> None:
    """After the last request: a snapshot, so the next start replays little; then close."""
    signage.set()
    controller.snapshot()
    log.close()


def _announce(args: argparse.Namespace, controller: EmbeddedController, tokens: TokenStore) -> None:
    if controller.restore_note:
        print(f"jackpot serve: {controller.restore_note}", file=sys.stderr)
    if args.snapshot_key is None:
        print(
            "jackpot serve: no --snapshot-key: snapshots are not trusted, every start refolds "
            "the whole log",
            file=sys.stderr,
        )
    if not tokens.names():
        print(
            f"jackpot serve: {args.tokens} holds no tokens; every /v1 call is refused",
            file=sys.stderr,
        )
    if note := unbound_note(tokens):
        print(f"jackpot serve: {note}", file=sys.stderr)
    if not _is_loopback(args.host):
        print("jackpot serve: not on loopback: /metrics has no authentication", file=sys.stderr)
    host = f"[{args.host}]" if ":" in args.host else args.host
    base = f"http://{host}:{args.port}"
    print(
        f"jackpot serve: log {args.db} at position {controller.position}; listening on {base}\n"
        f"  API      {base}/v1/meters  (POST {base}/v1/events)\n"
        f"  OpenAPI  {base}/openapi.json\n"
        f"  metrics  {base}/metrics\n"
        f"  health   {base}/healthz  {base}/readyz",
        flush=True,
    )


def unbound_note(tokens: TokenStore, shown: int = 5) -> str:
    """One line naming the device tokens that may post for any table, or "" if every one is
    bound. At most ``shown`` names: a floor of thousands of devices must not flood the log."""
    names = tokens.unbound_devices()
    if not names:
        return ""
    count = len(names)
    listed = ", ".join(names[:shown]) + (f" and {count - shown} more" if count > shown else "")
    are = "token is" if count == 1 else "tokens are"
    return (
        f"note: {count} table_device {are} not bound to tables (any table may be posted for): "
        f"{listed}; bind them with jackpot token add --tables"
    )


def _check_port(host: str, port: int) -> None:
    """OSError naming the address when it cannot be bound (in use, or not this machine's)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            msg = f"cannot listen on {host}:{port}: {exc.strerror or exc}"
            raise OSError(msg) from exc


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m streams.cli.serve --config ...``: the same as ``jackpot serve``."""
    parser = OneLineParser(prog="jackpot")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["serve", *(sys.argv[1:] if argv is None else argv)])
    return run_handler(args)


if __name__ == "__main__":
    sys.exit(main())
