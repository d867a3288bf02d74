"""Every ``jackpot`` command answers a user's mistake in one line on stderr, with exit code 2.

Issue 16: a wrong ``--config`` path or a missing events file for ``jackpot replay`` was a raw
Python traceback, a TOML error named the path twice ("…: (file): valid TOML (Invalid value…)")
and a malformed line read "line:6 … line 1 column 5". Each case here is a mistake a new user
makes; each must be one line that names the command and what to fix.
"""

from __future__ import annotations

import io
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from streams.cli import main
from streams.cli.common import Progress
from streams.cli.replay import replay_file
from tests.streams.http.support import CONFIG, ROOT

BROKEN_TOML = "title = \n"  # tomllib: Invalid value (at line 1, column 9)


@pytest.fixture
def events(tmp_path: Path) -> Path:
    """A small events file of the example floor (two rounds per table, seeded)."""
    out = tmp_path / "events.jsonl"
    argv = ["simulate", "--config", str(CONFIG), "--rounds", "2", "--seed", "3", "--out", str(out)]
    assert main(argv) == 0
    return out


def one_line_refusal(capsys: pytest.CaptureFixture[str], argv: list[str], prog: str) -> str:
    """Run ``jackpot argv``; assert exit 2 and one stderr line from ``prog``; that line."""
    capsys.readouterr()  # what a fixture printed is not this command's
    with pytest.raises(SystemExit) as exited:
        sys.exit(main(argv))
    err = capsys.readouterr().err
    assert exited.value.code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"{prog}: "), lines[0]
    assert "Traceback" not in err
    return lines[0]


def test_replay_with_a_wrong_config_path(
    capsys: pytest.CaptureFixture[str], events: Path, tmp_path: Path
) -> None:
    wrong = tmp_path / "flor.toml"
    line = one_line_refusal(
        capsys, ["replay", "--config", str(wrong), str(events)], "jackpot replay"
    )
    assert line == f"jackpot replay: {wrong}: no such file"


def test_replay_with_a_missing_events_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    missing = tmp_path / "events.jsonl"
    argv = ["replay", "--config", str(CONFIG), str(missing)]
    line = one_line_refusal(capsys, argv, "jackpot replay")
    assert line == f"jackpot replay: {missing}: no such events file"


def test_replay_with_a_directory_for_config(
    capsys: pytest.CaptureFixture[str], events: Path, tmp_path: Path
) -> None:
    argv = ["replay", "--config", str(tmp_path), str(events)]
    line = one_line_refusal(capsys, argv, "jackpot replay")
    assert line == f"jackpot replay: {tmp_path}: is a directory, not a file"


def test_a_toml_error_names_the_file_once_then_where_then_what(
    capsys: pytest.CaptureFixture[str], events: Path, tmp_path: Path
) -> None:
    broken = tmp_path / "floor.toml"
    broken.write_text(BROKEN_TOML, encoding="utf-8")
    line = one_line_refusal(
        capsys, ["replay", "--config", str(broken), str(events)], "jackpot replay"
    )
    assert line.endswith(f"{broken}: line 1, column 9: not valid TOML: invalid value"), line
    assert line.count(str(broken)) == 1, line
    assert "(file)" not in line


def test_a_config_the_rules_refuse_is_one_line(
    capsys: pytest.CaptureFixture[str], events: Path, tmp_path: Path
) -> None:
    wrong = tmp_path / "floor.toml"
    wrong.write_text(CONFIG.read_text(encoding="utf-8").replace('"14%"', '"140%"'), "utf-8")
    line = one_line_refusal(
        capsys, ["replay", "--config", str(wrong), str(events)], "jackpot replay"
    )
    assert "primary_rate" in line
    assert line.count(str(wrong)) == 1, line


def test_a_malformed_line_is_named_by_its_line_number_alone(tmp_path: Path) -> None:
    lines = tmp_path / "events.jsonl"
    lines.write_bytes(b"\n" * 5 + b'{"event_id": "x",\n')  # line 6, the parser's column 18
    rejected = replay_file(CONFIG, lines)["rejected"]
    assert rejected == [
        {
            "event_id": "line 6",
            "reason": "line 6: malformed JSON: Expecting property name enclosed in double quotes "
            "at character 19",
        }
    ]


def test_ingest_mistakes(capsys: pytest.CaptureFixture[str], events: Path, tmp_path: Path) -> None:
    db = tmp_path / "jackpot.db"
    prog = "jackpot ingest"
    wrong = tmp_path / "nope.toml"
    line = one_line_refusal(
        capsys, ["ingest", "--config", str(wrong), "--db", str(db), str(events)], prog
    )
    assert line == f"{prog}: {wrong}: no such file"
    missing = tmp_path / "none.jsonl"
    line = one_line_refusal(
        capsys, ["ingest", "--config", str(CONFIG), "--db", str(db), str(missing)], prog
    )
    assert line == f"{prog}: {missing}: no such events file"
    nodir = tmp_path / "nodir" / "jackpot.db"
    line = one_line_refusal(
        capsys, ["ingest", "--config", str(CONFIG), "--db", str(nodir), str(events)], prog
    )
    assert line == f"{prog}: {nodir.parent}: no such directory for the event log"
    line = one_line_refusal(
        capsys, ["ingest", "--config", str(CONFIG), "--db", str(events), str(events)], prog
    )
    assert "not a database" in line
    broken = tmp_path / "broken.toml"
    broken.write_text(BROKEN_TOML, encoding="utf-8")
    line = one_line_refusal(
        capsys, ["ingest", "--config", str(broken), "--db", str(db), str(events)], prog
    )
    assert "not valid TOML" in line


def test_ingest_refuses_a_config_before_it_ingests(
    capsys: pytest.CaptureFixture[str], events: Path, tmp_path: Path
) -> None:
    """The old ingest ignored a refused configuration and ingested under whatever was active."""
    broken = tmp_path / "broken.toml"
    broken.write_text(BROKEN_TOML, encoding="utf-8")
    db = tmp_path / "jackpot.db"
    one_line_refusal(
        capsys, ["ingest", "--config", str(broken), "--db", str(db), str(events)], "jackpot ingest"
    )
    assert main(["ingest", "--config", str(CONFIG), "--db", str(db), str(events)]) == 0
    assert "accepted" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (["--rounds", "-1"], "argument --rounds: a whole number of at least 0, got '-1'"),
        (["--start", "yesterday"], "argument --start: an RFC 3339 time with an offset"),
        (["--forced-hands", "2"], "--forced-hands is a share from 0 to 1"),
    ],
)
def test_simulate_mistakes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, extra: list[str], expected: str
) -> None:
    argv = ["simulate", "--config", str(CONFIG), "--out", str(tmp_path / "e.jsonl"), *extra]
    assert expected in one_line_refusal(capsys, argv, "jackpot simulate")


def test_simulate_into_a_missing_directory(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "nodir" / "e.jsonl"
    line = one_line_refusal(
        capsys, ["simulate", "--config", str(CONFIG), "--out", str(out)], "jackpot simulate"
    )
    assert line == f"jackpot simulate: {out.parent}: no such directory"


def test_serve_names_a_wrong_config_before_the_tokens(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    wrong = tmp_path / "nope.toml"
    argv = [
        "serve",
        "--config",
        str(wrong),
        "--db",
        str(tmp_path / "j.db"),
        "--tokens",
        str(tmp_path / "t.json"),
    ]
    assert (
        one_line_refusal(capsys, argv, "jackpot serve") == f"jackpot serve: {wrong}: no such file"
    )


def test_reconcile_mistakes(
    capsys: pytest.CaptureFixture[str], events: Path, tmp_path: Path
) -> None:
    line = one_line_refusal(capsys, ["reconcile", "--db", str(events)], "jackpot reconcile")
    assert "not a database" in line
    argv = ["reconcile", "--db", str(events), "--gaming-day", "tuesday"]
    assert "is not a date" in one_line_refusal(capsys, argv, "jackpot reconcile")


def test_kafka_dump_reads_the_config_before_the_broker(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    wrong = tmp_path / "nope.toml"
    argv = ["kafka", "dump", "--prefix", "x", "--config", str(wrong), "--bootstrap", "127.0.0.1:1"]
    assert (
        one_line_refusal(capsys, argv, "jackpot kafka dump")
        == f"jackpot kafka dump: {wrong}: no such file"
    )


@pytest.mark.parametrize(
    ("argv", "prog"),
    [
        (["replay"], "jackpot replay"),
        (["bogus"], "jackpot"),
        (
            ["token", "add", "--file", "t.json", "--name", "n", "--role", "boss"],
            "jackpot token add",
        ),
        (["simulate", "--config", "x.toml"], "jackpot simulate"),
    ],
)
def test_bad_arguments_are_one_line_not_the_usage(
    capsys: pytest.CaptureFixture[str], argv: list[str], prog: str
) -> None:
    line = one_line_refusal(capsys, argv, prog)
    assert line.endswith(f"(see {prog} --help)"), line


def test_the_module_entry_points_print_no_traceback(tmp_path: Path) -> None:
    """``python -m streams.cli`` and ``python -m streams.cli.serve``, as a user would run them."""
    for module, argv in (
        (
            "streams.cli",
            ["replay", "--config", str(tmp_path / "x.toml"), str(tmp_path / "e.jsonl")],
        ),
        ("streams.cli.serve", ["--config", str(tmp_path / "x.toml")]),
    ):
        run = subprocess.run(
            [sys.executable, "-m", module, *argv],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert run.returncode == 2, run.stderr
        assert len(run.stderr.strip().splitlines()) == 1, run.stderr


def test_progress_is_quiet_when_not_a_terminal() -> None:
    sink = io.StringIO()  # not a tty
    progress = Progress("jackpot replay", 1000, stream=sink)
    progress.update(500, 10)
    progress.done()
    assert sink.getvalue() == ""


def test_progress_on_a_terminal_shows_share_and_count_then_clears() -> None:
    sink = io.StringIO()
    progress = Progress("jackpot replay", 2000, stream=sink, force=True, interval=0.0)
    progress.update(500, 12_345)
    assert sink.getvalue() == "\rjackpot replay: 25% (12,345 lines)\x1b[K"
    progress.done()
    assert sink.getvalue().endswith("\r\x1b[K")


def test_replay_output_is_unchanged_by_progress(events: Path) -> None:
    """Progress goes to stderr only: the JSON document stays byte for byte the same."""
    quiet = replay_file(CONFIG, events)
    shown = replay_file(CONFIG, events, Progress("t", 1, stream=io.StringIO(), force=True))
    assert shown == quiet


def test_serve_on_a_port_in_use_is_one_line_before_anything_starts(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    tokens = tmp_path / "t.json"
    assert (
        main(["token", "add", "--file", str(tokens), "--name", "sign", "--role", "read_only"]) == 0
    )
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        argv = ["serve", "--config", str(CONFIG), "--db", str(tmp_path / "j.db")]
        argv += ["--tokens", str(tokens), "--port", str(port)]
        line = one_line_refusal(capsys, argv, "jackpot serve")
    assert line.startswith(f"jackpot serve: cannot listen on 127.0.0.1:{port}: "), line
    assert not (tmp_path / "j.db").exists()  # the log was not opened


def test_kafka_ingest_names_a_missing_file_before_asking_the_broker(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    missing = tmp_path / "e.jsonl"
    argv = ["kafka", "ingest", "--prefix", "x", "--bootstrap", "127.0.0.1:1", str(missing)]
    line = one_line_refusal(capsys, argv, "jackpot kafka ingest")
    assert line == f"jackpot kafka ingest: {missing}: no such events file"


def test_ingest_dead_letters_a_malformed_line_by_its_number(tmp_path: Path) -> None:
    from streams.adapters.sqlite import SqliteLog  # noqa: PLC0415
    from streams.codec import decode  # noqa: PLC0415

    lines = tmp_path / "events.jsonl"
    lines.write_bytes(b"\n\n" + b'{"event_id": "x",\n')  # line 3
    db = tmp_path / "jackpot.db"
    assert main(["ingest", "--config", str(CONFIG), "--db", str(db), str(lines)]) == 0
    log = SqliteLog(db)
    try:
        reasons = [getattr(decode(r.payload), "reason", "") for r in log.read()]
    finally:
        log.close()
    assert (
        "line 3: malformed JSON: Expecting property name enclosed in double quotes at character 19"
        in reasons
    )


def test_serve_names_a_broken_config_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    broken = tmp_path / "floor.toml"
    broken.write_text(BROKEN_TOML, encoding="utf-8")
    tokens = tmp_path / "t.json"
    assert (
        main(["token", "add", "--file", str(tokens), "--name", "sign", "--role", "read_only"]) == 0
    )
    argv = [
        "serve",
        "--config",
        str(broken),
        "--db",
        str(tmp_path / "j.db"),
        "--tokens",
        str(tokens),
    ]
    argv += ["--port", "0"]
    line = one_line_refusal(capsys, argv, "jackpot serve")
    assert line.count(str(broken)) == 1, line
    assert line.endswith("line 1, column 9: not valid TOML: invalid value"), line
