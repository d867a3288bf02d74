"""The ``jackpot`` dispatcher: a command whose extra is missing says so in one line (issue 12)."""

from __future__ import annotations

import importlib
from types import ModuleType

import pytest

from streams import cli


def _without(module_name: str, missing: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make importing ``module_name`` fail as it would with ``missing`` not installed."""
    real = importlib.import_module

    def fake(name: str, package: str | None = None) -> ModuleType:
        if name == module_name:
            raise ModuleNotFoundError(f"No module named {missing!r}", name=missing)
        return real(name, package)

    monkeypatch.setattr(importlib, "import_module", fake)


@pytest.mark.parametrize(("command", "module", "missing"), [
    (["serve", "--config", "f.toml", "--db", "x.db"], "streams.cli.serve", "uvicorn"),
    (["kafka", "worker", "--prefix", "p"], "streams.cli.kafka", "confluent_kafka"),
])  # fmt: skip
def test_a_command_without_its_extra_names_the_extra_in_one_line(
    command: list[str], module: str, missing: str, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    _without(module, missing, monkeypatch)
    assert cli.main(command) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"jackpot {command[0]}: needs the 'edge' extra (no module '{missing}')" in err
    assert "pip install 'table-jackpot-controller[edge]'" in err


def test_a_base_command_missing_a_module_is_a_real_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the commands that declare an extra get a stand-in: the base install must run replay."""
    _without("streams.cli.replay", "jsonschema", monkeypatch)
    with pytest.raises(ModuleNotFoundError):
        cli.main(["replay", "--config", "f.toml", "e.jsonl"])


def test_unknown_arguments_of_an_installed_command_are_still_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.main(["replay", "--config", "f.toml", "e.jsonl", "--bogus"])
    assert exit_.value.code == 2
    assert "unrecognized arguments: --bogus" in capsys.readouterr().err
