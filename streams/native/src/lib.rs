//! The native hot path of the embedded engine (issue 14; `streams.native` loads it).
//!
//! `payload(line)`: a vouched hot line's log payload, written from the line (`hot_line.rs`; a
//! line in the writer's own shape is read as that shape, `hot_shape.rs`, which `shaped(line)`
//! tells).
//! `contribution(event)`: a `ContributionRecorded`'s record (the lock's commonest derived
//! record), written from its fields (`contribution.rs`); `ContributionWriter(cls).fast()` the same
//! through the class's slots.
//! `HotDecoder`: the door's hot lines decoded into their structs and payloads (`hot_decode.rs`).
//! `HotWalk`: a batch's common hot lines decoded, decided and answered in one call (`hot_walk.rs`).
//! `GrowWalk`: the Kafka worker's wagers and decisions grown into open tables in one call
//! (`grow_walk.rs`).
//! `Builder`: records and answers made without their `__init__` (`slots.rs`).
//! `link_tail(sha256, previous, head, tail)`: a log row's tail chained and packed (`tail.rs`).

mod contract;
mod contribution;
mod grow_walk;
mod hot_decode;
mod hot_entry;
mod hot_line;
mod hot_shape;
mod hot_walk;
mod kept;
mod kinds;
mod slots;
mod tail;

use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// `streams.codec.encode` of the table event a vouched hot line holds, or None: see
/// `hot_line.rs`. Anything but bytes gives None.
#[pyfunction]
fn payload<'py>(py: Python<'py>, line: &Bound<'py, PyAny>) -> Option<Bound<'py, PyBytes>> {
    let bytes = line.downcast::<PyBytes>().ok()?;
    hot_line::write_payload(bytes.as_bytes()).map(|out| PyBytes::new_bound(py, &out))
}

/// Whether a line is read in the writer's own shape (`hot_shape.rs`), not by the generic
/// reader: for the tests, which require the plain lines to be.
#[pyfunction]
fn shaped(line: &Bound<'_, PyAny>) -> bool {
    line.downcast::<PyBytes>().is_ok_and(|bytes| hot_shape::shaped(bytes.as_bytes()).is_some())
}

/// The build's own name for itself: which sources `streams.native` loaded.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn jackpot_native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(payload, module)?)?;
    module.add_function(wrap_pyfunction!(version, module)?)?;
    module.add_function(wrap_pyfunction!(shaped, module)?)?;
    module.add_function(wrap_pyfunction!(contribution::contribution, module)?)?;
    module.add_function(wrap_pyfunction!(tail::link_tail, module)?)?;
    module.add_class::<slots::Builder>()?;
    module.add_class::<contribution::ContributionWriter>()?;
    module.add_class::<hot_decode::HotDecoder>()?;
    module.add_class::<hot_walk::HotWalk>()?;
    module.add_class::<grow_walk::GrowWalk>()?;
    Ok(())
}
