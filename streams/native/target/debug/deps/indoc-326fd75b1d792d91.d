/work/main/streams/native/target/debug/deps/indoc-326fd75b1d792d91.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/indoc-2.0.8/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/indoc-2.0.8/src/error.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/indoc-2.0.8/src/expr.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/indoc-2.0.8/src/unindent.rs

/work/main/streams/native/target/debug/deps/libindoc-326fd75b1d792d91.so: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/indoc-2.0.8/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/indoc-2.0.8/src/error.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/indoc-2.0.8/src/expr.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/indoc-2.0.8/src/unindent.rs

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/indoc-2.0.8/src/lib.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/indoc-2.0.8/src/error.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/indoc-2.0.8/src/expr.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/indoc-2.0.8/src/unindent.rs:
