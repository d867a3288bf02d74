//! A batch's hot lines walked in one native call: `HotWalk(decoder, deciders, answer,
//! record).walk(...)`, the shape of `streams.embedded.lines.decide_lines` for its commonest
//! line, without a Python loop making ~10 calls and a dozen tuples a line.
//!
//! For each line from ``start`` on, the walk decodes it (`HotDecoder::decode_parts`), and when
//! the line is a hot line of the batch's common case it does what `lines._hot_line` does for it:
//! the duplicate check finds nothing in ``seen``; the instant is before the batch's second
//! (`streams.embedded.received.before_second`); the session has no configuration pending and
//! its configuration is the quiet one (`steady`); the kind's decider (`controller.fast.hot`'s,
//! the very callables `lines` would call) accepts the struct alone (``(struct,)``). Then it
//! notes ``seen[event_id] = payload``, hears the table, answers `accepted` (the ``answer``
//! builder, `batch.new_answer`), appends the line's record (``record``, `batch.new_record`)
//! and the struct to the events, in `batch.answer_verdict`'s and `lines._log`'s order.
//!
//! Anything else stops the walk at that line and hands it back, ``(index, decoded, decided,
//! produced)``: ``decoded`` the `fast_heads` tuple (None: not a hot line the decoder answers);
//! ``decided`` whether the decider ran, then ``produced`` its answer (None: ask the reference),
//! which Python words and logs as `_hot_line` does. Nothing is changed for a line handed back
//! before its decider runs. The caller walks only batches without a submitter's scope and with
//! a fixed session (`batch.fixed_session`); ``tests/streams/embedded/test_lines_differential.py``
//! holds the result to the reference `submit`.

use crate::hot_decode::{Decoded, HotDecoder, PyObject_Vectorcall};
use pyo3::ffi;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};

/// ``callable(*args)`` through the vectorcall protocol (no argument tuple); the grown lines'
/// walk (`grow_walk.rs`) calls it too.
pub(crate) fn call<'py>(
    py: Python<'py>,
    callable: &PyObject,
    args: &[*mut ffi::PyObject],
) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: the GIL is held; ``args`` are live objects the caller owns for the call.
    unsafe {
        let raw =
            PyObject_Vectorcall(callable.as_ptr(), args.as_ptr(), args.len(), std::ptr::null_mut());
        Bound::from_owned_ptr_or_err(py, raw)
    }
}

/// `received.before_second` of a vouched instant: a UTC text before ``second`` (19 bytes).
fn before_second(occurred_at: &[u8], second: &[u8]) -> bool {
    let size = occurred_at.len();
    if size < 20 || occurred_at[size - 1] != b'Z' || occurred_at[10] != b'T' {
        return false;
    }
    second.len() == 19 && occurred_at < second
}

/// What the batch's lists and fixed values are (``Decided``'s lists, `batch.Context`'s).
struct Batch<'a, 'py> {
    session: &'a Bound<'py, PyAny>,
    seen: &'a Bound<'py, PyDict>,
    lists: [&'a Bound<'py, PyList>; 4],
    second: &'a [u8],
    now: &'a Bound<'py, PyAny>,
    /// `steady` at the walk's start.
    steady: bool,
}

/// Whether the session has no configuration pending and its configuration is the quiet one
/// (`lines._decide` steps a pending session; `lines._hot_line` arms a loud one). Read once a
/// walk: a hot decider changes neither, and a line that could is handed back, ending the walk.
fn steady(py: Python<'_>, session: &Bound<'_, PyAny>, quiet: &Bound<'_, PyAny>) -> PyResult<bool> {
    let pending = session.getattr(intern!(py, "pending"))?.is_truthy()?;
    Ok(!pending && session.getattr(intern!(py, "config"))?.is(quiet))
}

/// A line handed back: ``(index, decoded, decided, produced)``.
type Handed = (usize, PyObject, bool, PyObject);

#[pyclass(frozen, module = "jackpot_native")]
pub struct HotWalk {
    decoder: Py<HotDecoder>,
    /// The session's decider of each kind, in `KINDS`' order.
    deciders: Vec<PyObject>,
    answer: PyObject,
    record: PyObject,
    accepted: PyObject,
    empty: PyObject,
}

#[pymethods]
impl HotWalk {
    #[new]
    fn new(
        py: Python<'_>,
        decoder: Py<HotDecoder>,
        deciders: Vec<PyObject>,
        answer: PyObject,
        record: PyObject,
    ) -> PyResult<Self> {
        if deciders.len() != crate::hot_line::KINDS.len() {
            return Err(pyo3::exceptions::PyValueError::new_err("a decider a kind"));
        }
        let accepted = PyString::intern_bound(py, "accepted").into_any().unbind();
        let empty = PyString::intern_bound(py, "").into_any().unbind();
        Ok(HotWalk { decoder, deciders, answer, record, accepted, empty })
    }

    /// Walk ``lines`` from ``start`` (see the module's docstring); ``lists`` are the batch's
    /// outcomes, records, events and heard tables.
    #[allow(clippy::too_many_arguments)]
    fn walk<'py>(
        &self,
        py: Python<'py>,
        lines: &Bound<'py, PyList>,
        start: usize,
        session: &Bound<'py, PyAny>,
        seen: &Bound<'py, PyDict>,
        lists: (Bound<'py, PyList>, Bound<'py, PyList>, Bound<'py, PyList>, Bound<'py, PyList>),
        second: &Bound<'py, PyString>,
        now: &Bound<'py, PyAny>,
        quiet: &Bound<'py, PyAny>,
    ) -> PyResult<Handed> {
        let lists = [&lists.0, &lists.1, &lists.2, &lists.3];
        let steady = steady(py, session, quiet)?;
        let second = second.to_str()?.as_bytes();
        let batch = Batch { session, seen, lists, second, now, steady };
        let decoder = self.decoder.get();
        for index in start..lines.len() {
            let line = lines.get_item(index)?;
            let Ok(bytes) = line.downcast::<PyBytes>() else {
                return Ok(untouched(py, index, None));
            };
            let Some(decoded) = decoder.decode_parts(py, bytes.as_bytes())? else {
                return Ok(untouched(py, index, None));
            };
            if let Some(handed) = self.line(py, &batch, index, decoded)? {
                return Ok(handed);
            }
        }
        Ok(untouched(py, lines.len(), None))
    }
}

/// ``(index, decoded, False, None)``: a line the walk left as it found it.
fn untouched(py: Python<'_>, index: usize, decoded: Option<Decoded<'_>>) -> Handed {
    let decoded =
        decoded.map_or_else(|| py.None(), |parts| parts.into_tuple(py, true).into_any().unbind());
    (index, decoded, false, py.None())
}

impl HotWalk {
    /// One decoded hot line: None if it was accepted here, else what is handed back.
    fn line<'py>(
        &self,
        py: Python<'py>,
        batch: &Batch<'_, 'py>,
        index: usize,
        decoded: Decoded<'py>,
    ) -> PyResult<Option<Handed>> {
        let [event_id, table_id, occurred_at] = &decoded.heads;
        let instant = occurred_at.downcast::<PyString>()?.to_str()?.as_bytes();
        if !batch.steady
            || batch.seen.get_item(event_id)?.is_some()
            || !before_second(instant, batch.second)
        {
            return Ok(Some(untouched(py, index, Some(decoded))));
        }
        let struct_ = &decoded.made;
        let produced =
            call(py, &self.deciders[decoded.kind], &[batch.session.as_ptr(), struct_.as_ptr()])?;
        if !Self::alone(&produced, struct_)? {
            let parts = decoded.into_tuple(py, true).into_any().unbind();
            return Ok(Some((index, parts, true, produced.unbind())));
        }
        let payload = &decoded.payload;
        batch.seen.set_item(event_id, payload)?;
        let [outcomes, records, events, heard] = batch.lists;
        heard.append(table_id)?;
        let answer = [event_id.as_ptr(), self.accepted.as_ptr(), self.empty.as_ptr()];
        outcomes.append(call(py, &self.answer, &answer)?)?;
        let record = [table_id.as_ptr(), payload.as_ptr(), event_id.as_ptr(), batch.now.as_ptr()];
        records.append(call(py, &self.record, &record)?)?;
        events.append(struct_)?;
        Ok(None)
    }

    /// Whether the decider accepted the struct alone: ``(struct,)``.
    fn alone(produced: &Bound<'_, PyAny>, struct_: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(tuple) = produced.downcast::<PyTuple>() else {
            return Ok(false);
        };
        Ok(tuple.len() == 1 && tuple.get_item(0)?.is(struct_))
    }
}
