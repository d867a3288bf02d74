"""The edge of mystery levels: the secure draw, the sealing key and the seal (`controller.mystery`).

Where the trigger is kept, and why. The drawn trigger and salt go into the logged `MysteryArmed`
event sealed (encrypted and authenticated) under a key read from a secret file kept apart from
the database (``--mystery-key``, created 0600 on first use). Keeping the seal in the log, rather
than in a second store keyed by the commitment, means the log alone stays the one durable record:
the arming is appended atomically with the batch that needs it, so a restart or a SIGKILL finds
either the arming with its seal or no arming at all (and draws afresh: nobody saw the first draw),
never a commitment whose trigger was lost. Anyone who can read the log (the read_only and
table_device roles through the read APIs, the surveillance pages, the signs, the metrics, even
a copy of the database file) sees only the commitment and ciphertext; only the process holding
the key can unseal, and it keeps the trigger in memory only (`MeterState.mystery_trigger_cents`,
which snapshots blank).

The seal is HMAC-SHA256 in counter mode with an HMAC-SHA256 tag (encrypt-then-MAC), from the
standard library; its nonce is the commitment, unique per arming because the salt is 128 random
bits, so the same arming always seals to the same bytes.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
from collections.abc import Callable
from pathlib import Path

from controller.config.floor import MeterDef, load_floor_config
from controller.model.commands import ArmMystery
from controller.model.errors import ConfigError, RuleViolation
from controller.mystery import commitment_of

KEY_BYTES = 32
_VERSION = "hs1"


def load_key(path: Path) -> bytes:
    """The sealing key in ``path`` (64 hex digits); a new random key, written 0600, if absent."""
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(secrets.token_hex(KEY_BYTES) + "\n")
    text = path.read_text(encoding="ascii").strip()
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) != KEY_BYTES:
        msg = f"{path}: a mystery sealing key is {KEY_BYTES * 2} hex digits"
        raise RuleViolation(msg)
    return key


def key_for(db: Path, config_text: str, given: Path | None) -> bytes | None:
    """The sealing key a command should run with: from ``given`` (``--mystery-key``), else from
    ``JACKPOT_MYSTERY_KEY_FILE``, else ``<db>.mystery-key`` beside the log (created 0600 on first
    use; put it on another volume in production). None when no file is named or exists and the
    configuration has no mystery level: a floor without one never needs a key."""
    named = given or (Path(env) if (env := os.environ.get("JACKPOT_MYSTERY_KEY_FILE")) else None)
    path = named or db.with_name(db.name + ".mystery-key")
    if named is None and not path.exists() and not _has_mystery(config_text):
        return None
    return load_key(path)


def _has_mystery(config_text: str) -> bool:
    try:
        config = load_floor_config(config_text, "floor")
    except ConfigError:  # the engine refuses it with the reason; no key is needed for that
        return False
    return any(meter.mystery for meter in config.meters.values())


def _stream(key: bytes, commitment: str, size: int) -> bytes:
    nonce = b"stream:" + commitment.encode()
    blocks = (
        hmac.new(key, nonce + counter.to_bytes(4), hashlib.sha256).digest()
        for counter in range((size + 31) // 32)
    )
    return b"".join(blocks)[:size]


def _tag(key: bytes, commitment: str, body: bytes) -> str:
    return hmac.new(key, b"tag:" + commitment.encode() + body, hashlib.sha256).hexdigest()


def seal(key: bytes, trigger_cents: int, salt: str) -> str:
    """The trigger and salt, encrypted and authenticated under ``key``."""
    commitment = commitment_of(trigger_cents, salt)
    plain = f"{trigger_cents}:{salt}".encode()
    body = bytes(a ^ b for a, b in zip(plain, _stream(key, commitment, len(plain)), strict=True))
    return f"{_VERSION}.{base64.b64encode(body).decode()}.{_tag(key, commitment, body)}"


def unseal(key: bytes, commitment: str, sealed: str) -> tuple[int, str]:
    """(trigger, salt) from a seal; RuleViolation if the key is wrong or the seal was altered."""
    try:
        version, text, tag = sealed.split(".")
        body = base64.b64decode(text, validate=True)
    except ValueError as exc:
        msg = "a mystery seal that is not one"
        raise RuleViolation(msg) from exc
    if version != _VERSION or not hmac.compare_digest(tag, _tag(key, commitment, body)):
        msg = "a mystery seal that this key did not make (wrong key, or the log was altered)"
        raise RuleViolation(msg)
    plain = bytes(a ^ b for a, b in zip(body, _stream(key, commitment, len(body)), strict=True))
    trigger, salt = plain.decode().split(":")
    return int(trigger), salt


def draw(
    definition: MeterDef,
    key: bytes,
    *,
    occurred_at: str,
    command_id: str,
    randbelow: Callable[[int], int] = secrets.randbelow,
    token_hex: Callable[[int], str] = secrets.token_hex,
) -> ArmMystery:
    """A trigger uniform in whole cents in [reset, must_hit_by) from the OS's secure source (the
    test of uniformity passes a seeded ``randbelow`` so it cannot flake), salted and sealed."""
    low = definition.progressive.reset_cents
    trigger = low + randbelow(definition.progressive.must_hit_by_cents - low)
    salt = token_hex(16)
    return ArmMystery(
        command_id=command_id,
        meter_id=definition.meter_id,
        trigger_cents=trigger,
        salt=salt,
        sealed=seal(key, trigger, salt),
        occurred_at=occurred_at,
    )
