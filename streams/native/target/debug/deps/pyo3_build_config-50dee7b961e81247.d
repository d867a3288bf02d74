/work/main/streams/native/target/debug/deps/pyo3_build_config-50dee7b961e81247.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.22.6/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.22.6/src/errors.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.22.6/src/impl_.rs /work/main/streams/native/target/debug/build/pyo3-build-config-ef74cbee2a24954c/out/pyo3-build-config-file.txt /work/main/streams/native/target/debug/build/pyo3-build-config-ef74cbee2a24954c/out/pyo3-build-config.txt

/work/main/streams/native/target/debug/deps/libpyo3_build_config-50dee7b961e81247.rlib: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.22.6/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.22.6/src/errors.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.22.6/src/impl_.rs /work/main/streams/native/target/debug/build/pyo3-build-config-ef74cbee2a24954c/out/pyo3-build-config-file.txt /work/main/streams/native/target/debug/build/pyo3-build-config-ef74cbee2a24954c/out/pyo3-build-config.txt

/work/main/streams/native/target/debug/deps/libpyo3_build_config-50dee7b961e81247.rmeta: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.22.6/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.22.6/src/errors.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.22.6/src/impl_.rs /work/main/streams/native/target/debug/build/pyo3-build-config-ef74cbee2a24954c/out/pyo3-build-config-file.txt /work/main/streams/native/target/debug/build/pyo3-build-config-ef74cbee2a24954c/out/pyo3-build-config.txt

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.22.6/src/lib.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.22.6/src/errors.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.22.6/src/impl_.rs:
/work/main/streams/native/target/debug/build/pyo3-build-config-ef74cbee2a24954c/out/pyo3-build-config-file.txt:
/work/main/streams/native/target/debug/build/pyo3-build-config-ef74cbee2a24954c/out/pyo3-build-config.txt:

# env-dep:CARGO_PKG_VERSION=0.22.6
# env-dep:OUT_DIR=/work/main/streams/native/target/debug/build/pyo3-build-config-ef74cbee2a24954c/out
