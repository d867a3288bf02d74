"""How every Kafka client of the engine authenticates: one frozen settings object, read from the
environment (or the ``jackpot kafka`` options), turned into confluent-kafka entries and faust's
``broker_credentials``.

Why one place: a client built without the credentials, against a SASL listener, is cut off with
nothing better than "Broker transport failure"; every producer, consumer, admin client and the
faust app must therefore take its security from here, and nowhere else.

==========================  ================================================================
setting                     meaning
==========================  ================================================================
KAFKA_SECURITY_PROTOCOL     ``PLAINTEXT`` (the default: loopback and local use only) or
                            ``SASL_PLAINTEXT``; set to SASL by default when a username is set
KAFKA_SASL_MECHANISM        ``SCRAM-SHA-512`` (default), ``SCRAM-SHA-256`` or ``PLAIN``
KAFKA_SASL_USERNAME         the SASL user
KAFKA_SASL_PASSWORD         its password, or ...
KAFKA_SASL_PASSWORD_FILE    ... a file holding it (a mounted Kubernetes/compose Secret)
==========================  ================================================================

The options ``--kafka-security-protocol``, ``--kafka-sasl-mechanism``, ``--kafka-sasl-username``
and ``--kafka-sasl-password-file`` override the environment; there is deliberately no password
option, so a password never shows in a process list. A command activates its settings once
(`activate`); the client builders read them with `client_settings` (the environment's when none
were activated, as in tests and library use).
"""

from __future__ import annotations

import argparse
import logging
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.model.errors import ConfigError, StoreUnavailable

if TYPE_CHECKING:
    from faust.auth import SASLCredentials

PLAINTEXT = "PLAINTEXT"
SASL_PLAINTEXT = "SASL_PLAINTEXT"
PROTOCOLS = (PLAINTEXT, SASL_PLAINTEXT)
#: Mechanisms both librdkafka (confluent-kafka) and aiokafka (faust) implement.
MECHANISMS = ("SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN")
DEFAULT_MECHANISM = "SCRAM-SHA-512"
SOURCE = "Kafka security settings"


@dataclass(frozen=True, slots=True)
class KafkaSecurity:
    """A client's security settings; the password never appears in ``repr``."""

    protocol: str = PLAINTEXT
    mechanism: str = DEFAULT_MECHANISM
    username: str = ""
    password: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        if self.protocol not in PROTOCOLS:
            expected = f"one of {', '.join(PROTOCOLS)}, not {self.protocol!r}"
            raise ConfigError(SOURCE, "KAFKA_SECURITY_PROTOCOL", expected)
        if self.mechanism not in MECHANISMS:
            expected = f"one of {', '.join(MECHANISMS)}, not {self.mechanism!r}"
            raise ConfigError(SOURCE, "KAFKA_SASL_MECHANISM", expected)
        if self.sasl and not (self.username and self.password):
            expected = (
                f"a user and a password for {self.protocol}: set KAFKA_SASL_USERNAME and "
                "KAFKA_SASL_PASSWORD or KAFKA_SASL_PASSWORD_FILE"
            )
            raise ConfigError(SOURCE, "KAFKA_SASL_USERNAME", expected)
        if not self.sasl and (self.username or self.password):
            expected = (
                "SASL_PLAINTEXT when a SASL user or password is set (PLAINTEXT would not use "
                "them), or unset the KAFKA_SASL_* settings"
            )
            raise ConfigError(SOURCE, "KAFKA_SECURITY_PROTOCOL", expected)

    @property
    def sasl(self) -> bool:
        return self.protocol != PLAINTEXT

    def describe(self) -> str:
        """For messages: the protocol, mechanism and user, never the password."""
        if not self.sasl:
            return PLAINTEXT
        return f"{self.protocol}/{self.mechanism} as user {self.username!r}"

    def client_config(self) -> dict[str, str]:
        """The confluent-kafka (librdkafka) entries for these settings."""
        if not self.sasl:
            return {"security.protocol": PLAINTEXT}
        return {
            "security.protocol": self.protocol,
            "sasl.mechanism": self.mechanism,
            "sasl.username": self.username,
            "sasl.password": self.password,
        }

    def faust_credentials(self) -> SASLCredentials | None:
        """faust's ``broker_credentials`` (None: plaintext); faust is imported only here."""
        if not self.sasl:
            return None
        from faust.auth import SASLCredentials  # noqa: PLC0415  # keep faust out of other commands

        return SASLCredentials(
            username=self.username, password=self.password, mechanism=self.mechanism
        )


def read_password_file(path: Path) -> str:
    """The password in ``path`` without its trailing newline (Secrets often end with one)."""
    try:
        password = path.read_text(encoding="utf-8").rstrip("\r\n")
    except OSError as exc:
        expected = f"a readable password file, not {path} ({exc.strerror})"
        raise ConfigError(SOURCE, "KAFKA_SASL_PASSWORD_FILE", expected) from exc
    if not password:
        expected = f"a password in {path}, which is empty"
        raise ConfigError(SOURCE, "KAFKA_SASL_PASSWORD_FILE", expected)
    return password


def security_from(
    environ: Mapping[str, str], overrides: Mapping[str, str | None] | None = None
) -> KafkaSecurity:
    """Settings from ``environ`` (see the module docstring), ``overrides`` (same names, None:
    not given) winning. ConfigError when they are incomplete or contradict each other."""

    def get(name: str) -> str:
        value = (overrides or {}).get(name)
        return (value if value is not None else environ.get(name, "")).strip()

    username = get("KAFKA_SASL_USERNAME")
    given_file = (overrides or {}).get("KAFKA_SASL_PASSWORD_FILE")
    if given_file:  # an option's file wins over an inherited environment password
        password = read_password_file(Path(given_file))
    else:
        password = environ.get("KAFKA_SASL_PASSWORD", "")  # as given: spaces may be part of it
        password_file = get("KAFKA_SASL_PASSWORD_FILE")
        if password and password_file:
            expected = "KAFKA_SASL_PASSWORD or KAFKA_SASL_PASSWORD_FILE, not both"
            raise ConfigError(SOURCE, "KAFKA_SASL_PASSWORD", expected)
        if password_file:
            password = read_password_file(Path(password_file))
    protocol = get("KAFKA_SECURITY_PROTOCOL").upper() or (SASL_PLAINTEXT if username else PLAINTEXT)
    mechanism = get("KAFKA_SASL_MECHANISM").upper() or DEFAULT_MECHANISM
    return KafkaSecurity(protocol, mechanism, username, password)


def add_security_arguments(parser: argparse.ArgumentParser) -> None:
    """The command-line options; each defaults to its environment variable."""
    group = parser.add_argument_group("Kafka security (default: the KAFKA_* environment)")
    group.add_argument("--kafka-security-protocol", choices=PROTOCOLS, help="or PLAINTEXT")
    group.add_argument("--kafka-sasl-mechanism", choices=MECHANISMS, help="SASL mechanism")
    group.add_argument("--kafka-sasl-username", help="SASL user")
    group.add_argument(
        "--kafka-sasl-password-file", type=Path, help="file holding the SASL password"
    )


def security_from_args(
    args: argparse.Namespace, environ: Mapping[str, str] = os.environ
) -> KafkaSecurity:
    """Settings from parsed options (`add_security_arguments`) over ``environ``."""
    password_file = getattr(args, "kafka_sasl_password_file", None)
    return security_from(
        environ,
        {
            "KAFKA_SECURITY_PROTOCOL": getattr(args, "kafka_security_protocol", None),
            "KAFKA_SASL_MECHANISM": getattr(args, "kafka_sasl_mechanism", None),
            "KAFKA_SASL_USERNAME": getattr(args, "kafka_sasl_username", None),
            "KAFKA_SASL_PASSWORD_FILE": None if password_file is None else str(password_file),
        },
    )


_activated: list[KafkaSecurity] = []


def activate(security: KafkaSecurity | None) -> None:
    """Make ``security`` this process's settings (None: back to the environment's)."""
    _activated.clear()
    if security is not None:
        _activated.append(security)


def active() -> KafkaSecurity:
    """The activated settings, else the environment's (read at each call: tests change it)."""
    return _activated[0] if _activated else security_from(os.environ)


def client_settings() -> dict[str, str]:
    """The confluent-kafka security entries every client of the engine adds to its config."""
    return active().client_config()


class _Heard(logging.Handler):
    """Collects librdkafka's log lines: "connection closed by peer" is only logged."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def check_access(bootstrap: str, security: KafkaSecurity, timeout: float = 15.0) -> None:
    """Return when the broker answers a metadata request with these settings; otherwise raise
    StoreUnavailable saying why (credentials refused, a protocol the listener does not speak, no
    answer), so a misconfigured command stops at once with a reason instead of retrying."""
    from confluent_kafka import KafkaError, KafkaException  # noqa: PLC0415
    from confluent_kafka.admin import AdminClient  # noqa: PLC0415

    refused: list[str] = []
    problems = ["no answer"]
    heard, logger = _Heard(), logging.getLogger(f"{__name__}.check")
    logger.propagate, logger.handlers = False, [heard]

    def on_error(error: KafkaError) -> None:
        if error.code() == KafkaError._AUTHENTICATION:  # librdkafka's own name
            refused.append(error.str())
        elif error.code() == KafkaError._TRANSPORT:
            problems.append(error.str())

    config: dict[str, Any] = {"bootstrap.servers": bootstrap, **security.client_config()}
    config.update(error_cb=on_error, log_level=4)
    admin = AdminClient(config, logger=logger)
    deadline = time.monotonic() + timeout
    while not refused and _cut_off(security, heard.lines) < 3 and time.monotonic() < deadline:
        try:
            if admin.list_topics(timeout=1.0).brokers:
                return
        except KafkaException:
            pass
        admin.poll(0)
    raise StoreUnavailable(_refusal(bootstrap, security, refused, heard.lines, problems[-1]))


def _cut_off(security: KafkaSecurity, lines: list[str]) -> int:
    """How often the broker hung up on a plaintext client (a SASL listener does that)."""
    return 0 if security.sasl else sum("closed by peer" in line for line in lines)


def _refusal(
    bootstrap: str, security: KafkaSecurity, refused: list[str], lines: list[str], problem: str
) -> str:
    if refused:
        reason = refused[0].split(": ", 1)[-1]
        return (
            f"Kafka at {bootstrap} refused {security.describe()}: {reason}; check "
            "KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD(_FILE) and KAFKA_SASL_MECHANISM"
        )
    if _cut_off(security, lines):
        return (
            f"Kafka at {bootstrap} closed the connection of a PLAINTEXT client: the listener "
            "requires authentication; set KAFKA_SECURITY_PROTOCOL=SASL_PLAINTEXT and the "
            "KAFKA_SASL_* settings"
        )
    return f"Kafka at {bootstrap} did not answer as {security.describe()}: {problem}"


def activate_from(args: argparse.Namespace) -> KafkaSecurity:
    """For a command: settings from its options and the environment, checked against the broker
    at ``args.bootstrap``, then activated; ConfigError or StoreUnavailable with the reason."""
    security = security_from_args(args)
    check_access(args.bootstrap, security)
    activate(security)
    return security
