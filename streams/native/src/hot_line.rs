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

/// A JSON value as the line spells it.
enum Val<'a> {
    /// A string's inner bytes (printable ASCII, no backslash).
    Str(&'a [u8]),
    /// A non-negative integer in its shortest spelling.
    Int(&'a [u8]),
    /// An array of strings' inner bytes.
    Arr(Vec<&'a [u8]>),
}

#[derive(Clone, Copy, PartialEq)]
enum Ty {
    Str,
    Int,
    Arr,
}

/// How a field is written when the line leaves it out.
#[derive(Clone, Copy, PartialEq)]
enum Absent {
    Required,
    Omitted,
    Own,
    SchemaVersion,
}

/// A kind's fields, in the sorted order the writer writes them.
type Fields = &'static [(&'static [u8], Ty, Absent)];

const OPENED: Fields = &[
    (b"event_id", Ty::Str, Absent::Required),
    (b"game", Ty::Str, Absent::Required),
    (b"occurred_at", Ty::Str, Absent::Required),
    (b"round_id", Ty::Str, Absent::Required),
    (b"schema_version", Ty::Int, Absent::SchemaVersion),
    (b"seq", Ty::Int, Absent::Required),
    (b"table_id", Ty::Str, Absent::Required),
    (b"type", Ty::Str, Absent::Required),
];
const WAGER: Fields = &[
    (b"amount", Ty::Str, Absent::Required),
    (b"event_id", Ty::Str, Absent::Required),
    (b"occurred_at", Ty::Str, Absent::Required),
    (b"on", Ty::Str, Absent::Own),
    (b"round_id", Ty::Str, Absent::Required),
    (b"schema_version", Ty::Int, Absent::SchemaVersion),
    (b"seat", Ty::Int, Absent::Required),
    (b"seq", Ty::Int, Absent::Required),
    (b"table_id", Ty::Str, Absent::Required),
    (b"type", Ty::Str, Absent::Required),
    (b"wager", Ty::Str, Absent::Required),
];
const LOCKED: Fields = &[
    (b"event_id", Ty::Str, Absent::Required),
    (b"occurred_at", Ty::Str, Absent::Required),
    (b"round_id", Ty::Str, Absent::Required),
    (b"schema_version", Ty::Int, Absent::SchemaVersion),
    (b"seq", Ty::Int, Absent::Required),
    (b"table_id", Ty::Str, Absent::Required),
    (b"type", Ty::Str, Absent::Required),
];
const DECISION: Fields = &[
    (b"action", Ty::Str, Absent::Required),
    (b"amount", Ty::Str, Absent::Omitted),
    (b"discards", Ty::Arr, Absent::Omitted),
    (b"event_id", Ty::Str, Absent::Required),
    (b"occurred_at", Ty::Str, Absent::Required),
    (b"round_id", Ty::Str, Absent::Required),
    (b"schema_version", Ty::Int, Absent::SchemaVersion),
    (b"seat", Ty::Int, Absent::Required),
    (b"seq", Ty::Int, Absent::Required),
    (b"table_id", Ty::Str, Absent::Required),
    (b"type", Ty::Str, Absent::Required),
];
/// More keys than any kind has: the line is not one of them.
const MAX_KEYS: usize = 16;

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

    /// A string's inner bytes: printable ASCII up to the closing quote, no backslash.
    fn string(&mut self) -> Option<&'a [u8]> {
        self.eat(b'"')?;
        let start = self.at;
        loop {
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

fn kind_of(members: &[(&[u8], Val<'_>)]) -> Option<Fields> {
    let kind = members.iter().find_map(|(key, value)| match (key, value) {
        (&b"type", Val::Str(kind)) => Some(*kind),
        _ => None,
    })?;
    match kind {
        b"round_opened" => Some(OPENED),
        b"wager_placed" => Some(WAGER),
        b"wagers_locked" => Some(LOCKED),
        b"decision" => Some(DECISION),
        _ => None,
    }
}

fn write_value(out: &mut Vec<u8>, value: &Val<'_>) {
    match value {
        Val::Str(text) => {
            out.push(b'"');
            out.extend_from_slice(text);
            out.push(b'"');
        }
        Val::Int(digits) => out.extend_from_slice(digits),
        Val::Arr(items) => {
            out.push(b'[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                out.push(b'"');
                out.extend_from_slice(item);
                out.push(b'"');
            }
            out.push(b']');
        }
    }
}

fn write_key(out: &mut Vec<u8>, key: &[u8]) {
    if out.len() > 1 {
        out.push(b',');
    }
    out.push(b'"');
    out.extend_from_slice(key);
    out.extend_from_slice(b"\":");
}

/// The payload of a vouched hot line, or None (see the module's docstring).
pub fn write_payload(line: &[u8]) -> Option<Vec<u8>> {
    let members = Reader { line, at: 0 }.object()?;
    let fields = kind_of(&members)?;
    // each member must be one of the kind's fields, with its type, once
    let mut found: [Option<usize>; MAX_KEYS] = [None; MAX_KEYS];
    for (index, (key, value)) in members.iter().enumerate() {
        let slot = fields.iter().position(|(name, _, _)| name == key)?;
        let typed = matches!(
            (fields[slot].1, value),
            (Ty::Str, Val::Str(_)) | (Ty::Int, Val::Int(_)) | (Ty::Arr, Val::Arr(_))
        );
        if !typed || found[slot].replace(index).is_some() {
            return None;
        }
    }
    let mut out = Vec::with_capacity(line.len() + 24);
    out.push(b'{');
    for (slot, (name, _, absent)) in fields.iter().enumerate() {
        if *absent == Absent::SchemaVersion {
            write_key(&mut out, name);
            out.push(b'1');
            continue;
        }
        match (found[slot], absent) {
            (Some(index), _) => {
                let value = &members[index].1;
                if matches!(value, Val::Arr(items) if items.is_empty()) {
                    continue; // no discards: the writer leaves the field out
                }
                write_key(&mut out, name);
                write_value(&mut out, value);
            }
            (None, Absent::Own) => {
                write_key(&mut out, name);
                out.extend_from_slice(b"\"own\"");
            }
            (None, Absent::Omitted) => {}
            (None, _) => return None,
        }
    }
    out.push(b'}');
    Some(out)
}
