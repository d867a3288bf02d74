/work/main/streams/native/target/debug/deps/jackpot_native-a48777ecc24d5767.d: src/lib.rs src/contract.rs src/contribution.rs src/hot_decode.rs src/hot_entry.rs src/hot_line.rs src/kept.rs src/kinds.rs src/slots.rs src/tail.rs Cargo.toml

/work/main/streams/native/target/debug/deps/libjackpot_native-a48777ecc24d5767.rmeta: src/lib.rs src/contract.rs src/contribution.rs src/hot_decode.rs src/hot_entry.rs src/hot_line.rs src/kept.rs src/kinds.rs src/slots.rs src/tail.rs Cargo.toml

src/lib.rs:
src/contract.rs:
src/contribution.rs:
src/hot_decode.rs:
src/hot_entry.rs:
src/hot_line.rs:
src/kept.rs:
src/kinds.rs:
src/slots.rs:
src/tail.rs:
Cargo.toml:

# env-dep:CARGO_PKG_VERSION=0.1.0
# env-dep:CLIPPY_ARGS=
# env-dep:CLIPPY_CONF_DIR
