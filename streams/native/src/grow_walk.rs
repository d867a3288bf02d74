//! The Kafka worker's grown lines walked in one native call: `GrowWalk(...).walk(...)`, the
//! shape of `streams.scaleout.batch.decide`'s loop for its commonest input, a wager or decision
//! grown into its table's record held open in the batch (`open_rounds._grown`), without the loop
//! making ~20 calls and a `Processed` an input.
//!
//! For each consumed record from ``start`` to ``stop`` the walk does what the loop and
//! `OpenRoundProcessor.process_open` do for such an input, in their order: the record is of the
//! partition the loop is on; its key (exact bytes) holds an `OpenTable` in the batch's
//! ``pending``; it is not redelivered (`process_open`'s offset check); its value (exact bytes)
//! is a hot line the decoder answers (`hot_decode.rs`, as `open_table.read_open` reads it) of
//! a kind grown open (a wager or a decision: its decider given); the key is the line's table
//! (`_read`'s check); the id is not known to the table (`OpenTable.earlier`); the session's
//! decider accepts it (an answer not None: `_grown`). Then ``grew(table, event_id, pos,
//! payload)`` (`open_table.grew`: the digest, `took`, `logs`), the event's output and its
//! liveness record appended to the lane's outputs and "accepted" to its outcomes, as the loop
//! extends them from `_grown`'s `Processed`; the partition's progress is set once, after the
//! last record walked.
//!
//! Anything else stops the walk at that record, with nothing of it changed (a decider that
//! answers None changed nothing: `controller.fast.hot`), and hands its index back: the loop
//! decides it the general way, from the start. ``tests/streams/scaleout/test_grow_walk.py``
//! holds `decide` with the walk byte for byte to `decide` without it.

use crate::hot_decode::HotDecoder;
use crate::hot_walk::call;
use pyo3::ffi;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple, PyType};

extern "C" {
    // In the stable ABI from 3.12; exported by 3.11 as well (the build's floor).
    fn PyObject_VectorcallMethod(
        name: *mut ffi::PyObject,
        args: *const *mut ffi::PyObject,
        nargsf: usize,
        kwnames: *mut ffi::PyObject,
    ) -> *mut ffi::PyObject;
}

/// ``target.name(*args)`` (``args`` after the target) through the vectorcall protocol.
fn method<'py>(
    py: Python<'py>,
    target: &Bound<'py, PyAny>,
    name: &Bound<'py, PyString>,
    args: &[*mut ffi::PyObject],
) -> PyResult<Bound<'py, PyAny>> {
    let mut all = [std::ptr::null_mut(); 4];
    all[0] = target.as_ptr();
    all[1..=args.len()].copy_from_slice(args);
    // SAFETY: the GIL is held; the target and ``args`` are live for the call.
    unsafe {
        let raw = PyObject_VectorcallMethod(
            name.as_ptr(),
            all.as_ptr(),
            args.len() + 1,
            std::ptr::null_mut(),
        );
        Bound::from_owned_ptr_or_err(py, raw)
    }
}

/// What one walk reads and adds to: the loop's partition and lists.
struct Run<'a, 'py> {
    topic: &'a Bound<'py, PyString>,
    part: i64,
    pending: &'a Bound<'py, PyDict>,
    outcomes: &'a Bound<'py, PyList>,
    outputs: &'a Bound<'py, PyList>,
    session: &'a Bound<'py, PyAny>,
    tables: &'a Bound<'py, PyAny>,
}

#[pyclass(frozen, module = "jackpot_native")]
pub struct GrowWalk {
    decoder: Py<HotDecoder>,
    /// The session's decider of each hot kind (`hot_line::KINDS`' order), None: not grown.
    deciders: Vec<Option<PyObject>>,
    /// `OpenTable`, exactly.
    open: Py<PyType>,
    session: PyObject,
    /// `open_table.grew`, `records.source_pos`, `records.output`, `heard.new_heard`.
    grew: PyObject,
    source_pos: PyObject,
    output: PyObject,
    heard: PyObject,
    /// The events and liveness topics; "accepted" and "event".
    events: PyObject,
    liveness: PyObject,
    accepted: PyObject,
    event: PyObject,
}

#[pymethods]
impl GrowWalk {
    /// ``deciders``: one a hot kind (None for a kind not grown); ``builders``: `grew`,
    /// `source_pos`, `output`, `new_heard`; ``topics``: the events and liveness topics.
    #[new]
    fn new(
        py: Python<'_>,
        decoder: Py<HotDecoder>,
        deciders: Vec<Option<PyObject>>,
        open: Py<PyType>,
        session: PyObject,
        builders: (PyObject, PyObject, PyObject, PyObject),
        topics: (PyObject, PyObject),
    ) -> PyResult<Self> {
        if deciders.len() != crate::hot_line::KINDS.len() {
            return Err(pyo3::exceptions::PyValueError::new_err("a decider a kind"));
        }
        let (grew, source_pos, output, heard) = builders;
        let accepted = PyString::intern_bound(py, "accepted").into_any().unbind();
        let event = PyString::intern_bound(py, "event").into_any().unbind();
        let (events, liveness) = topics;
        Ok(GrowWalk {
            decoder,
            deciders,
            open,
            session,
            grew,
            source_pos,
            output,
            heard,
            events,
            liveness,
            accepted,
            event,
        })
    }

    /// Walk ``records`` from ``start`` to at most ``stop`` (see the module's docstring) on
    /// partition (``topic``, ``part``); the index of the first record not walked.
    #[allow(clippy::too_many_arguments)]
    fn walk<'py>(
        &self,
        py: Python<'py>,
        records: &Bound<'py, PyList>,
        start: usize,
        stop: usize,
        topic: &Bound<'py, PyString>,
        part: i64,
        pending: &Bound<'py, PyDict>,
        lists: (Bound<'py, PyList>, Bound<'py, PyList>),
        progress: &Bound<'py, PyDict>,
        place: &Bound<'py, PyAny>,
    ) -> PyResult<usize> {
        let session = self.session.bind(py);
        let tables = session.getattr(intern!(py, "tables"))?;
        let run = Run {
            topic,
            part,
            pending,
            outcomes: &lists.0,
            outputs: &lists.1,
            session,
            tables: &tables,
        };
        let mut last: Option<Bound<'py, PyAny>> = None;
        let mut index = start;
        let end = stop.min(records.len());
        while index < end {
            let message = records.get_item(index)?;
            match self.line(py, &run, &message)? {
                Some(offset) => last = Some(offset),
                None => break,
            }
            index += 1;
        }
        if let Some(offset) = last {
            let next = offset.add(1)?;
            progress.set_item(place, next)?;
        }
        Ok(index)
    }
}

impl GrowWalk {
    /// One consumed record: its offset if it was grown here, None if it is handed back.
    fn line<'py>(
        &self,
        py: Python<'py>,
        run: &Run<'_, 'py>,
        message: &Bound<'py, PyAny>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let topic = method(py, message, intern!(py, "topic"), &[])?;
        let part_object = method(py, message, intern!(py, "partition"), &[])?;
        if !topic.eq(run.topic)? || part_object.extract::<i64>().ok() != Some(run.part) {
            return Ok(None);
        }
        let key = method(py, message, intern!(py, "key"), &[])?;
        let Ok(key_bytes) = key.downcast_exact::<PyBytes>() else { return Ok(None) };
        let Some(table) = run.pending.get_item(key_bytes)? else { return Ok(None) };
        if !table.get_type().is(self.open.bind(py)) {
            return Ok(None);
        }
        let offset = method(py, message, intern!(py, "offset"), &[])?;
        let Ok(at) = offset.extract::<i64>() else { return Ok(None) };
        let table_part: i64 = table.getattr(intern!(py, "partition"))?.extract()?;
        let table_offset: i64 = table.getattr(intern!(py, "offset"))?.extract()?;
        if table_part == run.part && at <= table_offset {
            return Ok(None); // redelivered: `process_open` says so
        }
        let value = method(py, message, intern!(py, "value"), &[])?;
        let Ok(raw) = value.downcast_exact::<PyBytes>() else { return Ok(None) };
        let Some(decoded) = self.decoder.get().decode_parts(py, raw.as_bytes())? else {
            return Ok(None);
        };
        let Some(decider) = &self.deciders[decoded.kind] else { return Ok(None) };
        let [event_id, line_table, _] = &decoded.heads;
        let line_table = line_table.downcast::<PyString>()?;
        if line_table.to_str()?.as_bytes() != key_bytes.as_bytes() {
            return Ok(None); // another table's key: `_read` refuses it
        }
        if !method(py, &table, intern!(py, "earlier"), &[event_id.as_ptr()])?.is_none() {
            return Ok(None); // a known id: `_event` tells a duplicate from a reused id
        }
        let table_id = table.getattr(intern!(py, "table_id"))?;
        run.tables.set_item(&table_id, table.getattr(intern!(py, "table"))?)?;
        let struct_ = &decoded.made;
        let answer = call(py, decider, &[run.session.as_ptr(), struct_.as_ptr()])?;
        if answer.is_none() {
            return Ok(None); // not surely: nothing changed, the loop decides it
        }
        let stamp = method(py, message, intern!(py, "timestamp"), &[])?;
        let stamp = stamp.downcast::<PyTuple>()?.get_item(1)?;
        let place = [topic.as_ptr(), part_object.as_ptr(), offset.as_ptr(), stamp.as_ptr()];
        let pos = call(py, &self.source_pos, &place)?;
        let payload = &decoded.payload;
        let grown = [table.as_ptr(), event_id.as_ptr(), pos.as_ptr(), payload.as_ptr()];
        call(py, &self.grew, &grown)?;
        let id = event_id.as_ptr();
        let made = [self.events.as_ptr(), table_id.as_ptr(), payload.as_ptr(), id];
        run.outputs.append(call(py, &self.output, &made)?)?;
        let heard =
            [self.liveness.as_ptr(), table_id.as_ptr(), self.event.as_ptr(), id, pos.as_ptr()];
        run.outputs.append(call(py, &self.heard, &heard)?)?;
        run.outcomes.append(self.accepted.bind(py))?;
        Ok(Some(offset))
    }
}
