//! The door's hot lines decoded natively: `HotDecoder(...).fast()(line)` gives
//! ``(struct, payload)`` for a round opened, a wager, the lock or a decision, or None.
//!
//! The struct is the one `streams.door.fast_core.decode_vouched` gives for the line (the same
//! class, the same field values, `UNSET` and `OWN_UNSAID` where the line leaves a field out),
//! made by calling the class with its fields as keywords; the payload is `hot_line.rs`'s, read
//! from the same pass over the line. It answers only lines it is sure the door vouches for:
//! `hot_shape::shaped` for a line in the writer's own shape (compact, keys sorted: its payload
//! then the line with the version put in), else `hot_line::members_of` (one flat object of a
//! hot kind, each member one of the kind's fields with its JSON type, once, no escape, no byte
//! outside printable ASCII in a string, integers in their shortest spelling, every required
//! field); either way the same members. Then each value checked as the contract and
//! `streams.door.struct_checks` check it (`Check`): the ids' patterns, the instant, the ranges,
//! the literals (handed in by the caller from `streams.door.contract_structs`), ``discards`` only
//! with ``draw`` and distinct. Anything else (a negative zero, an offset of 24 hours, a line
//! longer than the door's fast limit...) gives None, and the caller asks `decode_vouched`, so an
//! answer here is always the door's. `tests/streams/native/test_hot_decode.py` compares the two.

use crate::contract::{amount_ok, event_id_ok, ident_ok, instant_ok, integer, wager_name_ok};
use crate::hot_entry::{builtin, DECODE, DECODE_HEADS};
use crate::hot_line::{members_of, write_into, Check, Fields, Members, Val, KINDS, MAX_KEYS};
use crate::hot_shape::shaped;
use crate::kept::{as_ascii, Kept};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString, PyTuple, PyType};
use std::cell::RefCell;
use std::ptr;

extern "C" {
    // In the stable ABI from 3.12; exported by 3.11 as well (the build's floor).
    pub(crate) fn PyObject_Vectorcall(
        callable: *mut ffi::PyObject,
        args: *const *mut ffi::PyObject,
        nargsf: usize,
        kwnames: *mut ffi::PyObject,
    ) -> *mut ffi::PyObject;
}

thread_local! {
    /// The buffer a hot line's payload is written into before its `bytes` is made: one pass of
    /// `write_into` and a copy, not a pass to count the bytes and another to write them (the
    /// buffer is kept, so no allocation a line once it has grown to a line's size: at most the
    /// door's fast limit and a few bytes, `limit`). It is borrowed only around that pass and
    /// the `bytes`' allocation, which runs no Python code (a `bytes` is not collected), so
    /// the borrow cannot be asked for again while it is held.
    static PAYLOAD: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// A literal of the contract: its text and the object the struct holds for it.
struct Literals(Vec<(Vec<u8>, PyObject)>);

impl Literals {
    fn new(texts: Vec<Bound<'_, PyString>>) -> PyResult<Self> {
        let pairs = texts.into_iter().map(|text| {
            let bytes = text.to_str()?.as_bytes().to_vec();
            Ok((bytes, text.into_any().unbind()))
        });
        Ok(Literals(pairs.collect::<PyResult<_>>()?))
    }

    fn find(&self, text: &[u8]) -> Option<&PyObject> {
        self.0.iter().find(|(known, _)| known.as_slice() == text).map(|(_, object)| object)
    }
}

#[pyclass(frozen, module = "jackpot_native")]
pub struct HotDecoder {
    /// Each kind's class and keyword names (its fields but ``type``, in `KINDS`' order).
    classes: Vec<(Py<PyType>, Py<PyTuple>)>,
    /// Each kind's positions among those fields of ``event_id``, ``table_id``, ``occurred_at``
    /// (`fast_heads`).
    heads: Vec<[usize; 3]>,
    games: Literals,
    actions: Literals,
    targets: Literals,
    cards: Literals,
    unset: PyObject,
    own_unsaid: PyObject,
    limit: usize,
    kept: Kept,
}

#[pymethods]
impl HotDecoder {
    /// ``classes``: the struct of a round opened, a wager, the lock and a decision; the literals'
    /// texts; `msgspec.UNSET`; `OWN_UNSAID`; the door's fast limit in bytes.
    #[new]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        classes: Vec<Bound<'_, PyType>>,
        literals: (
            Vec<Bound<'_, PyString>>,
            Vec<Bound<'_, PyString>>,
            Vec<Bound<'_, PyString>>,
            Vec<Bound<'_, PyString>>,
        ),
        unset: PyObject,
        own_unsaid: PyObject,
        limit: usize,
    ) -> PyResult<Self> {
        if classes.len() != KINDS.len() {
            return Err(pyo3::exceptions::PyValueError::new_err("four classes"));
        }
        let mut made = Vec::with_capacity(KINDS.len());
        let mut heads = Vec::with_capacity(KINDS.len());
        for (cls, fields) in classes.into_iter().zip(KINDS) {
            heads.push(head_slots(fields)?);
            let names = fields.iter().filter(|field| field.3 != Check::Tag).map(|field| {
                let name = if field.3 == Check::Discards { "discarded" } else { as_str(field.0) };
                PyString::intern_bound(py, name)
            });
            let names: Vec<_> = names.collect();
            made.push((cls.unbind(), PyTuple::new_bound(py, names).unbind()));
        }
        let (games, actions, targets, cards) = literals;
        Ok(HotDecoder {
            classes: made,
            heads,
            games: Literals::new(games)?,
            actions: Literals::new(actions)?,
            targets: Literals::new(targets)?,
            cards: Literals::new(cards)?,
            unset,
            own_unsaid,
            limit,
            kept: Kept::default(),
        })
    }

    /// This decoder as a `METH_O` builtin: ``decode(line)`` gives ``(struct, payload)``.
    fn fast(slf: &Bound<'_, Self>) -> PyResult<PyObject> {
        builtin(slf, ptr::addr_of_mut!(DECODE))
    }

    /// The same with the struct's head as well: ``(struct, payload, event_id, table_id,
    /// occurred_at)``, the very objects the struct holds, so that the caller need not read
    /// them back from it (an attribute lookup by name each, from compiled code).
    fn fast_heads(slf: &Bound<'_, Self>) -> PyResult<PyObject> {
        builtin(slf, ptr::addr_of_mut!(DECODE_HEADS))
    }
}

/// The positions of ``event_id``, ``table_id`` and ``occurred_at`` among a kind's fields but
/// its tag (the order of the struct call's keywords).
fn head_slots(fields: Fields) -> PyResult<[usize; 3]> {
    let mut slots = [usize::MAX; 3];
    let named = fields.iter().filter(|field| field.3 != Check::Tag).enumerate();
    for (index, field) in named {
        match field.0 {
            b"event_id" => slots[0] = index,
            b"table_id" => slots[1] = index,
            b"occurred_at" => slots[2] = index,
            _ => {}
        }
    }
    if slots.contains(&usize::MAX) {
        return Err(pyo3::exceptions::PyValueError::new_err("a kind without its head"));
    }
    Ok(slots)
}

fn as_str(key: &'static [u8]) -> &'static str {
    std::str::from_utf8(key).unwrap_or("")
}

/// A hot line decoded: its kind (the index in `KINDS`), its struct, its payload and the
/// struct's ``event_id``, ``table_id`` and ``occurred_at`` (the very objects it holds).
pub(crate) struct Decoded<'py> {
    pub(crate) kind: usize,
    pub(crate) made: Bound<'py, PyAny>,
    pub(crate) payload: Bound<'py, PyAny>,
    pub(crate) heads: [Bound<'py, PyAny>; 3],
}

impl<'py> Decoded<'py> {
    /// ``(struct, payload)``, or with ``heads`` ``(struct, payload, event_id, table_id,
    /// occurred_at)``: what `HotDecoder.fast()` and `fast_heads()` answer.
    pub(crate) fn into_tuple(self, py: Python<'py>, heads: bool) -> Bound<'py, PyTuple> {
        if !heads {
            return PyTuple::new_bound(py, [self.made, self.payload]);
        }
        let [event_id, table_id, occurred_at] = self.heads;
        PyTuple::new_bound(py, [self.made, self.payload, event_id, table_id, occurred_at])
    }
}

impl HotDecoder {
    /// ``(struct, payload)`` of a hot line the door vouches for, else None; with ``heads``,
    /// ``(struct, payload, event_id, table_id, occurred_at)``.
    pub(crate) fn decode<'py>(
        &self,
        py: Python<'py>,
        line: &[u8],
        heads: bool,
    ) -> PyResult<Option<Bound<'py, PyTuple>>> {
        Ok(self.decode_parts(py, line)?.map(|parts| parts.into_tuple(py, heads)))
    }

    /// `decode`'s parts, for a caller that reads them (`hot_walk.rs`).
    pub(crate) fn decode_parts<'py>(
        &self,
        py: Python<'py>,
        line: &[u8],
    ) -> PyResult<Option<Decoded<'py>>> {
        if line.len() > self.limit {
            return Ok(None);
        }
        let (read, cut) = match shaped(line) {
            Some((read, cut)) => (read, Some(cut)),
            None => match members_of(line) {
                Some(read) => (read, None),
                None => return Ok(None),
            },
        };
        let kind = read.kind;
        // on the stack: a hot kind has fewer than `MAX_KEYS` fields (no `Vec` a line)
        let mut values: [Option<Bound<'py, PyAny>>; MAX_KEYS] = Default::default();
        let mut pointers: [*mut ffi::PyObject; MAX_KEYS] = [ptr::null_mut(); MAX_KEYS];
        let mut count = 0;
        for (slot, field) in read.fields.iter().enumerate() {
            if field.3 == Check::Tag {
                continue;
            }
            let Some(value) = self.value(py, &read, slot, field.3) else { return Ok(None) };
            pointers[count] = value.as_ptr();
            values[count] = Some(value);
            count += 1;
        }
        let (cls, names) = &self.classes[kind];
        let made = unsafe {
            let raw = PyObject_Vectorcall(cls.as_ptr(), pointers.as_ptr(), 0, names.as_ptr());
            Bound::from_owned_ptr_or_err(py, raw)?
        };
        let payload = match cut {
            Some(cut) => PyBytes::new_bound_with(py, cut.size(line.len()), |out| {
                cut.fill(line, out);
                Ok(())
            })?
            .into_any(),
            None => PAYLOAD.with(|kept| {
                let mut buffer = kept.borrow_mut();
                buffer.clear();
                write_into(&read, &mut *buffer);
                PyBytes::new_bound(py, &buffer).into_any()
            }),
        };
        let heads = self.heads[kind]
            .map(|at| values[at].clone().expect("a head is one of its kind's decoded fields"));
        Ok(Some(Decoded { kind, made: made.into_any(), payload, heads }))
    }

    /// The object the struct holds for field ``slot`` (its default if the line leaves it out),
    /// or None if the contract refuses the value.
    fn value<'py>(
        &self,
        py: Python<'py>,
        read: &Members<'_>,
        slot: usize,
        check: Check,
    ) -> Option<Bound<'py, PyAny>> {
        let Some(value) = read.value(slot) else {
            return Some(match check {
                Check::Target => self.own_unsaid.bind(py).clone(),
                _ => self.unset.bind(py).clone(), // the version, a decision's amount and discards
            });
        };
        match (check, value) {
            (Check::Discards, Val::Arr(items)) => self.discards(py, read, items),
            (_, Val::Str(text)) => self.text(py, check, text),
            (_, Val::Int(digits)) => {
                integer(check, digits).map(|number| number.into_py(py).into_bound(py))
            }
            _ => None,
        }
    }

    fn text<'py>(&self, py: Python<'py>, check: Check, text: &[u8]) -> Option<Bound<'py, PyAny>> {
        let literal = match check {
            Check::Game => Some(&self.games),
            Check::Action => Some(&self.actions),
            Check::Target => Some(&self.targets),
            _ => None,
        };
        if let Some(known) = literal {
            return known.find(text).map(|object| object.bind(py).clone());
        }
        // an event's id and instant are new each line, the other texts repeat (`Kept`)
        let (valid, repeats) = match check {
            Check::EventId => (event_id_ok(text), false),
            Check::Instant => (instant_ok(text), false),
            Check::Ident => (ident_ok(text), true),
            Check::WagerName => (wager_name_ok(text), true),
            Check::Amount => (amount_ok(text), true),
            _ => (false, false),
        };
        if !valid {
            return None;
        }
        // the checks pass only ASCII, so the text is its own UTF-8
        Some(if repeats {
            self.kept.string(py, text)
        } else {
            PyString::new_bound(py, as_ascii(text)).into_any()
        })
    }

    /// A decision's discards: distinct cards, at most 5, and only with ``draw``.
    fn discards<'py>(
        &self,
        py: Python<'py>,
        read: &Members<'_>,
        items: &[&[u8]],
    ) -> Option<Bound<'py, PyAny>> {
        let action = read.fields.iter().position(|field| field.3 == Check::Action)?;
        let drawn = matches!(read.value(action), Some(Val::Str(b"draw")));
        if !drawn || items.len() > 5 {
            return None;
        }
        let mut cards = Vec::with_capacity(items.len());
        for (index, item) in items.iter().enumerate() {
            if items[..index].contains(item) {
                return None;
            }
            cards.push(self.cards.find(item)?.bind(py).clone());
        }
        Some(PyList::new_bound(py, cards).into_any())
    }
}
