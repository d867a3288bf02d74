"""Readiness probe for the local Kafka broker started by scripts/kafka.sh.

Polls the broker with a confluent-kafka AdminClient metadata request until it answers with
at least one broker, the timeout passes, or the broker process (``--pid``) dies.

It authenticates as ``KAFKA_SECURITY_PROTOCOL`` and ``KAFKA_SASL_MECHANISM`` / ``_USERNAME`` /
``_PASSWORD`` say (scripts/kafka.sh sets them; the engine reads the same names in
streams/adapters/kafka/security.py).

Exit codes: 0 ready, 1 timed out, 2 the watched process exited, 3 confluent-kafka missing,
4 the broker refused the credentials.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

EXIT_READY = 0
EXIT_TIMEOUT = 1
EXIT_DIED = 2
EXIT_NO_CLIENT = 3
EXIT_REFUSED = 4


def security_config() -> dict[str, str]:
    """The client security entries from the environment (PLAINTEXT when unset)."""
    protocol = os.environ.get("KAFKA_SECURITY_PROTOCOL") or "PLAINTEXT"
    if protocol == "PLAINTEXT":
        return {}
    return {
        "security.protocol": protocol,
        "sasl.mechanism": os.environ.get("KAFKA_SASL_MECHANISM") or "SCRAM-SHA-512",
        "sasl.username": os.environ.get("KAFKA_SASL_USERNAME", ""),
        "sasl.password": os.environ.get("KAFKA_SASL_PASSWORD", ""),
    }


def _alive(pid: int) -> bool:
    """The process exists and is not a zombie (exited, waiting to be reaped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            state = f.read().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return True
    return state != "Z"


def wait(bootstrap: str, timeout: float, pid: int | None, quiet: bool) -> int:
    """Ask for metadata until a broker answers, the broker process dies, the credentials are
    refused or ``timeout`` seconds pass; the exit code says which."""
    try:
        from confluent_kafka import KafkaException  # noqa: PLC0415
    except ImportError:
        print(
            f"wait_kafka: confluent-kafka is not importable by {sys.executable}; "
            "set PYTHON to the project's venv python",
            file=sys.stderr,
        )
        return EXIT_NO_CLIENT
    refused: list[str] = []
    admin = _admin(bootstrap, refused)
    deadline = time.monotonic() + timeout
    last_error = "no answer yet"
    while True:
        if pid is not None and not _alive(pid):
            if not quiet:
                print(f"wait_kafka: broker process {pid} exited", file=sys.stderr)
            return EXIT_DIED
        if refused:
            print(f"wait_kafka: {bootstrap} refused the credentials: {refused[0]}", file=sys.stderr)
            return EXIT_REFUSED
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            if not quiet:
                print(
                    f"wait_kafka: {bootstrap} not ready after {timeout:.0f} s ({last_error})",
                    file=sys.stderr,
                )
            return EXIT_TIMEOUT
        try:
            metadata = admin.list_topics(timeout=min(1.0, max(remaining, 0.1)))
        except KafkaException as exc:
            last_error = str(exc)
        else:
            if metadata.brokers:
                return EXIT_READY
            last_error = "metadata has no brokers"
        time.sleep(0.1)


def _admin(bootstrap: str, refused: list[str]) -> Any:
    """An admin client that retries fast and quietly while the broker boots, and records in
    ``refused`` an authentication failure (a wrong password never gets better)."""
    from confluent_kafka import KafkaError  # noqa: PLC0415
    from confluent_kafka.admin import AdminClient  # noqa: PLC0415

    def on_error(error: KafkaError) -> None:
        if error.code() == KafkaError._AUTHENTICATION:
            refused.append(error.str())

    config: dict[str, Any] = {"error_cb": on_error, **security_config()}
    return AdminClient(
        {
            **config,
            "bootstrap.servers": bootstrap,
            # Quiet librdkafka's "connection refused" chatter while the broker boots.
            "log_level": 0,
            # Retry fast: the default backoff grows to 10 s, which would delay readiness.
            "reconnect.backoff.ms": 50,
            "reconnect.backoff.max.ms": 250,
            "socket.connection.setup.timeout.ms": 2000,
        }
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bootstrap", default="127.0.0.1:19092")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--pid", type=int, default=None, help="give up if this process exits")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    return wait(args.bootstrap, args.timeout, args.pid, args.quiet)


if __name__ == "__main__":
    sys.exit(main())
