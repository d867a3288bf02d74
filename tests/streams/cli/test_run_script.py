"""Issue 15, finding 9: `make run` (scripts/run.sh) puts no token on a process command line,
where `ps` shows it to every user of the machine."""

from __future__ import annotations

import re
from pathlib import Path

RUN = Path(__file__).resolve().parents[3] / "scripts" / "run.sh"


def _commands() -> list[str]:
    """The script's lines that run something (comments and echo lines left out), joined where a
    line ends with a backslash."""
    text = RUN.read_text(encoding="utf-8").replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines()]
    return [line for line in lines if line and not line.startswith(("#", "echo "))]


def test_no_token_is_passed_as_an_argument() -> None:
    commands = _commands()
    assert commands
    assert not [c for c in commands if re.search(r"--token[\s=]", c)]
    # Only the line writing the header file names a token, and it is a shell builtin (no process).
    bearer = [c for c in commands if re.search(r"Bearer \$", c)]
    assert bearer == ['(umask 077 && echo "Authorization: Bearer $READER" > var/reader.header)']
    assert any(c.startswith('JACKPOT_TOKEN="$DEVICE" $JACKPOT simulate') for c in commands)
