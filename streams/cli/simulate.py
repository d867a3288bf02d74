"""``jackpot simulate``: a floor of the configuration's tables playing honest rounds, as JSONL.

``--seed`` makes a run repeatable (tests, demos); without it the shuffle is `secrets.SystemRandom`.
``--forced-hands P`` deals a jackpot hand in a share P of rounds: a demo aid, never honest dealing.
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from controller.config.floor import FloorConfig, load_floor_config
from controller.model.errors import ConfigError, JackpotError
from controller.model.instants import aware_instant
from streams.sim.floor import (
    AKQ_SPADES,
    COMMUNITY_ROYAL,
    DEALER_ROYAL,
    FIVE_OF_SIX_ROYAL,
    FloorSimulator,
    ForcedHands,
    SimTable,
    honest_rng,
    write_jsonl,
)
from streams.sim.heartbeat import keep_alive
from streams.sim.post import RetryingPoster, RetryPolicy


def add_parser(sub: Any) -> None:
    """Register the subcommand."""
    parser = sub.add_parser("simulate", help="simulate the configured floor; write table events")
    parser.add_argument("--config", required=True, type=Path, help="floor configuration (TOML)")
    parser.add_argument(
        "--rounds", type=counting, default=100, help="rounds per table (default 100)"
    )
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--out", type=Path, help="JSONL file to write")
    target.add_argument("--post", metavar="URL", help="post to a running `jackpot serve` at URL")
    parser.add_argument(
        "--token",
        default=os.environ.get("JACKPOT_TOKEN", ""),
        help="table_device token for --post (default $JACKPOT_TOKEN)",
    )
    parser.add_argument("--batch", type=int, default=200, help="events per POST (default 200)")
    parser.add_argument(
        "--retry-for",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="re-send an unanswered batch (same event ids) for this long (default 300)",
    )
    parser.add_argument(
        "--keep-alive",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="with --post: after the rounds, a heartbeat per table every SECONDS until stopped",
    )
    parser.add_argument("--seed", type=int, default=None, help="repeatable run (not honest)")
    parser.add_argument(
        "--forced-hands",
        type=float,
        default=0.0,
        metavar="P",
        help="deal a jackpot hand in this share of rounds (demo aid)",
    )
    parser.add_argument(
        "--start",
        type=instant,
        default="2026-11-29T12:00:00+00:00",
        help="simulated clock start (RFC 3339)",
    )
    parser.set_defaults(handler=handle)


def counting(text: str) -> int:
    """A whole number of at least 0 (argparse names the option when this refuses)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        msg = f"a whole number of at least 0, got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return value


def instant(text: str) -> datetime:
    """An RFC 3339 time with its offset, in UTC."""
    value = aware_instant(text)
    if value is None:
        msg = f"an RFC 3339 time with an offset like 2026-11-29T12:00:00Z, got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return value.astimezone(UTC)


def sim_tables(config: FloorConfig) -> list[SimTable]:
    """The simulator's view of the configured tables."""
    return [
        SimTable(
            table_id=t.table_id,
            game=t.game,
            seats=t.seats,
            wager_unit_cents=t.unit_cents,
            progressive_wagers=tuple(t.links),
        )
        for t in config.tables.values()
    ]


def handle(args: argparse.Namespace) -> int:
    """Write the simulated events; exit 2 if the configuration or an option is refused."""
    if not 0 <= args.forced_hands <= 1:
        print("jackpot simulate: --forced-hands is a share from 0 to 1", file=sys.stderr)
        return 2
    if args.out is not None and not args.out.parent.is_dir():
        print(f"jackpot simulate: {args.out.parent}: no such directory", file=sys.stderr)
        return 2
    try:
        config = load_floor_config(args.config.read_text(encoding="utf-8"), str(args.config))
    except ConfigError as exc:
        print(f"jackpot simulate: {exc}", file=sys.stderr)
        return 2
    rng = random.Random(args.seed) if args.seed is not None else honest_rng()  # noqa: S311 - seeded runs are for tests and demos
    forced = None
    if args.forced_hands > 0:
        deals = (AKQ_SPADES, COMMUNITY_ROYAL, DEALER_ROYAL, FIVE_OF_SIX_ROYAL)
        forced = ForcedHands(probability=args.forced_hands, deals=deals)
    start = args.start if isinstance(args.start, datetime) else instant(args.start)
    simulator = FloorSimulator(sim_tables(config), rng, start, forced_hands=forced)
    if args.post:
        policy = RetryPolicy(retry_for=args.retry_for)
        tables = list(config.tables) if args.keep_alive > 0 else []
        events = simulator.rounds(args.rounds)
        keep = (tables, args.keep_alive)
        return post_events(events, args.post, args.token, args.batch, policy, keep=keep)
    count = write_jsonl(simulator.rounds(args.rounds), args.out)
    print(f"jackpot simulate: {count} events to {args.out}", file=sys.stderr)
    return 0


def post_events(
    events: Iterable[dict[str, object]],
    url: str,
    token: str,
    batch: int,
    policy: RetryPolicy | None = None,
    *,
    keep: tuple[list[str], float] = ([], 0.0),
) -> int:
    """Post in batches, as table devices would: a batch that got no answer is re-sent unchanged
    until the service acknowledges it (`streams.sim.post`), so nothing is lost or applied twice.
    ``keep``: tables that then send heartbeats every so many seconds until interrupted."""
    headers = {"Authorization": f"Bearer {token}"}
    timeout = httpx.Timeout(30.0, connect=5.0)
    with httpx.Client(base_url=url.rstrip("/"), headers=headers, timeout=timeout) as client:
        poster = RetryingPoster(client, policy)
        iterator = iter(events)
        try:
            while chunk := list(itertools.islice(iterator, batch)):
                poster.post(chunk)
            if keep[0]:
                _report(url, poster)
                keep_alive(poster, keep[0], keep[1])
        except KeyboardInterrupt:
            return 0
        except JackpotError as exc:
            print(f"jackpot simulate: {exc}", file=sys.stderr)
            return 2
    _report(url, poster)
    return 0 if poster.stats.results["rejected"] == 0 else 1


def _report(url: str, poster: RetryingPoster) -> None:
    stats = poster.stats
    print(
        f"jackpot simulate: posted to {url}: {dict(stats.results)}; "
        f"{stats.retries} retries, {stats.duplicates_after_retry} already applied",
        file=sys.stderr,
    )
