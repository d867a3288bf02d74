//! A row's tail linked and packed in one call: `link_tail(sha256, previous, head, tail)` gives
//! what `streams.adapters.sqlite_rows._link_tail` gives, ``(chain hash after the tail, the
//! tail's blob)``.
//!
//! ``tail`` is a list of ``(key, received_at, payload)`` (str, str, bytes), the records at
//! positions ``head + 1 ..``. Each is chained as `streams.adapters.chain.link` chains a record
//! with an empty dedupe id: SHA-256 over the previous hash, the five lengths (8 bytes each,
//! big-endian: position in decimal, key, dedupe id, receive time, payload), then the five parts.
//! The hash itself is the caller's ``sha256`` (`hashlib.sha256`, OpenSSL: no digest code of our
//! own); what is done here is the framing, which cost the Python `link` ~5k instructions a
//! record (its frame, four encodes, a struct pack, a join). The blob is the MessagePack
//! `sqlite_rows.ENCODE_TAIL` writes (msgspec's: the shortest array, str and bin headers), as a
//! bytearray: `sqlite3` binds a bytearray as it is and looks for an adapter for a bytes.
//!
//! `tests/streams/native/test_tail.py` requires the Python path's hash and bytes for any tail.

use crate::hot_line::{Fill, Sink};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyList, PyString};

/// A MessagePack header: ``small`` (a fix type) with the length in its low bits below
/// ``fix``, else the 8-bit form (``eight``, if the type has one), else the 16- and 32-bit ones.
fn header(out: &mut Vec<u8>, len: usize, small: Option<(u8, usize)>, eight: Option<u8>, wide: u8) {
    match small {
        Some((tag, fix)) if len < fix => return out.push(tag | len as u8),
        _ => {}
    }
    if let Some(tag) = eight {
        if len < 1 << 8 {
            out.push(tag);
            out.push(len as u8);
            return;
        }
    }
    if len < 1 << 16 {
        out.push(wide);
        out.extend_from_slice(&(len as u16).to_be_bytes());
    } else {
        out.push(wide + 1);
        out.extend_from_slice(&(len as u32).to_be_bytes());
    }
}

fn write_str(out: &mut Vec<u8>, text: &[u8]) {
    header(out, text.len(), Some((0xa0, 32)), Some(0xd9), 0xda);
    out.extend_from_slice(text);
}

fn write_bin(out: &mut Vec<u8>, data: &[u8]) {
    header(out, data.len(), None, Some(0xc4), 0xc5);
    out.extend_from_slice(data);
}

/// The bytes `link` hashes for the record at ``position`` (dedupe id ""), written straight
/// into a new `bytes` of their exact size (no `Vec` made, freed and copied a record).
fn framed<'py>(
    py: Python<'py>,
    previous: &[u8],
    position: u64,
    parts: [&[u8]; 3],
) -> PyResult<Bound<'py, PyBytes>> {
    let at = position.to_string();
    let [key, received, payload] = parts;
    let lens = [at.len(), key.len(), 0, received.len(), payload.len()];
    let size = previous.len() + 40 + lens.iter().sum::<usize>();
    PyBytes::new_bound_with(py, size, |buffer| {
        let mut out = Fill { buffer, at: 0 };
        out.put_all(previous);
        for len in lens {
            out.put_all(&(len as u64).to_be_bytes());
        }
        for part in [at.as_bytes(), key, received, payload] {
            out.put_all(part);
        }
        Ok(())
    })
}

/// See the module's docstring. A record that is not ``(str, str, bytes)`` raises TypeError.
#[pyfunction]
pub(crate) fn link_tail<'py>(
    py: Python<'py>,
    sha256: &Bound<'py, PyAny>,
    previous: &Bound<'py, PyBytes>,
    head: u64,
    tail: &Bound<'py, PyList>,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyByteArray>)> {
    let mut last = previous.clone();
    let mut blob = Vec::with_capacity(64 * tail.len() + 512);
    header(&mut blob, tail.len(), Some((0x90, 16)), None, 0xdc);
    for (offset, record) in tail.iter().enumerate() {
        let (key, received, payload): (
            Bound<'py, PyString>,
            Bound<'py, PyString>,
            Bound<'py, PyBytes>,
        ) = record.extract()?;
        let (key, received, data) = (
            key.to_str()?.as_bytes(),
            received.to_str()?.as_bytes(),
            payload.as_bytes(),
        );
        let message = framed(py, last.as_bytes(), head + 1 + offset as u64, [key, received, data])?;
        let hashed = sha256.call1((message,))?;
        last = hashed
            .call_method0(intern!(py, "digest"))?
            .downcast_into::<PyBytes>()?;
        blob.push(0x93);
        write_str(&mut blob, key);
        write_str(&mut blob, received);
        write_bin(&mut blob, data);
    }
    Ok((last, PyByteArray::new_bound(py, &blob)))
}
