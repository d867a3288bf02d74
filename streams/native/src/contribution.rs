//! A `ContributionRecorded`'s log record, as `streams.codec.encode` writes it: its fields with
//! their keys sorted, `"schema_version":1` and its `"type"` added. Strings are copied only when
//! they need no escape (printable ASCII, no quote, no backslash) and integers only when they
//! are exact Python ints that fit in 64 bits; anything else gives `None`, and the caller writes
//! the record in Python as before. `streams.embedded.lines` uses this only while the class has
//! exactly the fields listed here (`FIELDS` there); `tests/streams/native/test_contribution.py`
//! requires the reference's bytes for any values.
//!
//! `ContributionWriter(cls).fast()` is the same writer as a `METH_O` builtin for objects of
//! exactly ``cls`` (anything else gives None): each field is read through its slot's member
//! descriptor, found once (`slots::Slot`), where `getattr` looks the name up along the type's
//! `__mro__` for each field of each record (~7.5k instructions a record by the name, callgrind,
//! most of it the lookups and PyO3's argument tuple).

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyBytes, PyInt, PyString, PyType};
use std::ptr;

use crate::hot_line::plain_run;
use crate::slots::Slot;

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

/// Each field's key as written, with the separator before it (`FIELDS`' order).
const KEYS: [&[u8]; 16] = [
    b"{\"divert_to\":",
    b",\"diverted_sub\":",
    b",\"meter_id\":",
    b",\"meter_seq\":",
    b",\"occurred_at\":",
    b",\"on\":",
    b",\"overflow_sub\":",
    b",\"primary_sub\":",
    b",\"reserve_sub\":",
    b",\"round_id\":",
    b",\"schema_version\":",
    b",\"seat\":",
    b",\"table_id\":",
    b",\"type\":",
    b",\"wager\":",
    b",\"wager_cents\":",
];

/// Printable ASCII but the quote and the backslash: eight bytes at a time (`plain_run`), the
/// tail one by one.
fn plain(text: &[u8]) -> bool {
    let at = plain_run(text);
    text[at..].iter().all(|&byte| (0x20..0x7f).contains(&byte) && byte != b'"' && byte != b'\\')
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
            write_int(out, number);
        }
    }
    Some(())
}

/// ``str(number)``'s bytes: digits, a minus sign if negative.
fn write_int(out: &mut Vec<u8>, number: i64) {
    if number < 0 {
        out.push(b'-');
    }
    let mut rest = number.unsigned_abs();
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[start..]);
}

/// The record's bytes from each field's value as ``get(index)`` reads it (`FIELDS`' order),
/// or None.
fn write_record<'py>(mut get: impl FnMut(usize) -> Option<Bound<'py, PyAny>>) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(512);
    for (index, ((name, ty), key)) in FIELDS.iter().zip(KEYS).enumerate() {
        out.extend_from_slice(key);
        match ty {
            None if *name == "type" => out.extend_from_slice(b"\"contribution_recorded\""),
            None => out.push(b'1'),
            Some(ty) => write_field(&mut out, &get(index)?, *ty)?,
        }
    }
    out.push(b'}');
    Some(out)
}

/// The fields' names as interned strings (made on the first call).
fn names(py: Python<'_>) -> &Vec<Py<PyString>> {
    NAMES.get_or_init(py, || {
        FIELDS.iter().map(|(name, _)| PyString::intern_bound(py, name).unbind()).collect()
    })
}

/// The record's bytes, or None (see the module's docstring).
#[pyfunction]
pub fn contribution<'py>(
    py: Python<'py>,
    event: &Bound<'py, PyAny>,
) -> Option<Bound<'py, PyBytes>> {
    let names = names(py);
    let out = write_record(|index| event.getattr(names[index].bind(py)).ok())?;
    Some(PyBytes::new_bound(py, &out))
}

/// `contribution` for objects of exactly one class, its fields read through their slots.
#[pyclass(frozen, module = "jackpot_native")]
pub struct ContributionWriter {
    cls: Py<PyType>,
    /// Each field of `FIELDS` its slot (None for the two the writer adds).
    slots: Vec<Option<Slot>>,
}

#[pymethods]
impl ContributionWriter {
    /// ``cls``: `ContributionRecorded` (every field of `FIELDS` a slot of its own).
    #[new]
    fn new(cls: Bound<'_, PyType>) -> PyResult<Self> {
        let mut slots = Vec::with_capacity(FIELDS.len());
        for (name, ty) in FIELDS {
            slots.push(match ty {
                None => None,
                Some(_) => Some(Slot::get(&cls, name)?.ok_or_else(|| {
                    pyo3::exceptions::PyTypeError::new_err(format!("{name}: not a slot"))
                })?),
            });
        }
        Ok(ContributionWriter { cls: cls.unbind(), slots })
    }

    /// This writer as a `METH_O` builtin: ``write(event)``.
    fn fast(slf: &Bound<'_, Self>) -> PyResult<PyObject> {
        // SAFETY: `WRITE` is a static the interpreter only reads; the function holds its own
        // reference to `slf`, which `write_o` reads as a `ContributionWriter`.
        unsafe {
            let raw =
                ffi::PyCFunction_NewEx(ptr::addr_of_mut!(WRITE), slf.as_ptr(), ptr::null_mut());
            Ok(Bound::from_owned_ptr_or_err(slf.py(), raw)?.unbind())
        }
    }
}

impl ContributionWriter {
    fn write<'py>(&self, event: &Bound<'py, PyAny>) -> Option<Bound<'py, PyBytes>> {
        let py = event.py();
        if !event.get_type().is(self.cls.bind(py)) {
            return None;
        }
        let get = |index: usize| {
            // SAFETY: `event` is of exactly the class whose member descriptors `slots` holds.
            unsafe { self.slots[index].as_ref()?.read(event) }
        };
        let out = write_record(get)?;
        Some(PyBytes::new_bound(py, &out))
    }
}

static mut WRITE: ffi::PyMethodDef = ffi::PyMethodDef {
    ml_name: c"write".as_ptr(),
    ml_meth: ffi::PyMethodDefPointer { PyCFunction: write_o },
    ml_flags: ffi::METH_O,
    ml_doc: ptr::null(),
};

/// `ContributionWriter.fast()`'s function: ``slf`` the writer, ``event`` the argument.
unsafe extern "C" fn write_o(
    slf: *mut ffi::PyObject,
    event: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    // SAFETY: the interpreter holds the GIL and passes live pointers; `slf` is the writer
    // `fast` bound (its type checked by the downcast all the same).
    let py = Python::assume_gil_acquired();
    let owner = Bound::from_borrowed_ptr(py, slf);
    let Ok(writer) = owner.downcast::<ContributionWriter>() else {
        pyo3::exceptions::PyTypeError::new_err("write: not a ContributionWriter").restore(py);
        return ptr::null_mut();
    };
    let event = Bound::from_borrowed_ptr(py, event);
    match writer.get().write(&event) {
        Some(written) => written.into_ptr(),
        None => {
            // a read that raised (an unset slot) leaves the record to Python, as `getattr`'s
            ffi::PyErr_Clear();
            py.None().into_ptr()
        }
    }
}
