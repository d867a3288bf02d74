"""Add (or re-password) a SCRAM user on the local SASL broker: ``scripts/kafka.sh add-user NAME``.

The password is read from stdin (one line), never from the command line, so it shows in no
process list; the admin's credentials come from ``KAFKA_SECURITY_PROTOCOL`` and
``KAFKA_SASL_MECHANISM`` / ``_USERNAME`` / ``_PASSWORD`` as scripts/kafka.sh sets them for
`wait_kafka.py`. It uses the AlterUserScramCredentials API through confluent-kafka (librdkafka
salts and hashes the password on this side), not ``kafka-configs``: no JVM to start, and no
argument or properties file holding the password to clean up.

A new user may do nothing until it is granted a role (``jackpot kafka grant``): the broker runs
with ``allow.everyone.if.no.acl.found=false``.

Exit codes: 0 added, 1 the broker refused or did not answer, 2 bad input.
"""

from __future__ import annotations

import argparse
import os
import re
import sys

NAME = re.compile(r"[A-Za-z0-9._-]{1,64}")
#: As scripts/kafka.sh requires of the admin's password: safe in every syntax it passes through.
PASSWORD = re.compile(r"[A-Za-z0-9._~+/-]{8,256}")
#: librdkafka's default would be 4096; Kafka's own tools use 4096 too. More costs every login.
ITERATIONS = 8192


def admin_config(bootstrap: str) -> dict[str, str]:
    """The admin client's settings: the broker's admin user, from the environment."""
    return {
        "bootstrap.servers": bootstrap,
        "security.protocol": os.environ.get("KAFKA_SECURITY_PROTOCOL") or "SASL_PLAINTEXT",
        "sasl.mechanism": os.environ.get("KAFKA_SASL_MECHANISM") or "SCRAM-SHA-512",
        "sasl.username": os.environ.get("KAFKA_SASL_USERNAME", ""),
        "sasl.password": os.environ.get("KAFKA_SASL_PASSWORD", ""),
    }


def add_user(bootstrap: str, name: str, password: str, mechanism: str) -> None:
    """Upsert ``name``'s SCRAM credential; raises KafkaException when refused."""
    from confluent_kafka.admin import (  # noqa: PLC0415  # only when run
        AdminClient,
        ScramCredentialInfo,
        ScramMechanism,
        UserScramCredentialUpsertion,
    )

    admin = AdminClient({**admin_config(bootstrap), "log_level": 0})
    info = ScramCredentialInfo(ScramMechanism[mechanism.replace("-", "_")], ITERATIONS)
    upsert = UserScramCredentialUpsertion(name, info, password.encode())
    futures = admin.alter_user_scram_credentials([upsert], request_timeout=30)
    for future in futures.values():
        future.result()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("name", help="the new user (A-Z a-z 0-9 . _ -)")
    args = parser.parse_args(argv)
    password = sys.stdin.readline().rstrip("\r\n")
    if not NAME.fullmatch(args.name):
        print("kafka_user: NAME must be 1-64 characters from A-Z a-z 0-9 . _ -", file=sys.stderr)
        return 2
    if not PASSWORD.fullmatch(password):
        print(
            "kafka_user: the password on stdin must be 8-256 characters from "
            "A-Z a-z 0-9 . _ ~ + / - (e.g. openssl rand -hex 32)",
            file=sys.stderr,
        )
        return 2
    mechanism = (os.environ.get("KAFKA_SASL_MECHANISM") or "SCRAM-SHA-512").upper()
    try:
        add_user(args.bootstrap, args.name, password, mechanism)
    except Exception as exc:  # KafkaException or a transport error: say which
        print(f"kafka_user: the broker did not add user {args.name}: {exc}", file=sys.stderr)
        return 1
    print(f"kafka_user: added SCRAM user {args.name} ({mechanism})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
