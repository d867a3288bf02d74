//! The contract's checks of a hot line's values that `hot_decode.rs` makes natively: what
//! `streams.door.contract_structs`' `Meta` and `streams.door.struct_checks` check (the ids',
//! names' and amounts' patterns, the instant, the integers' ranges), or less: a value refused
//! here only sends its line to the door. `tests/streams/native/test_hot_decode.py` holds them to
//! the door's answers, at the edges of each.

use crate::hot_line::Check;

const MAX_SEQ: u64 = 9_007_199_254_740_991;

/// An integer field's value within its range (the digits are the shortest spelling).
pub(crate) fn integer(check: Check, digits: &[u8]) -> Option<u64> {
    if digits.len() > 16 {
        return None;
    }
    let number = digits.iter().fold(0u64, |sum, digit| sum * 10 + u64::from(digit - b'0'));
    let within = match check {
        Check::Seq => number <= MAX_SEQ,
        Check::Version => number == 1 || number == 2,
        Check::Seat => (1..=12).contains(&number),
        _ => false,
    };
    within.then_some(number)
}

/// ``[!-~]{1,128}`` (the reader passed only printable ASCII: no space left to refuse).
pub(crate) fn event_id_ok(text: &[u8]) -> bool {
    (1..=128).contains(&text.len()) && !text.contains(&b' ')
}

/// ``[A-Za-z0-9._-]{1,64}``.
pub(crate) fn ident_ok(text: &[u8]) -> bool {
    (1..=64).contains(&text.len())
        && text
            .iter()
            .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'_' | b'-'))
}

/// ``[a-z][a-z0-9_]{0,39}``.
pub(crate) fn wager_name_ok(text: &[u8]) -> bool {
    matches!(text.first(), Some(b'a'..=b'z'))
        && text.len() <= 40
        && text.iter().all(|byte| matches!(byte, b'a'..=b'z' | b'0'..=b'9' | b'_'))
}

/// ``0\.(0[1-9]|[1-9][0-9])|[1-9][0-9]{0,8}\.[0-9]{2}``.
pub(crate) fn amount_ok(text: &[u8]) -> bool {
    let size = text.len();
    if !(4..=12).contains(&size) || text[size - 3] != b'.' {
        return false;
    }
    let (whole, cents) = (&text[..size - 3], &text[size - 2..]);
    if !cents.iter().all(u8::is_ascii_digit) || !whole.iter().all(u8::is_ascii_digit) {
        return false;
    }
    if whole == b"0" {
        return cents != b"00";
    }
    whole[0] != b'0'
}

fn number(text: &[u8]) -> Option<u32> {
    text.iter().try_fold(0u32, |sum, byte| {
        byte.is_ascii_digit().then(|| sum * 10 + u32::from(byte - b'0'))
    })
}

/// ``YYYY-MM-DDTHH:MM:SS[.f{1,9}](Z|+HH:MM|-HH:MM)``, at most 40 bytes, a real calendar day and
/// time of day (hours 0-23), an offset within a day (hours 0-23, minutes 0-59): what
/// `struct_checks._instant_ok` accepts, or less (an hour of 24, if ``fromisoformat`` took it).
pub(crate) fn instant_ok(text: &[u8]) -> bool {
    let size = text.len();
    if !(20..=40).contains(&size) || text[4] != b'-' || text[7] != b'-' || text[10] != b'T' {
        return false;
    }
    if text[13] != b':' || text[16] != b':' {
        return false;
    }
    let parts =
        [&text[0..4], &text[5..7], &text[8..10], &text[11..13], &text[14..16], &text[17..19]];
    let [Some(year), Some(month), Some(day), Some(hour), Some(minute), Some(second)] =
        parts.map(number)
    else {
        return false;
    };
    if year == 0 || !(1..=12).contains(&month) || day == 0 || day > days_in(year, month) {
        return false;
    }
    if hour > 23 || minute > 59 || second > 59 {
        return false;
    }
    let end = if text[size - 1] == b'Z' {
        size - 1
    } else {
        let offset = &text[size - 6..];
        let signed = matches!(offset[0], b'+' | b'-') && offset[3] == b':';
        match (signed, number(&offset[1..3]), number(&offset[4..6])) {
            (true, Some(hours), Some(minutes))
                if hours <= 23 && minutes <= 59 && size - 6 >= 19 =>
            {
                size - 6
            }
            _ => return false,
        }
    };
    if end == 19 {
        return true;
    }
    let fraction = &text[20..end.max(20)];
    text[19] == b'.' && (1..=9).contains(&fraction.len()) && fraction.iter().all(u8::is_ascii_digit)
}

fn days_in(year: u32, month: u32) -> u32 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}
