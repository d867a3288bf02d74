//! A measurement probe, not product code: what the embedded engine's hot line path (a round
//! opened, a wager) costs when parsing, checking, deciding, writing the payload, chaining and
//! inserting are all native, against Python's `SqliteLog.append` of one record an event.
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rusqlite::{params, Connection};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use std::collections::HashMap;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line<'a> {
    event_id: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
    table_id: &'a str,
    round_id: &'a str,
    seq: u64,
    occurred_at: &'a str,
    #[serde(default)]
    game: Option<&'a str>,
    #[serde(default)]
    seat: Option<u8>,
    #[serde(default)]
    wager: Option<&'a str>,
    #[serde(default)]
    amount: Option<&'a str>,
    #[serde(default)]
    on: Option<&'a str>,
    #[serde(default)]
    schema_version: Option<u8>,
}

struct Table {
    round_id: String,
    last_seq: u64,
    wagers: Vec<(u8, String, u64)>,
}

fn ident_ok(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-')
}

fn event_id_ok(s: &str) -> bool {
    !s.is_empty() && s.len() <= 128 && s.bytes().all(|b| (b'!'..=b'~').contains(&b) && b != b'"' && b != b'\\')
}

fn instant_ok(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 20
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b'T'
        && b[13] == b':'
        && b[16] == b':'
        && b[19] == b'Z'
        && [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18].iter().all(|&i| b[i].is_ascii_digit())
}

fn cents(s: &str) -> Option<u64> {
    let (whole, frac) = s.split_once('.')?;
    if frac.len() != 2 || whole.is_empty() || whole.len() > 9 || (whole.len() > 1 && whole.starts_with('0')) {
        return None;
    }
    let w: u64 = whole.parse().ok()?;
    let f: u64 = frac.parse().ok()?;
    let total = w * 100 + f;
    (total > 0).then_some(total)
}

fn wager_name_ok(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty() && b.len() <= 40 && b[0].is_ascii_lowercase()
        && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'_')
}

fn push_str(out: &mut Vec<u8>, key: &str, value: &str) {
    out.extend_from_slice(b"\"");
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(b"\":\"");
    out.extend_from_slice(value.as_bytes());
    out.extend_from_slice(b"\",");
}

fn push_int(out: &mut Vec<u8>, key: &str, value: u64) {
    out.extend_from_slice(b"\"");
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(b"\":");
    out.extend_from_slice(value.to_string().as_bytes());
    out.push(b',');
}

/// The payload `streams.codec.encode` writes for the accepted event: keys sorted, no spaces.
fn payload(line: &Line) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    out.push(b'{');
    if line.kind == "wager_placed" {
        push_str(&mut out, "amount", line.amount.unwrap_or(""));
        push_str(&mut out, "event_id", line.event_id);
        push_str(&mut out, "occurred_at", line.occurred_at);
        push_str(&mut out, "on", line.on.unwrap_or("own"));
        push_str(&mut out, "round_id", line.round_id);
        push_int(&mut out, "schema_version", u64::from(line.schema_version.unwrap_or(1)));
        push_int(&mut out, "seat", u64::from(line.seat.unwrap_or(0)));
        push_int(&mut out, "seq", line.seq);
        push_str(&mut out, "table_id", line.table_id);
        push_str(&mut out, "type", line.kind);
        push_str(&mut out, "wager", line.wager.unwrap_or(""));
    } else {
        push_str(&mut out, "event_id", line.event_id);
        push_str(&mut out, "game", line.game.unwrap_or(""));
        push_str(&mut out, "occurred_at", line.occurred_at);
        push_str(&mut out, "round_id", line.round_id);
        push_int(&mut out, "schema_version", u64::from(line.schema_version.unwrap_or(1)));
        push_int(&mut out, "seq", line.seq);
        push_str(&mut out, "table_id", line.table_id);
        push_str(&mut out, "type", line.kind);
    }
    out.pop();
    out.push(b'}');
    out
}

/// `streams.adapters.chain.link`.
fn link(previous: &[u8; 32], position: u64, key: &str, dedupe: &str, received: &str, payload: &[u8]) -> [u8; 32] {
    let at = position.to_string();
    let mut h = Sha256::new();
    h.update(previous);
    for n in [at.len(), key.len(), dedupe.len(), received.len(), payload.len()] {
        h.update((n as u64).to_be_bytes());
    }
    h.update(at.as_bytes());
    h.update(key.as_bytes());
    h.update(dedupe.as_bytes());
    h.update(received.as_bytes());
    h.update(payload);
    h.finalize().into()
}

fn decide(tables: &mut HashMap<String, Table>, line: &Line) -> Result<(), &'static str> {
    if !(event_id_ok(line.event_id) && ident_ok(line.table_id) && ident_ok(line.round_id) && instant_ok(line.occurred_at)) {
        return Err("contract");
    }
    match line.kind {
        "round_opened" => {
            let table = tables.entry(line.table_id.to_owned()).or_insert(Table { round_id: String::new(), last_seq: 0, wagers: Vec::new() });
            if line.seq <= table.last_seq && table.last_seq != 0 {
                return Err("stale seq");
            }
            table.round_id.clear();
            table.round_id.push_str(line.round_id);
            table.last_seq = line.seq;
            table.wagers.clear();
            Ok(())
        }
        "wager_placed" => {
            let table = tables.get_mut(line.table_id).ok_or("unknown table")?;
            if table.round_id != line.round_id {
                return Err("round not open");
            }
            if line.seq <= table.last_seq {
                return Err("stale seq");
            }
            let seat = line.seat.ok_or("no seat")?;
            let wager = line.wager.ok_or("no wager")?;
            let amount = cents(line.amount.ok_or("no amount")?).ok_or("amount")?;
            if !(1..=12).contains(&seat) || !wager_name_ok(wager) {
                return Err("contract");
            }
            table.last_seq = line.seq;
            table.wagers.push((seat, wager.to_owned(), amount));
            Ok(())
        }
        _ => Err("not a hot kind"),
    }
}

/// Ingest `lines` (round opened / wager placed) into a fresh SQLite log at `path` in batches of
/// `batch` (WAL, synchronous=FULL, one transaction per batch): parse, check, decide, write the
/// payload, chain and insert. Returns (accepted, refused, the last chain hash).
#[pyfunction]
fn ingest(py: Python<'_>, path: &str, lines: Vec<Vec<u8>>, batch: usize, received_at: &str) -> PyResult<(usize, usize, PyObject)> {
    let mut db = Connection::open(path).map_err(|e| PyValueError::new_err(e.to_string()))?;
    db.execute_batch(
        "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;
         CREATE TABLE IF NOT EXISTS log (position INTEGER PRIMARY KEY, key TEXT NOT NULL,
           payload BLOB NOT NULL, dedupe_id TEXT UNIQUE, received_at TEXT NOT NULL, chain BLOB NOT NULL);",
    ).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let (mut accepted, mut refused) = (0usize, 0usize);
    let mut last = [0u8; 32];
    let mut position = 0u64;
    let mut tables: HashMap<String, Table> = HashMap::new();
    for chunk in lines.chunks(batch) {
        let tx = db.transaction().map_err(|e| PyValueError::new_err(e.to_string()))?;
        {
            let mut insert = tx
                .prepare_cached("INSERT INTO log (position, key, payload, dedupe_id, received_at, chain) VALUES (?, ?, ?, ?, ?, ?)")
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            for raw in chunk {
                let line: Line = match serde_json::from_slice(raw) {
                    Ok(l) => l,
                    Err(_) => { refused += 1; continue; }
                };
                if decide(&mut tables, &line).is_err() { refused += 1; continue; }
                let body = payload(&line);
                position += 1;
                last = link(&last, position, line.table_id, line.event_id, received_at, &body);
                insert
                    .execute(params![position as i64, line.table_id, body, line.event_id, received_at, &last[..]])
                    .map_err(|e| PyValueError::new_err(e.to_string()))?;
                accepted += 1;
            }
        }
        tx.commit().map_err(|e| PyValueError::new_err(e.to_string()))?;
    }
    Ok((accepted, refused, PyBytes::new_bound(py, &last).into()))
}

/// Everything but SQLite: parse, check, decide, payload and chain hash of each line.
#[pyfunction]
fn decide_only(py: Python<'_>, lines: Vec<Vec<u8>>, received_at: &str) -> PyResult<(usize, PyObject)> {
    let mut tables: HashMap<String, Table> = HashMap::new();
    let (mut accepted, mut position, mut last) = (0usize, 0u64, [0u8; 32]);
    for raw in &lines {
        let Ok(line) = serde_json::from_slice::<Line>(raw) else { continue };
        if decide(&mut tables, &line).is_err() { continue; }
        let body = payload(&line);
        position += 1;
        last = link(&last, position, line.table_id, line.event_id, received_at, &body);
        accepted += 1;
    }
    Ok((accepted, PyBytes::new_bound(py, &last).into()))
}

/// The payload and chain alone for one line (to check the bytes against Python's).
#[pyfunction]
fn payload_of(py: Python<'_>, raw: Vec<u8>) -> PyResult<PyObject> {
    let line: Line = serde_json::from_slice(&raw).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(PyBytes::new_bound(py, &payload(&line)).into())
}

#[pymodule]
fn native_probe(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(ingest, m)?)?;
    m.add_function(wrap_pyfunction!(payload_of, m)?)?;
    m.add_function(wrap_pyfunction!(decide_only, m)?)?;
    Ok(())
}
