"""The Kafka worker's mystery sealing key (`streams.scaleout.worker`): named, defaulted beside its
data, refused with one line when it is not a key. A floor without a mystery level needs none."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from controller.config.floor import load_floor_config
from streams.adapters.kafka.settings import WorkerSettings
from streams.scaleout.worker import _mystery_key
from tests.controller.scenario import PA
from tests.controller.test_mystery import MYSTERY


def settings(tmp_path: Path, key: Path | None = None) -> WorkerSettings:
    return WorkerSettings(
        bootstrap="127.0.0.1:1",
        prefix="floor1",
        config_path=tmp_path / "floor.toml",
        data_dir=tmp_path / "data" / "floor1",
        mystery_key=key,
    )


def test_a_mystery_floor_gets_a_0600_key_in_the_data_dir_and_keeps_it(tmp_path: Path) -> None:
    config = load_floor_config(MYSTERY, "floor.toml")
    first = _mystery_key(settings(tmp_path), config)
    path = tmp_path / "data" / "floor1" / "mystery.key"
    assert first is not None
    assert len(first) == 32
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert _mystery_key(settings(tmp_path), config) == first  # a restart seals with the same key


def test_a_named_key_wins_and_a_plain_floor_needs_none(tmp_path: Path) -> None:
    named = tmp_path / "shared.key"
    named.write_text("ab" * 32 + "\n", encoding="ascii")
    config = load_floor_config(MYSTERY, "floor.toml")
    assert _mystery_key(settings(tmp_path, named), config) == bytes.fromhex("ab" * 32)
    assert _mystery_key(settings(tmp_path), load_floor_config(PA, "floor.toml")) is None
    assert not (tmp_path / "data").exists()


def test_a_file_that_is_no_key_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.key"
    bad.write_text("not a key\n", encoding="ascii")
    with pytest.raises(SystemExit) as info:
        _mystery_key(settings(tmp_path, bad), load_floor_config(MYSTERY, "floor.toml"))
    message = str(info.value)
    assert message.startswith("jackpot kafka worker:")
    assert "64 hex digits" in message
    assert "\n" not in message
