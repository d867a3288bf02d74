//! The string objects of the texts that repeat on a floor, kept by the hot decoder
//! (`hot_decode.rs`): a table's and a round's ids, a wager's name, an amount.

use pyo3::prelude::*;
use pyo3::types::PyString;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Mutex;

/// FNV-1a: the kept texts are short (ids, wager names, amounts); SipHash's set-up cost more
/// than the lookup, and the map is bounded (`KEPT`), so a chosen collision costs little.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 = (self.0 ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// How many texts `Kept` holds before it starts over: a floor repeats a few tables, the rounds
/// in play, a few wager names and amounts; a stream of ever-new ids cannot grow it past this.
const KEPT: usize = 4_096;

/// The string objects already made for the texts that repeat (a table's and a round's ids, a
/// wager's name, an amount): a repeat is the same object, so no allocation, its hash already
/// cached, and an identity hit in the session's dicts. Strings are immutable, so sharing one is
/// unobservable but by `is` (which the session asks only of `OWN_UNSAID`, not made here).
#[derive(Default)]
pub(crate) struct Kept(Mutex<Strings>);

type Strings = HashMap<Box<[u8]>, Py<PyString>, BuildHasherDefault<Fnv>>;

impl Kept {
    /// The string of ``text`` (ASCII), the kept one if any.
    pub(crate) fn string<'py>(&self, py: Python<'py>, text: &[u8]) -> Bound<'py, PyAny> {
        let Ok(mut kept) = self.0.lock() else {
            return PyString::new_bound(py, as_ascii(text)).into_any();
        };
        if let Some(known) = kept.get(text) {
            return known.bind(py).clone().into_any();
        }
        if kept.len() >= KEPT {
            kept.clear();
        }
        let made = PyString::new_bound(py, as_ascii(text));
        kept.insert(text.into(), made.clone().unbind());
        made.into_any()
    }
}

/// A text the checks passed: ASCII only, so its own UTF-8.
pub(crate) fn as_ascii(text: &[u8]) -> &str {
    debug_assert!(text.is_ascii());
    // SAFETY: every check that lets a text through (`HotDecoder::text`) passes only ASCII bytes.
    unsafe { std::str::from_utf8_unchecked(text) }
}
