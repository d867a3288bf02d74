//! `Builder(cls, given, defaults)`: a callable that makes `cls(*values)` for a frozen slotted
//! dataclass without its `__init__`, as `controller.fast.build.builder` does in Python: the
//! object allocated as `object.__new__(cls)` does (`tp_alloc`) and each slot set through its
//! own descriptor (`PyObject_GenericSetAttr` finds the member descriptor, skipping the class's
//! refusing `__setattr__`, as the Python builder's `descriptor.__set__` does). The Python side
//! (`streams.native.slot_builder`) hands in only the classes the Python builder vouches for;
//! `tests/streams/native/test_slots.py` requires the same objects field for field.

use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple, PyType};

#[pyclass(frozen, module = "jackpot_native")]
pub struct Builder {
    cls: Py<PyType>,
    given: Vec<Py<PyString>>,
    defaults: Vec<(Py<PyString>, PyObject)>,
}

#[pymethods]
impl Builder {
    #[new]
    fn new(
        py: Python<'_>,
        cls: Bound<'_, PyType>,
        given: Vec<String>,
        defaults: Vec<(String, PyObject)>,
    ) -> Self {
        let intern = |name: &str| PyString::intern_bound(py, name).unbind();
        Builder {
            cls: cls.unbind(),
            given: given.iter().map(|name| intern(name)).collect(),
            defaults: defaults.into_iter().map(|(name, value)| (intern(&name), value)).collect(),
        }
    }

    #[pyo3(signature = (*values))]
    fn __call__(&self, py: Python<'_>, values: &Bound<'_, PyTuple>) -> PyResult<PyObject> {
        if values.len() != self.given.len() {
            return Err(PyTypeError::new_err(format!(
                "build() takes {} positional arguments but {} were given",
                self.given.len(),
                values.len()
            )));
        }
        // SAFETY: `cls` is a type object (checked by `new`'s conversion); the allocation's
        // reference is owned by `made` from here, and every pointer passed below is alive.
        unsafe {
            let raw = ffi::PyType_GenericAlloc(self.cls.as_ptr().cast::<ffi::PyTypeObject>(), 0);
            let made: PyObject = Bound::from_owned_ptr_or_err(py, raw)?.unbind();
            for (name, value) in self.given.iter().zip(values.iter()) {
                if ffi::PyObject_GenericSetAttr(made.as_ptr(), name.as_ptr(), value.as_ptr()) < 0 {
                    return Err(PyErr::fetch(py));
                }
            }
            for (name, value) in &self.defaults {
                if ffi::PyObject_GenericSetAttr(made.as_ptr(), name.as_ptr(), value.as_ptr()) < 0 {
                    return Err(PyErr::fetch(py));
                }
            }
            Ok(made)
        }
    }
}
