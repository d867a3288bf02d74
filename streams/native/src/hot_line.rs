//! A hot line's log payload, written from the line.
//!
//! `payload(line)` is given a line the door has already vouched for (`streams.door.fast_decode.
//! try_decode_line` gave a round opened, a wager, the lock or a decision) and writes the bytes
//! `streams.codec.encode` writes for its table event: the kind's fields with their keys sorted,
//! `"schema_version":1` always, a wager's `"on"` defaulted to `"own"`, a decision's `"amount"`
//! and `"discards"` left out when absent or empty. Values are copied as the line spells them,
//! which is what the writer writes only for the plainest spellings: so anything else (a
//! backslash, a byte outside printable ASCII, an integer not written as digits without a leading
//! zero, `true`/`false`/`null`, a nested object, a key the kind does not have or has twice, a
//! field missing) gives `None`, and the caller writes the payload in Python as before. The
//! contract's checks stay the door's: this never vouches for a line.
//!
//! `tests/streams/native/test_payload.py` requires, for any line the door vouches for (odd and
//! damaged ones from `tests/strategies_lines`), either `None` or the Python writer's bytes.

pub(crate) use crate::kinds::{Check, Fields, DECISION, KINDS, LOCKED, OPENED, WAGER};

/// A JSON value as the line spells it.
pub(crate) enum Val<'a> {
    /// A string's inner bytes (printable ASCII, no backslash).
    Str(&'a [u8]),
    /// A non-negative integer in its shortest spelling.
    Int(&'a [u8]),
    /// An array of strings' inner bytes.
    Arr(Vec<&'a [u8]>),
}

#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Ty {
    Str,
    Int,
    Arr,
}

/// How a field is written when the line leaves it out.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Absent {
    Required,
    Omitted,
    Own,
    SchemaVersion,
}

/// More keys than any kind has: the line is not one of them.
pub(crate) const MAX_KEYS: usize = 16;

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The high bit of each zero byte of ``word`` (others may be set too, but only above a zero
/// byte: the lowest set bit is the first zero byte's).
#[inline]
fn zero_byte(word: u64) -> u64 {
    word.wrapping_sub(ONES) & !word & HIGHS
}

/// How many leading bytes of ``rest`` are plain string bytes (printable ASCII, 0x20-0x7e, other
/// than the quote and the backslash), found eight at a time: up to the first other byte, or up
/// to the last whole word (the caller reads a shorter tail byte by byte). Each test below flags
/// exactly the first such byte of a word as its lowest set bit (a borrow only runs upwards).
#[inline]
pub(crate) fn plain_run(rest: &[u8]) -> usize {
    let mut at = 0;
    while let Some(chunk) = rest.get(at..at + 8) {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        let special = zero_byte(word ^ (ONES * u64::from(b'"')))
            | zero_byte(word ^ (ONES * u64::from(b'\\')))
            | zero_byte(word ^ (ONES * 0x7f))
            | word.wrapping_sub(ONES * 0x20) & !word & HIGHS // a byte below 0x20
            | word & HIGHS; // a byte above 0x7f
        if special != 0 {
            return at + (special.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    at
}

struct Reader<'a> {
    line: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn skip_ws(&mut self) {
        while self.at < self.line.len() && matches!(self.line[self.at], b' ' | b'\t' | b'\n' | b'\r')
        {
            self.at += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        self.skip_ws();
        if self.line.get(self.at) == Some(&byte) {
            self.at += 1;
            Some(())
        } else {
            None
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.line.get(self.at).copied()
    }

    /// A string's inner bytes: printable ASCII up to the closing quote, no backslash. Eight
    /// bytes are looked at together (`plain_run`); the byte that ends a run one at a time.
    fn string(&mut self) -> Option<&'a [u8]> {
        self.eat(b'"')?;
        let start = self.at;
        loop {
            self.at += plain_run(&self.line[self.at..]);
            let byte = *self.line.get(self.at)?;
            self.at += 1;
            match byte {
                b'"' => return Some(&self.line[start..self.at - 1]),
                b'\\' | 0..=0x1f | 0x7f..=0xff => return None,
                _ => {}
            }
        }
    }

    /// A non-negative integer written as the writer writes it: `0` or digits without a leading
    /// zero, followed by no fraction or exponent.
    fn integer(&mut self) -> Option<&'a [u8]> {
        let start = self.at;
        while self.at < self.line.len() && self.line[self.at].is_ascii_digit() {
            self.at += 1;
        }
        let digits = &self.line[start..self.at];
        let next = self.line.get(self.at).copied();
        let shortest = !digits.is_empty() && (digits.len() == 1 || digits[0] != b'0');
        if !shortest || matches!(next, Some(b'.' | b'e' | b'E')) {
            return None;
        }
        Some(digits)
    }

    fn array(&mut self) -> Option<Vec<&'a [u8]>> {
        self.eat(b'[')?;
        let mut items = Vec::new();
        if self.peek()? == b']' {
            self.at += 1;
            return Some(items);
        }
        loop {
            items.push(self.string()?);
            match self.peek()? {
                b',' => self.at += 1,
                b']' => {
                    self.at += 1;
                    return Some(items);
                }
                _ => return None,
            }
        }
    }

    fn value(&mut self) -> Option<Val<'a>> {
        match self.peek()? {
            b'"' => self.string().map(Val::Str),
            b'[' => self.array().map(Val::Arr),
            b'0'..=b'9' => self.integer().map(Val::Int),
            _ => None,
        }
    }

    /// The object's members, in the line's order; None unless the line is one flat object.
    fn object(&mut self) -> Option<Vec<(&'a [u8], Val<'a>)>> {
        self.eat(b'{')?;
        let mut members = Vec::with_capacity(MAX_KEYS);
        if self.peek()? == b'}' {
            return None;
        }
        loop {
            let key = self.string()?;
            self.eat(b':')?;
            members.push((key, self.value()?));
            if members.len() > MAX_KEYS {
                return None;
            }
            match self.peek()? {
                b',' => self.at += 1,
                b'}' => {
                    self.at += 1;
                    self.skip_ws();
                    return (self.at == self.line.len()).then_some(members);
                }
                _ => return None,
            }
        }
    }
}

/// ``name == key``, the length and first byte compared before the bytes (most keys differ there,
/// and the slices' ``==`` calls memcmp).
#[inline]
fn same_key(name: &[u8], key: &[u8]) -> bool {
    name.len() == key.len() && name.first() == key.first() && name == key
}

/// The index of ``key`` among ``fields`` (whose keys differ), looked for from ``from`` on and
/// then before it: the same answer as a scan from the start, but a line written with its keys
/// sorted (as the writer and most tables' clients write them) finds each key at the first or
/// second try instead of after a scan of the kind's fields.
#[inline]
fn slot_of(fields: Fields, key: &[u8], from: usize) -> Option<usize> {
    let from = from.min(fields.len());
    let (before, after) = fields.split_at(from);
    let find = |part: &[(&[u8], Ty, Absent, Check)]| {
        part.iter().position(|(name, ..)| same_key(name, key))
    };
    find(after).map(|at| from + at).or_else(|| find(before))
}

/// The line's kind: its index in `KINDS` and its fields.
pub(crate) fn kind_of(members: &[(&[u8], Val<'_>)]) -> Option<(usize, Fields)> {
    let kind = members.iter().find_map(|(key, value)| match (key, value) {
        (&b"type", Val::Str(kind)) => Some(*kind),
        _ => None,
    })?;
    match kind {
        b"round_opened" => Some((0, OPENED)),
        b"wager_placed" => Some((1, WAGER)),
        b"wagers_locked" => Some((2, LOCKED)),
        b"decision" => Some((3, DECISION)),
        _ => None,
    }
}

/// Where `write_into` writes a payload: a `Vec` (`write_payload`, and the hot decoder's kept
/// buffer, copied into its `bytes`), or an exact-sized buffer (`Fill`: `tail::framed`'s).
pub(crate) trait Sink {
    fn put(&mut self, byte: u8);
    fn put_all(&mut self, bytes: &[u8]);
    /// Whether nothing but the opening brace is written yet (no comma before the first key).
    fn at_start(&self) -> bool;
}

impl Sink for Vec<u8> {
    #[inline]
    fn put(&mut self, byte: u8) {
        self.push(byte);
    }
    #[inline]
    fn put_all(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
    #[inline]
    fn at_start(&self) -> bool {
        self.len() <= 1
    }
}

/// A buffer of an exact size (one summed up front: `tail::framed`), filled from
/// the start. A write past its end panics (a bounds check: the caller's `bytes` is then refused, never short or overrun).
pub(crate) struct Fill<'a> {
    pub buffer: &'a mut [u8],
    pub at: usize,
}

impl Sink for Fill<'_> {
    #[inline]
    fn put(&mut self, byte: u8) {
        self.buffer[self.at] = byte;
        self.at += 1;
    }
    #[inline]
    fn put_all(&mut self, bytes: &[u8]) {
        self.buffer[self.at..self.at + bytes.len()].copy_from_slice(bytes);
        self.at += bytes.len();
    }
    #[inline]
    fn at_start(&self) -> bool {
        self.at <= 1
    }
}

fn write_value<S: Sink>(out: &mut S, value: &Val<'_>) {
    match value {
        Val::Str(text) => {
            out.put(b'"');
            out.put_all(text);
            out.put(b'"');
        }
        Val::Int(digits) => out.put_all(digits),
        Val::Arr(items) => {
            out.put(b'[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.put(b',');
                }
                out.put(b'"');
                out.put_all(item);
                out.put(b'"');
            }
            out.put(b']');
        }
    }
}

fn write_key<S: Sink>(out: &mut S, key: &[u8]) {
    if !out.at_start() {
        out.put(b',');
    }
    out.put(b'"');
    out.put_all(key);
    out.put_all(b"\":");
}

/// A line's members (in the line's order), its kind's fields and, for each field, the index of
/// the member that gives it: None unless the line is one flat object of a hot kind whose every
/// member is one of the kind's fields, with its type, once, and every required field is there.
pub(crate) fn members_of(line: &[u8]) -> Option<Members<'_>> {
    let members = Reader { line, at: 0 }.object()?;
    let (kind, fields) = kind_of(&members)?;
    let mut found: [Option<usize>; MAX_KEYS] = [None; MAX_KEYS];
    let mut next = 0; // the field after the last one found: where a sorted line's key is
    for (index, (key, value)) in members.iter().enumerate() {
        let slot = slot_of(fields, key, next)?;
        next = slot + 1;
        let typed = matches!(
            (fields[slot].1, value),
            (Ty::Str, Val::Str(_)) | (Ty::Int, Val::Int(_)) | (Ty::Arr, Val::Arr(_))
        );
        if !typed || found[slot].replace(index).is_some() {
            return None;
        }
    }
    let complete = fields
        .iter()
        .zip(found.iter())
        .all(|((.., absent, _), at)| at.is_some() || *absent != Absent::Required);
    complete.then_some(Members { members, kind, fields, found })
}

/// A hot line read by `members_of`.
pub(crate) struct Members<'a> {
    pub members: Vec<(&'a [u8], Val<'a>)>,
    /// The kind's index in `KINDS`.
    pub kind: usize,
    pub fields: Fields,
    pub found: [Option<usize>; MAX_KEYS],
}

impl Members<'_> {
    /// The value of the kind's field ``slot``, if the line gives it.
    pub fn value(&self, slot: usize) -> Option<&Val<'_>> {
        self.found[slot].map(|index| &self.members[index].1)
    }
}

/// The payload of a vouched hot line, or None (see the module's docstring).
pub fn write_payload(line: &[u8]) -> Option<Vec<u8>> {
    if let Some((_, cut)) = crate::hot_shape::shaped(line) {
        let mut out = vec![0; cut.size(line.len())];
        cut.fill(line, &mut out);
        return Some(out);
    }
    members_of(line).map(|read| write(&read, line.len()))
}

/// The payload of a line `members_of` read.
pub(crate) fn write(read: &Members<'_>, size: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(size + 24);
    write_into(read, &mut out);
    out
}

/// `write`'s bytes into ``out``.
pub(crate) fn write_into<S: Sink>(read: &Members<'_>, out: &mut S) {
    out.put(b'{');
    for (slot, (name, _, absent, _)) in read.fields.iter().enumerate() {
        if *absent == Absent::SchemaVersion {
            write_key(out, name);
            out.put(b'1');
            continue;
        }
        match (read.value(slot), absent) {
            (Some(value), _) => {
                if matches!(value, Val::Arr(items) if items.is_empty()) {
                    continue; // no discards: the writer leaves the field out
                }
                write_key(out, name);
                write_value(out, value);
            }
            (None, Absent::Own) => {
                write_key(out, name);
                out.put_all(b"\"own\"");
            }
            (None, _) => {} // omitted (`members_of` found every required field)
        }
    }
    out.put(b'}');
}
