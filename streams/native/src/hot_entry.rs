//! The hot decoder's builtins (`HotDecoder.fast()`, `fast_heads()` in `hot_decode.rs`): each a
//! `METH_O` function bound to the decoder, so a call is the interpreter's plain C call.

use crate::hot_decode::HotDecoder;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::ptr;

/// ``slf`` bound to ``method`` as a builtin.
pub(crate) fn builtin(slf: &Bound<'_, HotDecoder>, method: *mut ffi::PyMethodDef) -> PyResult<PyObject> {
    // SAFETY: ``method`` is a static the interpreter only reads; the function holds its own
    // reference to `slf`, which `decode_o` and `decode_heads_o` read as a `HotDecoder`.
    unsafe {
        let raw = ffi::PyCFunction_NewEx(method, slf.as_ptr(), ptr::null_mut());
        Ok(Bound::from_owned_ptr_or_err(slf.py(), raw)?.unbind())
    }
}

pub(crate) static mut DECODE: ffi::PyMethodDef = ffi::PyMethodDef {
    ml_name: c"decode".as_ptr(),
    ml_meth: ffi::PyMethodDefPointer { PyCFunction: decode_o },
    ml_flags: ffi::METH_O,
    ml_doc: ptr::null(),
};

pub(crate) static mut DECODE_HEADS: ffi::PyMethodDef = ffi::PyMethodDef {
    ml_name: c"decode_heads".as_ptr(),
    ml_meth: ffi::PyMethodDefPointer { PyCFunction: decode_heads_o },
    ml_flags: ffi::METH_O,
    ml_doc: ptr::null(),
};

/// `HotDecoder.fast()`'s function: ``slf`` the decoder, ``line`` the argument (anything but
/// bytes gives None).
unsafe extern "C" fn decode_o(
    slf: *mut ffi::PyObject,
    line: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    decode_with(slf, line, false)
}

/// `HotDecoder.fast_heads()`'s function, as `decode_o`.
unsafe extern "C" fn decode_heads_o(
    slf: *mut ffi::PyObject,
    line: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    decode_with(slf, line, true)
}

/// `decode_o`'s work, the head given too if ``heads``.
unsafe fn decode_with(
    slf: *mut ffi::PyObject,
    line: *mut ffi::PyObject,
    heads: bool,
) -> *mut ffi::PyObject {
    // SAFETY: the interpreter holds the GIL and passes live pointers; `slf` is the decoder
    // `fast` bound (its type checked by the downcast all the same).
    let py = Python::assume_gil_acquired();
    let owner = Bound::from_borrowed_ptr(py, slf);
    let argument = Bound::from_borrowed_ptr(py, line);
    let Ok(decoder) = owner.downcast::<HotDecoder>() else {
        pyo3::exceptions::PyTypeError::new_err("decode: not a HotDecoder").restore(py);
        return ptr::null_mut();
    };
    let Ok(bytes) = argument.downcast::<PyBytes>() else {
        return py.None().into_ptr();
    };
    match decoder.get().decode(py, bytes.as_bytes(), heads) {
        Ok(Some(pair)) => pair.into_ptr(),
        Ok(None) => py.None().into_ptr(),
        Err(error) => {
            error.restore(py);
            ptr::null_mut()
        }
    }
}
