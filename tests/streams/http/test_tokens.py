"""API tokens: printed once, stored only as hashes; a tokens file that is not right is refused."""

from __future__ import annotations

import argparse
import json
import stat
from pathlib import Path

import pytest

from controller.model.errors import ConfigError
from streams.cli import token as token_cmd
from streams.http.tokens import (
    Principal,
    TokenEntry,
    TokenStore,
    add_token,
    new_token,
    token_digest,
)


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


DEVICE = {"name": "tcp-1-device", "role": "table_device", "sha256": "b" * 64}


def test_a_bound_device_token_is_stored_sorted_and_authenticates_with_its_tables(
    tmp_path: Path,
) -> None:
    path = tmp_path / "tokens.json"
    token = add_token(path, "tcp-1-device", "table_device", tables=["TCP-02", "TCP-01", "TCP-02"])
    entry = json.loads(path.read_text(encoding="utf-8"))["tokens"][0]
    assert entry["tables"] == ["TCP-01", "TCP-02"]
    principal = TokenStore.load(path).authenticate(token)
    assert principal == Principal("tcp-1-device", "table_device", frozenset({"TCP-01", "TCP-02"}))
    # Written back unchanged by the next add (the whole file is rewritten each time).
    add_token(path, "ann", "supervisor")
    assert json.loads(path.read_text(encoding="utf-8"))["tokens"][0] == entry
    assert TokenStore.load(path).authenticate(token) == principal


def test_an_entry_without_tables_loads_as_before_and_is_listed_as_unbound(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    bound = DEVICE | {"name": "tcp-2-device", "sha256": "c" * 64, "tables": ["tcp-2"]}
    path.write_text(json.dumps({"tokens": [GOOD, DEVICE, bound]}), encoding="utf-8")
    store = TokenStore.load(path)
    assert store.names() == ["ann", "tcp-1-device", "tcp-2-device"]
    assert store.unbound_devices() == ["tcp-1-device"]
    add_token(path, "reader", "read_only")
    entries = json.loads(path.read_text(encoding="utf-8"))["tokens"]
    assert entries[:3] == [GOOD, DEVICE, bound]  # no "tables" key appears on unbound entries


def test_a_principal_refuses_only_tables_outside_its_binding() -> None:
    bound = Principal("tcp-1-device", "table_device", frozenset({"TCP-01", "TCP-02"}))
    assert bound.refusal("TCP-01") == ""
    assert bound.refusal("TCP-02") == ""
    reason = bound.refusal("TCP-09")
    assert reason == "token 'tcp-1-device' may post for tables TCP-01, TCP-02 only, not 'TCP-09'"
    assert bound.refusal("tcp-01") != ""  # table ids are compared exactly, as the config's are
    assert Principal("old-device", "table_device").refusal("TCP-09") == ""


@pytest.mark.parametrize("role", ["supervisor", "read_only"])
def test_only_a_device_token_may_be_bound(tmp_path: Path, role: str) -> None:
    path = tmp_path / "tokens.json"
    with pytest.raises(ConfigError, match="only a table_device token is bound"):
        add_token(path, "ann", role, tables=["TCP-01"])
    assert not path.exists()
    path.write_text(json.dumps({"tokens": [GOOD | {"role": role, "tables": ["T"]}]}), "utf-8")
    with pytest.raises(ConfigError, match=r"tokens\[0\].tables: no tables for a"):
        TokenStore.load(path)
    with pytest.raises(ConfigError, match="only a table_device token is bound"):
        TokenStore([TokenEntry("ann", "supervisor", "a" * 64, ("T",))])


@pytest.mark.parametrize(
    ("tables", "where"),
    [
        ([], r"tokens\[0\].tables"),
        ("TCP-01", r"tokens\[0\].tables"),
        (["TCP-01", ""], r"tokens\[0\].tables\[1\]"),
        (["TCP 01"], r"tokens\[0\].tables\[0\]"),
        (["x" * 65], r"tokens\[0\].tables\[0\]"),
        ([7], r"tokens\[0\].tables\[0\]"),
        (["TCP-01\n"], r"tokens\[0\].tables\[0\]"),
        (None, r"tokens\[0\].tables"),
    ],
)
def test_bad_tables_in_the_file_are_refused_with_where(
    tmp_path: Path, tables: object, where: str
) -> None:
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({"tokens": [DEVICE | {"tables": tables}]}), encoding="utf-8")
    with pytest.raises(ConfigError, match=where):
        TokenStore.load(path)


@pytest.mark.parametrize("tables", [[], ["TCP-01", "bad/id"], ["é"]])
def test_bad_tables_are_refused_when_adding(tmp_path: Path, tables: list[str]) -> None:
    with pytest.raises(ConfigError, match="non-empty array of table ids"):
        add_token(tmp_path / "tokens.json", "dev", "table_device", tables=tables)
    assert not (tmp_path / "tokens.json").exists()


def test_the_cli_binds_a_device_token_with_commas_or_the_option_repeated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "tokens.json"
    base = ["token", "add", "--file", str(path), "--role", "table_device"]
    assert run_token_cli([*base, "--name", "a", "--tables", "TCP-02,TCP-01"]) == 0
    first = capsys.readouterr().out.strip()
    assert run_token_cli([*base, "--name", "b", "--tables", "TCP-03", "--tables", "TCP-01"]) == 0
    second, err = capsys.readouterr()
    assert "bound to TCP-01, TCP-03" in err
    store = TokenStore.load(path)
    assert store.authenticate(first) == Principal(
        "a", "table_device", frozenset({"TCP-01", "TCP-02"})
    )
    assert store.authenticate(second.strip()) == Principal(
        "b", "table_device", frozenset({"TCP-01", "TCP-03"})
    )
    assert run_token_cli([*base, "--name", "c"]) == 0
    assert "not bound to tables" in capsys.readouterr().err
    assert TokenStore.load(path).unbound_devices() == ["c"]


@pytest.mark.parametrize("role", ["supervisor", "read_only"])
def test_the_cli_refuses_tables_for_other_roles(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], role: str
) -> None:
    path = tmp_path / "tokens.json"
    argv = ["token", "add", "--file", str(path), "--name", "ann", "--role", role]
    assert run_token_cli([*argv, "--tables", "TCP-01"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert f"no tables for a {role} token" in err
    assert not path.exists()
    assert run_token_cli([*argv, "--tables", "TCP-01,"]) == 2  # the role is refused first
    assert f"no tables for a {role} token" in capsys.readouterr().err
    assert not path.exists()


def test_a_new_token_never_starts_with_a_dash() -> None:
    """A token passed as ``--token <token>`` must not read as an option: one in 64 URL-safe
    base64 strings starts with ``-``, so 2,000 draws would find one (all but surely)."""
    drawn = [new_token() for _ in range(2_000)]
    assert not [token for token in drawn if token.startswith("-")]
    assert len(set(drawn)) == len(drawn)
    assert all(len(token) == 43 for token in drawn)  # 32 random bytes, URL-safe base64
