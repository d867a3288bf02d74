"""Kafka client security settings: read once, refused when contradictory, used by every client.

The end-to-end proof on a SASL broker is `tests/integration/test_kafka_sasl.py`; these tests pin
the settings themselves and that every client builder in ``streams/`` takes them.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from controller.model.errors import ConfigError
from streams.adapters.kafka import read as kafka_read
from streams.adapters.kafka import topics
from streams.adapters.kafka.security import (
    KafkaSecurity,
    activate,
    active,
    add_security_arguments,
    client_settings,
    security_from,
    security_from_args,
)
from streams.adapters.kafka.sink import producer_config
from streams.scaleout import dump

STREAMS = Path(__file__).resolve().parents[4] / "streams"
SASL = {
    "security.protocol": "SASL_PLAINTEXT",
    "sasl.mechanism": "SCRAM-SHA-512",
    "sasl.username": "jackpot",
    "sasl.password": "s3cret-pw",
}
SASL_ENV = {"KAFKA_SASL_USERNAME": "jackpot", "KAFKA_SASL_PASSWORD": "s3cret-pw"}


@pytest.fixture(autouse=True)
def _nothing_activated(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in (
        "KAFKA_SECURITY_PROTOCOL",
        "KAFKA_SASL_MECHANISM",
        "KAFKA_SASL_USERNAME",
        "KAFKA_SASL_PASSWORD",
        "KAFKA_SASL_PASSWORD_FILE",
    ):
        monkeypatch.delenv(name, raising=False)
    activate(None)
    yield
    activate(None)


def test_the_default_is_plaintext_with_no_credentials() -> None:
    security = security_from({})
    assert security == KafkaSecurity()
    assert security.client_config() == {"security.protocol": "PLAINTEXT"}
    assert security.faust_credentials() is None
    assert security.describe() == "PLAINTEXT"


def test_a_username_means_sasl_scram_sha_512() -> None:
    security = security_from(SASL_ENV)
    assert security.client_config() == SASL
    assert security.describe() == "SASL_PLAINTEXT/SCRAM-SHA-512 as user 'jackpot'"


def test_protocol_and_mechanism_are_read_case_insensitively() -> None:
    env = {**SASL_ENV, "KAFKA_SECURITY_PROTOCOL": "sasl_plaintext"}
    security = security_from({**env, "KAFKA_SASL_MECHANISM": "scram-sha-256"})
    assert (security.protocol, security.mechanism) == ("SASL_PLAINTEXT", "SCRAM-SHA-256")


def test_the_password_file_loses_only_its_trailing_newline(tmp_path: Path) -> None:
    secret = tmp_path / "password"
    secret.write_text(" pw with spaces \n", encoding="utf-8")
    env = {"KAFKA_SASL_USERNAME": "jackpot", "KAFKA_SASL_PASSWORD_FILE": str(secret)}
    assert security_from(env).password == " pw with spaces "  # noqa: S105  # a test value


@pytest.mark.parametrize(
    ("env", "key"),
    [
        ({"KAFKA_SECURITY_PROTOCOL": "SSL"}, "KAFKA_SECURITY_PROTOCOL"),
        ({**SASL_ENV, "KAFKA_SASL_MECHANISM": "GSSAPI"}, "KAFKA_SASL_MECHANISM"),
        ({"KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT"}, "KAFKA_SASL_USERNAME"),
        ({"KAFKA_SASL_USERNAME": "jackpot"}, "KAFKA_SASL_USERNAME"),  # no password
        ({**SASL_ENV, "KAFKA_SECURITY_PROTOCOL": "PLAINTEXT"}, "KAFKA_SECURITY_PROTOCOL"),
        ({"KAFKA_SASL_PASSWORD": "orphan"}, "KAFKA_SECURITY_PROTOCOL"),
        ({**SASL_ENV, "KAFKA_SASL_PASSWORD_FILE": "/x"}, "KAFKA_SASL_PASSWORD"),
        (
            {"KAFKA_SASL_USERNAME": "u", "KAFKA_SASL_PASSWORD_FILE": "/nope"},
            "KAFKA_SASL_PASSWORD_FILE",
        ),
    ],
)
def test_incomplete_or_contradictory_settings_are_refused(env: dict[str, str], key: str) -> None:
    with pytest.raises(ConfigError) as caught:
        security_from(env)
    assert caught.value.key == key


def test_an_empty_password_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty").write_text("\n", encoding="utf-8")
    env = {"KAFKA_SASL_USERNAME": "u", "KAFKA_SASL_PASSWORD_FILE": str(tmp_path / "empty")}
    with pytest.raises(ConfigError, match="empty"):
        security_from(env)


def test_options_override_the_environment_and_there_is_no_password_option(
    tmp_path: Path,
) -> None:
    secret = tmp_path / "password"
    secret.write_text("from-the-file", encoding="utf-8")
    parser = argparse.ArgumentParser()
    add_security_arguments(parser)
    args = parser.parse_args(
        ["--kafka-sasl-username", "operator", "--kafka-sasl-password-file", str(secret)]
    )
    security = security_from_args(args, {**SASL_ENV, "KAFKA_SASL_MECHANISM": "SCRAM-SHA-256"})
    assert security == KafkaSecurity("SASL_PLAINTEXT", "SCRAM-SHA-256", "operator", "from-the-file")
    assert not any("password" in o and "file" not in o for o in parser._option_string_actions)


@given(st.text(min_size=1))
def test_the_password_never_shows_in_repr_or_describe(password: str) -> None:
    security = KafkaSecurity("SASL_PLAINTEXT", "SCRAM-SHA-512", "jackpot", password)
    other = KafkaSecurity("SASL_PLAINTEXT", "SCRAM-SHA-512", "jackpot", "\x00")
    # A password that is part of the text anyway (e.g. "/" in "SASL_PLAINTEXT/SCRAM-SHA-512")
    # cannot be told apart from a leak: only the others are evidence.
    assume(password not in repr(other) + other.describe())
    assert password not in repr(security)
    assert password not in security.describe()


def test_active_settings_follow_the_environment_until_a_command_activates_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert active() == KafkaSecurity()
    for name, value in SASL_ENV.items():
        monkeypatch.setenv(name, value)
    assert client_settings() == SASL
    chosen = KafkaSecurity("SASL_PLAINTEXT", "PLAIN", "other", "pw")
    activate(chosen)
    assert active() is chosen
    activate(None)
    assert client_settings() == SASL


def test_faust_gets_the_same_credentials_as_aiokafka_settings() -> None:
    from faust.transport.drivers.aiokafka import credentials_to_aiokafka_auth  # noqa: PLC0415

    credentials = security_from(SASL_ENV).faust_credentials()
    auth = credentials_to_aiokafka_auth(credentials)
    assert auth["security_protocol"] == "SASL_PLAINTEXT"
    assert auth["sasl_mechanism"] == "SCRAM-SHA-512"
    assert (auth["sasl_plain_username"], auth["sasl_plain_password"]) == ("jackpot", "s3cret-pw")


class _Client:
    """Stands in for a confluent client: records its configuration, connects nowhere."""

    configs: list[dict[str, Any]] = []  # noqa: RUF012  # shared on purpose: one test at a time

    def __init__(self, config: dict[str, Any], **_: Any) -> None:
        self.configs.append(config)

    def close(self) -> None:
        pass


def test_every_client_builder_adds_the_active_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    activate(security_from(SASL_ENV))
    _Client.configs.clear()
    monkeypatch.setattr(kafka_read, "Consumer", _Client)
    monkeypatch.setattr(dump, "Consumer", _Client)
    monkeypatch.setattr(topics, "AdminClient", _Client)
    kafka_read.reader("127.0.0.1:1")
    dump.consumer_lag("127.0.0.1:1", "group", [])
    topics.admin_client("127.0.0.1:1")
    configs = [*_Client.configs, producer_config("127.0.0.1:1", "client")]
    assert len(configs) == 4
    for config in configs:
        assert {k: config[k] for k in SASL} == SASL


def test_no_module_builds_a_client_without_the_security_settings() -> None:
    """Each ``"bootstrap.servers"`` entry in streams/ comes with ``client_settings()`` (the one
    exception: kafka_security's own access check, which takes settings to test)."""
    for path in sorted(STREAMS.rglob("*.py")):
        if path.relative_to(STREAMS).as_posix() == "adapters/kafka/security.py":
            continue
        text = path.read_text(encoding="utf-8")
        servers = len(re.findall(r'"bootstrap\.servers"', text))
        assert servers == text.count("client_settings()"), path.name
