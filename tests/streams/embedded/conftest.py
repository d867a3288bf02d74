"""Fixtures of the tamper-evidence tests: a snapshot key and a floor logged around a snapshot."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.model.views import meters_view
from streams.adapters.chain import load_key
from tests.streams.embedded.tamper_support import started
from tests.streams.http.support import AKQ_SPADES, full_round


@pytest.fixture
def key(tmp_path: Path) -> bytes:
    return load_key(tmp_path / "secrets" / "snapshot.key")


@pytest.fixture
def floor(tmp_path: Path, key: bytes) -> tuple[Path, list[dict[str, object]]]:
    """A log with rounds before and after a tagged snapshot, and its true meters."""
    db = tmp_path / "jackpot.db"
    controller = started(db, key)
    controller.submit(full_round())
    controller.snapshot()
    controller.submit(full_round(AKQ_SPADES, round_id="R2", start=7))
    expected = meters_view(controller.state)
    controller.log.close()
    return db, expected
