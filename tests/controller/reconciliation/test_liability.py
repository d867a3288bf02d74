"""The liability line of one level (N.J.A.C. 13:69D-1.52), worked by hand on the stream of
`test_report` (one Five Card Hand Bonus meter, sub-units; 1 cent = 1,000,000):

    opening liability                       0
    + contributions  primary 63,000,000, reserve 24,000,000
    + seeds          1,000,000,000,000
    - awards paid    (100,004 + 900,038) cents = 1,000,042,000,000
    - voids          21,000,000 + 8,000,000 = 29,000,000
    + corrections    5,000,000
    = closing        21,000,000  (meter 21,000,000, reserve 0, overflow 0)
"""

from __future__ import annotations

from dataclasses import replace

from controller.reconciliation.liability import (
    LIABILITY_HEADER,
    liability_document,
    liability_line,
    liability_rows,
)
from tests.controller.reconciliation.test_report import dealer_royal, meter, run, stream


def test_the_worked_stream_balances() -> None:
    line = liability_line("2026-11-29", meter(run(stream())))
    assert (line.contributions_primary_sub, line.contributions_reserve_sub) == (
        63_000_000,
        24_000_000,
    )
    assert line.seeds_sub == 1_000_000_000_000
    assert line.awards_paid_sub == 1_000_042_000_000
    assert line.voids_sub == 29_000_000
    assert line.corrections_sub == 5_000_000
    assert (line.transfers_in_sub, line.transfers_out_sub) == (0, 0)
    assert line.expected_closing_sub == 21_000_000
    assert line.difference_sub == 0
    assert line.balanced


def test_a_hit_that_leaves_a_cent_too_many_is_a_difference_of_one_cent() -> None:
    items = stream()
    items[11] = replace(dealer_royal(7), meter_after_sub=17_000_000)  # 16,000,000 is right
    line = liability_line("2026-11-29", meter(run(items)))
    assert line.difference_sub == 1_000_000
    assert not line.balanced


def test_csv_and_json_carry_the_line_exactly() -> None:
    line = liability_line("2026-11-29", meter(run(stream())))
    (row,) = liability_rows([line])
    assert len(row) == len(LIABILITY_HEADER)
    named = dict(zip(LIABILITY_HEADER, row, strict=True))
    assert named["closing_liability"] == "0.21000000"
    assert named["awards_paid"] == "10000.42000000"
    assert named["balanced"] == "yes"
    document = liability_document([line])
    assert document["balanced"] is True
