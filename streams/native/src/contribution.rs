//! A `ContributionRecorded`'s log record, as `streams.codec.encode` writes it: its fields with
//! their keys sorted, `"schema_version":1` and its `"type"` added. Strings are copied only when
//! they need no escape (printable ASCII, no quote, no backslash) and integers only when they
//! are exact Python ints that fit in 64 bits; anything else gives `None`, and the caller writes
//! the record in Python as before. `streams.embedded.lines` uses this only while the class has
//! exactly the fields listed here (`FIELDS` there); `tests/streams/native/test_contribution.py`
//! requires the reference's bytes for any values.

use std::io::Write;

use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyBytes, PyInt, PyString};

/// The fields' names as interned Python strings, made once: an attribute looked up by a new
/// string object each time cost more than the Python writer.
static NAMES: GILOnceCell<Vec<Py<PyString>>> = GILOnceCell::new();

#[derive(Clone, Copy)]
enum Ty {
    Str,
    Int,
}

/// The fields, in the sorted order the writer writes them (with the two it adds).
const FIELDS: &[(&str, Option<Ty>)] = &[
    ("divert_to", Some(Ty::Str)),
    ("diverted_sub", Some(Ty::Int)),
    ("meter_id", Some(Ty::Str)),
    ("meter_seq", Some(Ty::Int)),
    ("occurred_at", Some(Ty::Str)),
    ("on", Some(Ty::Str)),
    ("overflow_sub", Some(Ty::Int)),
    ("primary_sub", Some(Ty::Int)),
    ("reserve_sub", Some(Ty::Int)),
    ("round_id", Some(Ty::Str)),
    ("schema_version", None),
    ("seat", Some(Ty::Int)),
    ("table_id", Some(Ty::Str)),
    ("type", None),
    ("wager", Some(Ty::Str)),
    ("wager_cents", Some(Ty::Int)),
];

fn plain(text: &[u8]) -> bool {
    text.iter().all(|&byte| (0x20..0x7f).contains(&byte) && byte != b'"' && byte != b'\\')
}

fn write_field(out: &mut Vec<u8>, value: &Bound<'_, PyAny>, ty: Ty) -> Option<()> {
    match ty {
        Ty::Str => {
            let text = value.downcast_exact::<PyString>().ok()?.to_str().ok()?.as_bytes();
            if !plain(text) {
                return None;
            }
            out.push(b'"');
            out.extend_from_slice(text);
            out.push(b'"');
        }
        Ty::Int => {
            let number: i64 = value.downcast_exact::<PyInt>().ok()?.extract().ok()?;
            write!(out, "{number}").ok()?;
        }
    }
    Some(())
}

/// The record's bytes, or None (see the module's docstring).
#[pyfunction]
pub fn contribution<'py>(
    py: Python<'py>,
    event: &Bound<'py, PyAny>,
) -> Option<Bound<'py, PyBytes>> {
    let names = NAMES.get_or_init(py, || {
        FIELDS.iter().map(|(name, _)| PyString::intern_bound(py, name).unbind()).collect()
    });
    let mut out = Vec::with_capacity(320);
    out.push(b'{');
    for ((name, ty), key) in FIELDS.iter().zip(names) {
        if out.len() > 1 {
            out.push(b',');
        }
        out.push(b'"');
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b"\":");
        match ty {
            None if *name == "type" => out.extend_from_slice(b"\"contribution_recorded\""),
            None => out.push(b'1'),
            Some(ty) => write_field(&mut out, &event.getattr(key.bind(py)).ok()?, *ty)?,
        }
    }
    out.push(b'}');
    Some(PyBytes::new_bound(py, &out))
}
