//! The hot kinds' fields (a round opened, a wager, the lock, a decision): each field's key,
//! JSON type, what the writer writes when the line leaves it out (`hot_line.rs`) and the
//! contract's check of its value (`hot_decode.rs`, `contract.rs`).

use crate::hot_line::{Absent, Ty};

/// What the contract requires of a field's value beyond its JSON type (`hot_decode.rs` checks
/// it; the payload writer does not read it).
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Check {
    /// The ``type`` tag (the kind itself).
    Tag,
    /// ``[!-~]{1,128}``.
    EventId,
    /// ``[A-Za-z0-9._-]{1,64}``.
    Ident,
    /// ``OCCURRED_AT_PATTERN`` and a real instant.
    Instant,
    /// 0 to 2^53-1.
    Seq,
    /// 1 or 2.
    Version,
    /// 1 to 12.
    Seat,
    /// One of the contract's games.
    Game,
    /// One of the contract's actions.
    Action,
    /// One of the contract's wager targets.
    Target,
    /// ``[a-z][a-z0-9_]{0,39}``.
    WagerName,
    /// ``AMOUNT_PATTERN``.
    Amount,
    /// At most 5 distinct cards, only with ``draw``.
    Discards,
}

/// A kind's fields, in the sorted order the writer writes them.
pub(crate) type Fields = &'static [(&'static [u8], Ty, Absent, Check)];

pub(crate) const OPENED: Fields = &[
    (b"event_id", Ty::Str, Absent::Required, Check::EventId),
    (b"game", Ty::Str, Absent::Required, Check::Game),
    (b"occurred_at", Ty::Str, Absent::Required, Check::Instant),
    (b"round_id", Ty::Str, Absent::Required, Check::Ident),
    (b"schema_version", Ty::Int, Absent::SchemaVersion, Check::Version),
    (b"seq", Ty::Int, Absent::Required, Check::Seq),
    (b"table_id", Ty::Str, Absent::Required, Check::Ident),
    (b"type", Ty::Str, Absent::Required, Check::Tag),
];
pub(crate) const WAGER: Fields = &[
    (b"amount", Ty::Str, Absent::Required, Check::Amount),
    (b"event_id", Ty::Str, Absent::Required, Check::EventId),
    (b"occurred_at", Ty::Str, Absent::Required, Check::Instant),
    (b"on", Ty::Str, Absent::Own, Check::Target),
    (b"round_id", Ty::Str, Absent::Required, Check::Ident),
    (b"schema_version", Ty::Int, Absent::SchemaVersion, Check::Version),
    (b"seat", Ty::Int, Absent::Required, Check::Seat),
    (b"seq", Ty::Int, Absent::Required, Check::Seq),
    (b"table_id", Ty::Str, Absent::Required, Check::Ident),
    (b"type", Ty::Str, Absent::Required, Check::Tag),
    (b"wager", Ty::Str, Absent::Required, Check::WagerName),
];
pub(crate) const LOCKED: Fields = &[
    (b"event_id", Ty::Str, Absent::Required, Check::EventId),
    (b"occurred_at", Ty::Str, Absent::Required, Check::Instant),
    (b"round_id", Ty::Str, Absent::Required, Check::Ident),
    (b"schema_version", Ty::Int, Absent::SchemaVersion, Check::Version),
    (b"seq", Ty::Int, Absent::Required, Check::Seq),
    (b"table_id", Ty::Str, Absent::Required, Check::Ident),
    (b"type", Ty::Str, Absent::Required, Check::Tag),
];
pub(crate) const DECISION: Fields = &[
    (b"action", Ty::Str, Absent::Required, Check::Action),
    (b"amount", Ty::Str, Absent::Omitted, Check::Amount),
    (b"discards", Ty::Arr, Absent::Omitted, Check::Discards),
    (b"event_id", Ty::Str, Absent::Required, Check::EventId),
    (b"occurred_at", Ty::Str, Absent::Required, Check::Instant),
    (b"round_id", Ty::Str, Absent::Required, Check::Ident),
    (b"schema_version", Ty::Int, Absent::SchemaVersion, Check::Version),
    (b"seat", Ty::Int, Absent::Required, Check::Seat),
    (b"seq", Ty::Int, Absent::Required, Check::Seq),
    (b"table_id", Ty::Str, Absent::Required, Check::Ident),
    (b"type", Ty::Str, Absent::Required, Check::Tag),
];
/// The hot kinds, in the order `kind_of` numbers them.
pub(crate) const KINDS: [Fields; 4] = [OPENED, WAGER, LOCKED, DECISION];
