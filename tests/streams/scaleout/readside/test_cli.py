"""``jackpot kafka readside``: a mistake in the options is one line and exit code 2, before any
broker is asked (the broker's own refusals are in tests/integration/test_kafka_readside.py)."""

from __future__ import annotations

import pytest

from streams.cli import main


@pytest.mark.parametrize(
    ("options", "told"),
    [
        (["--day-starts", "25:00"], "day start '25:00' is not a time like 06:00"),
        (["--utc-offset=-5"], "UTC offset '-5' is not like -05:00"),
        (["--low", "a quarter"], "--low 'a quarter' is not a number like 0.25 or 1/4"),
        (["--low", "2"], "need 0 <= --low < 1 < --high"),
        (["--history", "2", "--min-history", "3"], "1 <= --min-history <= --history"),
        (["--tick", "0"], "--tick must be above 0"),
        (["--keep-hours", "7"], "need --keep-hours >= --history + 2"),
        (["--history", "1", "--min-history", "1", "--keep-days", "1"], "--keep-days >= 2"),
    ],
)
def test_a_mistake_is_one_line_and_exit_2(
    options: list[str], told: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["kafka", "readside", "--prefix", "floor1", "--bootstrap", "127.0.0.1:1", *options])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("jackpot kafka readside: ")
    assert told in err
    assert err.count("\n") == 1
