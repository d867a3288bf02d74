/work/main/streams/native/target/debug/deps/pyo3_macros-aa6eebb05055c28b.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-macros-0.22.6/src/lib.rs

/work/main/streams/native/target/debug/deps/libpyo3_macros-aa6eebb05055c28b.so: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-macros-0.22.6/src/lib.rs

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-macros-0.22.6/src/lib.rs:

# env-dep:CARGO_PKG_VERSION=0.22.6
