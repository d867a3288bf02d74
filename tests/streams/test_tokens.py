"""API tokens: printed once, stored only as hashes; a tokens file that is not right is refused."""

from __future__ import annotations

import argparse
import json
import stat
from pathlib import Path

import pytest

from controller.errors import ConfigError
from streams import token_cmd
from streams.tokens import Principal, TokenStore, add_token, token_digest


def test_a_new_token_authenticates_and_only_its_hash_is_stored(tmp_path: Path) -> None:
    path = tmp_path / "var" / "tokens.json"
    token = add_token(path, "ann", "supervisor")
    other = add_token(path, "tcp-1-device", "table_device")
    text = path.read_text(encoding="utf-8")
    assert token not in text
    assert other not in text
    assert token_digest(token) in text
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    store = TokenStore.load(path)
    assert store.authenticate(token) == Principal("ann", "supervisor")
    assert store.authenticate(other) == Principal("tcp-1-device", "table_device")
    assert store.authenticate(token + "x") is None
    assert store.authenticate("") is None
    assert store.authenticate(token_digest(token)) is None  # the hash is not a token
    assert store.names() == ["ann", "tcp-1-device"]
    assert len(token) >= 43  # 32 random bytes, URL-safe base64


def test_a_name_is_taken_until_replaced_which_revokes_the_old_token(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    old = add_token(path, "ann", "read_only")
    with pytest.raises(ConfigError, match="--replace revokes it"):
        add_token(path, "ann", "supervisor")
    new = add_token(path, "ann", "supervisor", replace=True)
    store = TokenStore.load(path)
    assert store.authenticate(old) is None
    assert store.authenticate(new) == Principal("ann", "supervisor")


@pytest.mark.parametrize(
    ("name", "role", "expected"),
    [
        ("ann", "admin", "one of table_device"),
        ("", "supervisor", "name"),
        ("a b", "read_only", "name"),
    ],
)
def test_a_bad_name_or_role_is_refused(tmp_path: Path, name: str, role: str, expected: str) -> None:
    with pytest.raises(ConfigError, match=expected):
        add_token(tmp_path / "tokens.json", name, role)
    assert not (tmp_path / "tokens.json").exists()


GOOD = {"name": "ann", "role": "supervisor", "sha256": "a" * 64}


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("not json", "JSON like"),
        ("[]", "tokens"),
        (json.dumps({"tokens": {}}), "tokens"),
        (json.dumps({"tokens": [GOOD | {"token": "plain"}]}), "exactly name, role and sha256"),
        (json.dumps({"tokens": [GOOD | {"role": "root"}]}), r"tokens\[0\].role"),
        (json.dumps({"tokens": [GOOD | {"sha256": "A" * 64}]}), "64 lower-case hex"),
        (json.dumps({"tokens": [GOOD | {"name": 7}]}), r"tokens\[0\].name"),
        (json.dumps({"tokens": [GOOD, GOOD]}), "each name at most once"),
    ],
)
def test_a_bad_tokens_file_is_refused_with_where(
    tmp_path: Path, content: str, expected: str
) -> None:
    path = tmp_path / "tokens.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError, match=expected):
        TokenStore.load(path)


def test_a_missing_tokens_file_says_how_to_make_one(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="jackpot token add"):
        TokenStore.load(tmp_path / "absent.json")


def run_token_cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="jackpot")
    token_cmd.add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    result: int = args.handler(args)
    return result


def test_the_cli_prints_the_token_once_on_stdout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "tokens.json"
    argv = ["token", "add", "--file", str(path), "--name", "ann", "--role", "supervisor"]
    assert run_token_cli(argv) == 0
    out, err = capsys.readouterr()
    token = out.strip()
    assert TokenStore.load(path).authenticate(token) == Principal("ann", "supervisor")
    assert token not in err
    assert "shown only this once" in err
    assert run_token_cli(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "--replace" in err
