//! A hot line in the writer's own shape, read as that shape: `shaped(line)`.
//!
//! The simulator, the tables' clients and `streams.sim.floor.write_jsonl` write a line compact
//! with its keys sorted, which is the order `kinds.rs` lists each kind's fields in. Such a line
//! is read here field by field against its kind's list: each key is compared with the one
//! expected next (a missing optional field is skipped), each value read by the field's JSON
//! type, with no whitespace, no member the kind lacks, no generic search for a key's field
//! (`hot_line::members_of`'s `Reader`, `kind_of` and `slot_of`). What it gives is exactly what
//! `members_of` gives for the same line (the same kind, members in the line's order, the same
//! field of each), or None, and then the caller asks `members_of`: the shape is a fast way in,
//! never a wider one.
//!
//! The payload of such a line is the line itself with `"schema_version":1` put in its place
//! (inserted where the line leaves it out, or written over the line's own version): the writer
//! writes the same fields in the same order with the same spellings (`hot_line::write_into`).
//! So two cases `write_into` writes otherwise are left to `members_of`: a wager without its
//! ``"on"`` (the writer writes `"own"`) and an empty ``"discards"`` (the writer leaves it out).
//! `tests/streams/native/test_payload.py` and `test_hot_decode.py` hold both readings to the
//! Python writer and the door.

use crate::hot_line::{plain_run, Absent, Fields, Members, Ty, Val, KINDS, MAX_KEYS};

/// Where a shaped line's payload differs from the line: ``line[start..end]`` becomes
/// `"schema_version":1`, followed by a comma when the line leaves the version out.
#[derive(Clone, Copy)]
pub(crate) struct Cut {
    pub start: usize,
    pub end: usize,
    pub inserted: bool,
}

const VERSION: &[u8] = b"\"schema_version\":1";

impl Cut {
    /// The payload's size for a line of ``size`` bytes.
    pub(crate) fn size(&self, size: usize) -> usize {
        size - (self.end - self.start) + VERSION.len() + usize::from(self.inserted)
    }

    /// The payload of ``line`` into ``out``, which is exactly `size(line.len())` bytes long.
    pub(crate) fn fill(&self, line: &[u8], out: &mut [u8]) {
        let (head, tail) = (&line[..self.start], &line[self.end..]);
        out[..head.len()].copy_from_slice(head);
        let mut at = head.len();
        out[at..at + VERSION.len()].copy_from_slice(VERSION);
        at += VERSION.len();
        if self.inserted {
            out[at] = b',';
            at += 1;
        }
        out[at..].copy_from_slice(tail);
    }
}

/// The hot kinds' ``type`` tags, in `KINDS`' order.
const TAGS: [&[u8]; 4] = [b"round_opened", b"wager_placed", b"wagers_locked", b"decision"];

/// The kinds in the order tried: wagers are most lines, then decisions (each fails at its first
/// key when the line is another kind).
const TRIED: [usize; 4] = [1, 3, 0, 2];

/// A shaped hot line's members (as `members_of` reads it) and its payload's `Cut`, or None.
/// A kind is read only if the line's first key is its first field's (nothing is allocated for
/// the kinds the line is not).
pub(crate) fn shaped(line: &[u8]) -> Option<(Members<'_>, Cut)> {
    if line.first() != Some(&b'{') {
        return None;
    }
    TRIED.iter().find_map(|&kind| match key_at(line, 1, KINDS[kind][0].0) {
        true => read_kind(line, kind),
        false => None,
    })
}

/// The line read as kind ``kind``'s fields in order.
fn read_kind(line: &[u8], kind: usize) -> Option<(Members<'_>, Cut)> {
    let fields: Fields = KINDS[kind];
    let mut members = Vec::with_capacity(fields.len());
    let mut found: [Option<usize>; MAX_KEYS] = [None; MAX_KEYS];
    let mut cut = None;
    let mut at = 1;
    for (slot, &(name, ty, absent, _)) in fields.iter().enumerate() {
        let start = if members.is_empty() { at } else { at + 1 };
        if !members.is_empty() && line.get(at) != Some(&b',') || !key_at(line, start, name) {
            match absent {
                Absent::Omitted => continue,
                Absent::SchemaVersion => {
                    cut = Some(Cut { start, end: start, inserted: true });
                    continue;
                }
                Absent::Required | Absent::Own => return None,
            }
        }
        let (value, end) = value_at(line, start + name.len() + 3, ty)?;
        if absent == Absent::SchemaVersion {
            cut = Some(Cut { start, end, inserted: false });
        }
        found[slot] = Some(members.len());
        members.push((&line[start + 1..start + 1 + name.len()], value));
        at = end;
    }
    if line.get(at) != Some(&b'}') || at + 1 != line.len() {
        return None;
    }
    let tag = fields.iter().position(|field| field.0 == b"type")?;
    match found[tag].map(|index| &members[index].1) {
        Some(Val::Str(text)) if *text == TAGS[kind] => {}
        _ => return None,
    }
    Some((Members { members, kind, fields, found }, cut?))
}

/// Whether ``line[at..]`` starts with ``"name":``.
#[inline]
fn key_at(line: &[u8], at: usize, name: &[u8]) -> bool {
    let end = at + name.len() + 3;
    end <= line.len()
        && line[at] == b'"'
        && same_short(&line[at + 1..end - 2], name)
        && line[end - 2] == b'"'
        && line[end - 1] == b':'
}

/// ``text == name`` for texts of the same length, compared as two overlapping words of 8 or 4
/// bytes (a field's name is at most 16 bytes) instead of a call to memcmp for each key.
#[inline]
fn same_short(text: &[u8], name: &[u8]) -> bool {
    let size = name.len();
    if text.len() != size || size > 16 {
        return text == name;
    }
    let word8 = |bytes: &[u8], at: usize| {
        u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or([0; 8]))
    };
    let word4 = |bytes: &[u8], at: usize| {
        u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap_or([0; 4]))
    };
    match size {
        8.. => word8(text, 0) == word8(name, 0) && word8(text, size - 8) == word8(name, size - 8),
        4.. => word4(text, 0) == word4(name, 0) && word4(text, size - 4) == word4(name, size - 4),
        _ => text.iter().zip(name).all(|(a, b)| a == b),
    }
}

/// The value of type ``ty`` at ``at`` and where it ends, which must be a `,` or the `}`.
fn value_at(line: &[u8], at: usize, ty: Ty) -> Option<(Val<'_>, usize)> {
    let (value, end) = match ty {
        Ty::Str => string_at(line, at).map(|(text, end)| (Val::Str(text), end))?,
        Ty::Int => integer_at(line, at)?,
        Ty::Arr => array_at(line, at)?,
    };
    matches!(line.get(end), Some(b',' | b'}')).then_some((value, end))
}

/// A string's inner bytes (printable ASCII, no backslash) and the index after its closing quote.
fn string_at(line: &[u8], at: usize) -> Option<(&[u8], usize)> {
    if line.get(at) != Some(&b'"') {
        return None;
    }
    let start = at + 1;
    let end = start + plain_run(&line[start..]);
    let mut end = end;
    loop {
        match *line.get(end)? {
            b'"' => return Some((&line[start..end], end + 1)),
            0x20..=0x7e if line[end] != b'\\' => end += 1,
            _ => return None,
        }
    }
}

/// Digits in their shortest spelling (`0`, or no leading zero).
fn integer_at(line: &[u8], at: usize) -> Option<(Val<'_>, usize)> {
    let digits = line.get(at..)?.iter().take_while(|byte| byte.is_ascii_digit()).count();
    let text = &line[at..at + digits];
    let shortest = digits == 1 || digits > 1 && text[0] != b'0';
    shortest.then_some((Val::Int(text), at + digits))
}

/// A compact, non-empty array of strings (an empty one is written otherwise: the module's
/// docstring).
fn array_at(line: &[u8], at: usize) -> Option<(Val<'_>, usize)> {
    if line.get(at) != Some(&b'[') {
        return None;
    }
    let mut items = Vec::new();
    let mut at = at + 1;
    loop {
        let (item, end) = string_at(line, at)?;
        items.push(item);
        match *line.get(end)? {
            b',' => at = end + 1,
            b']' => return Some((Val::Arr(items), end + 1)),
            _ => return None,
        }
    }
}
