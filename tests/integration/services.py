"""Locate the real services integration tests talk to.

``require_kafka()`` and ``require_redis()`` return the connection string of a service that
answered a quick probe. When the service does not answer, the calling test is skipped with a
hint on how to start it; when the environment variable ``CI`` is set (non-empty and not
``0``/``false``/``no``), it fails instead, so a CI run can never go green by skipping.

Addresses come from ``KAFKA_BOOTSTRAP`` (default ``127.0.0.1:19092``) and ``REDIS_URL``
(default ``redis://127.0.0.1:16379/0``). When those are unset, the defaults follow the same
``KAFKA_PORT`` / ``REDIS_PORT`` / ``REDIS_PASSWORD`` variables as ``scripts/kafka.sh`` and
``scripts/redis.sh``, so one set of variables configures both the services and the tests.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import NoReturn
from urllib.parse import quote

import pytest

REPO = Path(__file__).resolve().parents[2]
DEFAULT_KAFKA_BOOTSTRAP = "127.0.0.1:19092"
DEFAULT_REDIS_URL = "redis://127.0.0.1:16379/0"
PROBE_TIMEOUT_S = 5.0

# Failed probes are remembered for the session so that many tests needing a missing service
# skip (or fail) at once instead of each waiting PROBE_TIMEOUT_S. Successes are not cached:
# fault tests stop and restart the broker, and a later test must see the current state.
_kafka_down: dict[str, str] = {}
_redis_down: dict[str, str] = {}


def in_ci() -> bool:
    """True when the ``CI`` environment variable is set to a truthy value."""
    return os.environ.get("CI", "").strip().lower() not in {"", "0", "false", "no"}


def kafka_bootstrap() -> str:
    """``KAFKA_BOOTSTRAP``, else 127.0.0.1 on ``KAFKA_PORT`` (the port scripts/kafka.sh uses)."""
    bootstrap = os.environ.get("KAFKA_BOOTSTRAP")
    if bootstrap:
        return bootstrap
    port = os.environ.get("KAFKA_PORT")
    return f"127.0.0.1:{port}" if port else DEFAULT_KAFKA_BOOTSTRAP


def redis_url() -> str:
    """``REDIS_URL``, else 127.0.0.1 on ``REDIS_PORT`` with ``REDIS_PASSWORD``, as redis.sh."""
    url = os.environ.get("REDIS_URL")
    if url:
        return url
    port = os.environ.get("REDIS_PORT")
    password = os.environ.get("REDIS_PASSWORD")
    if not port and not password:
        return DEFAULT_REDIS_URL
    auth = f":{quote(password, safe='')}@" if password else ""
    return f"redis://{auth}127.0.0.1:{port or 16379}/0"


def _unavailable(what: str, address: str, error: str, start_hint: str) -> NoReturn:
    message = f"{what} not reachable at {address} ({error}); start it with: {start_hint}"
    if in_ci():
        pytest.fail(f"CI is set, so a missing service is an error: {message}", pytrace=False)
    pytest.skip(message)


def _probe_kafka(bootstrap: str) -> str | None:
    """None when the broker answers a metadata request, else the error text."""
    from confluent_kafka import KafkaException  # noqa: PLC0415
    from confluent_kafka.admin import AdminClient  # noqa: PLC0415

    admin = AdminClient({"bootstrap.servers": bootstrap, "log_level": 0})
    try:
        metadata = admin.list_topics(timeout=PROBE_TIMEOUT_S)
    except KafkaException as exc:
        return str(exc)
    if not metadata.brokers:
        return "metadata lists no brokers"
    return None


def _probe_redis(url: str) -> str | None:
    """None when Redis answers PING, else the error text."""
    import redis  # noqa: PLC0415

    client = redis.Redis.from_url(
        url, socket_connect_timeout=PROBE_TIMEOUT_S, socket_timeout=PROBE_TIMEOUT_S
    )
    try:
        client.ping()
    except redis.RedisError as exc:
        return f"{type(exc).__name__}: {exc}"
    finally:
        client.close()
    return None


def require_kafka() -> str:
    """Bootstrap address of a reachable Kafka broker, or skip (fail under CI)."""
    bootstrap = kafka_bootstrap()
    error = _kafka_down.get(bootstrap) or _probe_kafka(bootstrap)
    if error is not None:
        _kafka_down[bootstrap] = error
        _unavailable("Kafka broker", bootstrap, error, "scripts/kafka.sh start")
    return bootstrap


def require_redis() -> str:
    """URL of a reachable Redis server, or skip (fail under CI)."""
    url = redis_url()
    error = _redis_down.get(url) or _probe_redis(url)
    if error is not None:
        _redis_down[url] = error
        _unavailable("Redis", _redact(url), error, "scripts/redis.sh start")
    return url


def _redact(url: str) -> str:
    scheme, sep, rest = url.partition("://")
    creds, at, host = rest.rpartition("@")
    if not sep or not at or not creds:
        return url
    return f"{scheme}://***@{host}"


#: The scripts that manage a service, with the variable naming its port and that port's default.
_MANAGED = {"kafka.sh": ("KAFKA_PORT", "19092"), "redis.sh": ("REDIS_PORT", "16379")}


def managed_service_env(script: str, port: str) -> dict[str, str]:
    """The environment to run ``scripts/<script>`` (kafka.sh or redis.sh) with, if it manages the
    running service on ``port``: fault tests stop, crash and restart a service through the script
    and must never touch one they were not given. Otherwise skip (fail when ``CI`` is set)."""
    port_var, default = _MANAGED[script]
    env = dict(os.environ)
    managed = env.get(port_var, default)
    if managed != port:
        _refuse(
            f"port {port} is not the one scripts/{script} manages ({port_var}={managed}): "
            f"set {port_var} (and its run dir) to match"
        )
    status = subprocess.run(
        [str(REPO / "scripts" / script), "status"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if status.returncode != 0:
        output = (status.stdout + status.stderr).strip()
        _refuse(f"scripts/{script} does not manage a running service on port {port}: {output}")
    return env


def _refuse(message: str) -> NoReturn:
    if in_ci():
        pytest.fail(f"CI is set: {message}", pytrace=False)
    pytest.skip(message)
