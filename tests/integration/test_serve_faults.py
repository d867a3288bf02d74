"""Faults on the embedded service: SIGKILLed while table devices keep posting; Redis stopped.

One device per table posts a seeded simulated floor (forced jackpot hands, so there are hits,
dealer-hand splits and Envy Bonuses) to a real ``jackpot serve`` in batches of 1 to 10, each device
re-sending an unanswered batch with the same event ids until acknowledged (`streams.sim.post`).
Meanwhile the service is SIGKILLed at random moments spread over the run and started again on the
same database, and the Redis of ``scripts/redis.sh`` (the signage read model) is stopped and
started twice while posting goes on, and once more restarted at a quiet moment (no request in
flight, so nothing fails and the feed must notice the empty Redis by reading back).

Afterwards, to the sub-unit: the service's meters equal a clean fold of its log, a restore from its
snapshot and log tail, and the pure core's replay of the input in the order the service accepted
it. The devices post concurrently and the meters are shared, so the file's own order is one of
many valid interleavings; what does not depend on the order (the refusals, each meter's hits, every
award but the amount of a percentage one) must equal the pure replay of the input file itself.
Every input event is in the log exactly once, no hit id or award appears twice, no request was
answered 5xx, and once Redis is back every meter hash equals the engine's meter.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from controller.config.floor import load_floor_config
from controller.model.errors import StoreUnavailable
from controller.model.events import Event, EventRejected, FixedAwarded, ProgressiveHit
from controller.model.state import FloorState
from controller.model.table_events import TableEventBase
from controller.model.views import View, awards_view, meters_view
from streams.adapters.redis.read_model import RedisReadModel
from streams.adapters.sqlite import SqliteLog
from streams.cli.replay import replay_file, replay_lines
from streams.cli.simulate import handle as simulate
from streams.codec import decode, fold_log
from streams.embedded.engine import EmbeddedController
from streams.embedded.signage_feed import meter_fields
from streams.http.tokens import add_token
from tests.integration.serve_faults_support import Device, FaultRun, ManagedRedis, Service
from tests.integration.services import require_redis
from tests.streams.cli.test_serve import free_port
from tests.streams.http.support import CONFIG

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ROUNDS, SEED, FORCED = 24, 7, "0.1"  # 8 tables: about 4,800 events, dozens of awards
KILLS = 12
FAULTS = [
    *["kill"] * 3, "redis", *["kill"] * 3, "quiet-redis", *["kill"] * 2, "redis",
    *["kill"] * (KILLS - 8),
]  # fmt: skip
SIGNAGE_SECONDS = 30.0


def test_kills_and_redis_restarts_lose_nothing_and_pay_nothing_twice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = require_redis()
    managed = ManagedRedis(url)
    started = time.monotonic()
    events_file, lines = _simulate(tmp_path)
    by_table: dict[str, list[dict[str, object]]] = defaultdict(list)
    for line in lines.values():
        event = json.loads(line)
        by_table[str(event["table_id"])].append(event)
    tokens = tmp_path / "tokens.json"
    reader = add_token(tokens, "accounting", "read_only")
    prefix = f"faults-{uuid.uuid4().hex[:12]}"
    service = Service(tmp_path, free_port(), CONFIG, url, prefix)
    gate = threading.Event()
    gate.set()
    devices = [
        Device(service.base, add_token(tokens, f"{t}-device", "table_device"), events, gate, n)
        for n, (t, events) in enumerate(sorted(by_table.items()))
    ]
    faults = FaultRun(service, managed, devices, gate, lambda: _signs_complete(url, prefix))
    service.start()  # after the tokens are written: it reads them once
    try:
        for device in devices:
            device.start()
        faults.run(FAULTS, len(lines))
        for device in devices:
            device.join(timeout=180)
            assert not device.is_alive(), f"{device.name} still posting after 180 s"
            assert device.error is None, f"{device.name}: {device.error!r}\n{service.logs()}"
        served = _get(service.base, reader, "/v1/meters")["meters"]
        _wait_for_signage(url, prefix, served)
    finally:
        service.stop()
        managed.start()  # whatever happened, leave Redis running for the other tests
    state = _check_log(tmp_path / "jackpot.db", events_file, lines, served)
    _check_signage(url, prefix, state)
    _report(
        capsys,
        faults=faults,
        devices=devices,
        events=len(lines),
        seconds=time.monotonic() - started,
    )


def _simulate(folder: Path) -> tuple[Path, dict[str, bytes]]:
    """The input file and its lines by event id."""
    path = folder / "floor.jsonl"
    args = [
        "simulate", "--config", str(CONFIG), "--rounds", str(ROUNDS), "--seed", str(SEED),
        "--forced-hands", FORCED, "--out", str(path),
    ]  # fmt: skip
    from streams.cli import build_parser  # noqa: PLC0415 - only this helper needs the parser

    assert simulate(build_parser().parse_args(args)) == 0
    lines = [line for line in path.read_bytes().splitlines() if line.strip()]
    return path, {str(json.loads(line)["event_id"]): line for line in lines}


def _get(base: str, token: str, path: str) -> dict[str, Any]:
    answer = httpx.get(f"{base}{path}", headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()
    return result


def _signs_complete(url: str, prefix: str) -> bool:
    """Whether Redis holds a hash for every configured meter."""
    config = load_floor_config(CONFIG.read_text(encoding="utf-8"), str(CONFIG))
    model = RedisReadModel(url, prefix=prefix)
    try:
        return len(model.read_all(sorted(config.meters))) == len(config.meters)
    except StoreUnavailable:
        return False
    finally:
        model.close()


def _wait_for_signage(url: str, prefix: str, served: list[View]) -> None:
    """Until every meter hash shows what the service serves (the feed's flusher catches up)."""
    model = RedisReadModel(url, prefix=prefix)
    want = {str(m["meter_id"]): {k: str(v) for k, v in m.items()} for m in served}
    deadline = time.monotonic() + SIGNAGE_SECONDS
    try:
        while True:
            shown = model.read_all(sorted(want))
            seen = {m: {k: v for k, v in shown.get(m, {}).items() if k in want[m]} for m in want}
            if seen == want:
                return
            assert time.monotonic() < deadline, f"signage never caught up: {seen} != {want}"
            time.sleep(0.2)
    finally:
        model.close()


def _check_signage(url: str, prefix: str, state: FloorState) -> None:
    """Every meter hash equals the engine's meter, seq included; then the keys are dropped."""
    model = RedisReadModel(url, prefix=prefix)
    try:
        shown = model.read_all(sorted(state.meters))
        for meter_id, meter in state.meters.items():
            want = {**meter_fields(meter), "seq": str(meter.seq)}
            got = {k: v for k, v in shown.get(meter_id, {}).items() if k != "updated_at"}
            assert got == want, meter_id
    finally:
        model.close()
        client = redis.Redis.from_url(url)
        keys = list(client.scan_iter(match=f"{prefix}:*"))
        if keys:
            client.delete(*keys)
        client.close()


def _check_log(
    db: Path, events_file: Path, lines: dict[str, bytes], served: list[View]
) -> FloorState:
    """The log against the input and the pure core; the folded state (for the signage check)."""
    log = SqliteLog(db)
    try:
        logged = [decode(record.payload) for record in log.read()]
        state, _ = fold_log(log)
    finally:
        log.close()
    assert _restored(db).meters == state.meters  # snapshot + tail == clean fold, to the sub-unit
    assert served == meters_view(state)

    reference: dict[str, Any] = replay_file(CONFIG, events_file)
    accepted = [e.event_id for e in logged if isinstance(e, TableEventBase)]
    refused = {str(r["event_id"]) for r in reference["rejected"]}
    dead = {e.event_id for e in logged if isinstance(e, EventRejected)}
    assert [i for i, n in Counter(accepted).items() if n > 1] == [], "an event applied twice"
    assert set(accepted) | refused == set(lines), "an event was lost"
    assert dead == refused, "the service and the pure core refuse different events"

    pure = _pure_state([lines[i] for i in accepted])
    assert pure.meters == state.meters  # the same order through the pure core, to the sub-unit
    _check_awards(logged, reference)
    return state


def _restored(db: Path) -> FloorState:
    """What the next start of the service would serve: its newest snapshot and the log's tail."""
    log = SqliteLog(db)
    try:
        engine = EmbeddedController(log, log, snapshot_every=400)
        engine.start(CONFIG.read_text(encoding="utf-8"), str(CONFIG))
        return engine.state
    finally:
        log.close()


def _pure_state(lines: list[bytes]) -> FloorState:
    """The pure core over the lines in the order the service accepted them (no heartbeats)."""
    state, log = replay_lines(CONFIG, lines)
    refused = [e for e in log if isinstance(e, EventRejected)]
    assert not refused, refused[:3]  # the service accepted every one of them
    return state


def _check_awards(logged: list[Event], reference: dict[str, Any]) -> None:
    """No hit or award twice; the order-free facts of the input file's pure replay hold."""
    hits = [e.hit_id for e in logged if isinstance(e, ProgressiveHit)]
    hits += [e.hit_id for e in logged if isinstance(e, FixedAwarded) and e.hit_id]
    assert len(hits) == len(set(hits)) > 0, "a hit was recorded twice (or none at all)"
    rows = list(awards_view(logged))
    kinds = Counter(str(row["kind"]) for row in rows)
    assert kinds["envy"] > 0, kinds
    assert kinds["progressive"] > 0, kinds

    def identity(row: View) -> tuple[object, ...]:
        keep = ("table_id", "round_id", "seat", "wager", "on", "kind", "hand", "meter_id")
        amount = row["amount"] if row["kind"] != "progressive" else None
        return (*(row[k] for k in keep), amount)

    assert Counter(map(identity, rows)) == Counter(map(identity, reference["awards"]))
    keys = Counter(identity(row)[:6] for row in rows)
    assert [k for k, n in keys.items() if n > 1] == [], "an award was paid twice"


def _report(
    capsys: pytest.CaptureFixture[str],
    *,
    faults: FaultRun,
    devices: list[Device],
    events: int,
    seconds: float,
) -> None:
    stats = [d.stats for d in devices]
    statuses: Counter[int] = sum((s.statuses for s in stats), Counter())
    assert [code for code in statuses if code >= 500] == [], statuses
    retries = sum(s.retries for s in stats)
    ignored = sum(s.duplicates_after_retry for s in stats)
    assert sum(s.results["duplicate"] for s in stats) == ignored  # only retries repeat events
    service, redis_restarts = faults.service, faults.redis.restarts
    assert service.kills >= KILLS
    assert redis_restarts >= 3
    with capsys.disabled():
        print(
            f"\nserve faults: {service.kills} SIGKILLs, {redis_restarts} Redis restarts "
            f"(the quiet one: signs whole {faults.quiet_seconds[0]:.1f}s after the stop), "
            f"{events} events from {len(devices)} devices in {sum(s.batches for s in stats)} "
            f"batches, {sum(s.attempts for s in stats)} requests, {retries} client retries, "
            f"{ignored} duplicates acknowledged and ignored, no 5xx; restarts ready in at most "
            f"{max(service.ready_seconds):.1f}s; {seconds:.0f}s"
        )
