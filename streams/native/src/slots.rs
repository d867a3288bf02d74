//! `Builder(cls, given, defaults)`: a callable that makes `cls(*values)` for a frozen slotted
//! dataclass without its `__init__`, as `controller.fast.build.builder` does in Python: the
//! object allocated as `object.__new__(cls)` does (`tp_alloc`) and each slot set through its
//! own descriptor (`PyObject_GenericSetAttr` finds the member descriptor, skipping the class's
//! refusing `__setattr__`, as the Python builder's `descriptor.__set__` does). The Python side
//! (`streams.native.slot_builder`) hands in only the classes the Python builder vouches for;
//! `tests/streams/native/test_slots.py` requires the same objects field for field.
//!
//! The descriptor each name finds (the first class of the `__mro__` whose `__dict__` holds it, as
//! `PyObject_GenericSetAttr` looks) is looked up once, when the builder is made; a member
//! descriptor (a slot) is then set by calling its `tp_descr_set` directly, which is what
//! `PyObject_GenericSetAttr` does with it after its lookup; any other name keeps that call.
//!
//! `Builder.fast()` is the same builder as a builtin function of the `METH_FASTCALL` kind
//! (bound to the builder): the values come as the caller's own array, where `__call__` (PyO3's
//! `tp_call` under the stable ABI) packs them into a tuple first.
//!
//! An object whose every field is a string, bytes, an int (a bool too) or None is left
//! untracked by the cyclic collector, as CPython leaves a tuple or a dict of such values
//! (`_PyTuple_MaybeUntrack`): it refers to nothing that could lead back to it, so no cycle can
//! hold it and its reference count alone frees it. The engine's log records, answers and the
//! lock's contributions are such objects, ~3 a line kept until the batch is appended; tracked,
//! each young collection walked them (bench/PROPOSALS.md, "The hot line's glue"). Any other
//! value (a list, a tuple, an object) leaves the object tracked.
//!
//! The decision is made once, when the object is built: nothing re-tracks it if a slot is later
//! assigned a container (a slot set through its descriptor or `object.__setattr__` is not seen
//! here; CPython's own untracked tuples cannot change, and an untracked dict re-tracks itself on
//! such an insert, which a slot cannot). Such an object could then keep a cycle alive (a leak,
//! never a crash). So only classes whose slots are never assigned after the build, or assigned
//! only atomic values, may rely on this builder: the frozen dataclasses it is given (the
//! engine's `LogRecord`, `Outcome` and `ContributionRecorded`; `Output`, `SourcePos`,
//! `Processed` and the lanes' states of `streams.scaleout.records.fast_builder`), and `Claim` and
//! `Heard`
//! (`streams.scaleout.records.slot_setter`): each of those two gets an object at construction
//! (its claim, its source position), so it stays tracked, and `Claim.encoded` is later set only
//! to bytes. A class built here that assigns a container to a slot later must be tracked again
//! by whoever assigns it (`gc`'s objects cannot be re-tracked from Python: build it another way).

use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple, PyType};
use std::ptr;

#[pyclass(frozen, module = "jackpot_native")]
pub struct Builder {
    cls: Py<PyType>,
    given: Vec<Setter>,
    defaults: Vec<(Setter, PyObject)>,
    /// Whether every default is atomic (`atomic`): then the given values decide the untracking.
    defaults_atomic: bool,
    /// Where the given fields' and then the defaults' slots are in an object of ``cls`` (in
    /// pointer-sized words, `slot_words`), when every one is a slot found there: a new
    /// object's slots are then written in place, as the slot's `tp_descr_set` writes an empty
    /// slot (a reference taken, the pointer stored), without its checks and lookups a field
    /// (~60 instructions each, ~2.8 objects of ~4 fields a line; bench/PROPOSALS.md).
    words: Option<Vec<usize>>,
}

/// A value that refers to no other object the collector follows: exactly a string, bytes, an
/// int, a bool or None (`Builder`'s untracking, see the module's docstring).
///
/// # Safety
/// ``value`` must be a live object (the GIL held).
unsafe fn atomic(value: *mut ffi::PyObject) -> bool {
    value == ffi::Py_None()
        || ffi::PyUnicode_CheckExact(value) != 0
        || ffi::PyLong_CheckExact(value) != 0
        || ffi::PyBytes_CheckExact(value) != 0
        || ffi::PyBool_Check(value) != 0
}

/// How a field is set: its name, and its slot's member descriptor with that type's
/// `tp_descr_set`, if it is one.
struct Setter {
    name: Py<PyString>,
    slot: Option<(PyObject, ffi::descrsetfunc)>,
}

impl Setter {
    fn new(cls: &Bound<'_, PyType>, name: &str) -> PyResult<Self> {
        let py = cls.py();
        let slot = member_descriptor(cls, name)?.and_then(|found| {
            // SAFETY: `found`'s type is a live type object; the slot is a `descrsetfunc`.
            let set = unsafe {
                ffi::PyType_GetSlot(found.get_type().as_type_ptr(), ffi::Py_tp_descr_set)
            };
            // SAFETY: `Py_tp_descr_set` holds a `descrsetfunc`.
            let set = (!set.is_null())
                .then(|| unsafe { std::mem::transmute::<*mut _, ffi::descrsetfunc>(set) });
            set.map(|set| (found.unbind(), set))
        });
        Ok(Setter { name: PyString::intern_bound(py, name).unbind(), slot })
    }

    /// Set the field on ``made`` to ``value`` (live pointers); -1 with the error set if refused.
    unsafe fn set(&self, made: *mut ffi::PyObject, value: *mut ffi::PyObject) -> i32 {
        match &self.slot {
            Some((descriptor, set)) => set(descriptor.as_ptr(), made, value),
            None => ffi::PyObject_GenericSetAttr(made, self.name.as_ptr(), value),
        }
    }
}

/// Where the slots of ``setters`` are in an object of ``cls``, in pointer-sized words from its
/// start: each slot is set, through its own descriptor, on a new object (``tp_alloc``'s, all
/// zeros) to an object made for it, and looked for among the words after the object's header
/// and inside its ``__basicsize__``. None unless every setter is a slot's, takes the object
/// and is found at exactly one word, each at its own (else `Builder` keeps the descriptors).
fn slot_words(cls: &Bound<'_, PyType>, setters: &[&Setter]) -> PyResult<Option<Vec<usize>>> {
    if setters.iter().any(|setter| setter.slot.is_none()) {
        return Ok(None);
    }
    let py = cls.py();
    let word = std::mem::size_of::<*mut ffi::PyObject>();
    let words = cls.getattr("__basicsize__")?.extract::<usize>()? / word;
    let header = std::mem::size_of::<ffi::PyObject>() / word;
    // SAFETY: `cls` is a type object; the new reference is owned by `probe` from here.
    let probe = unsafe {
        let raw = ffi::PyType_GenericAlloc(cls.as_type_ptr(), 0);
        Bound::from_owned_ptr_or_err(py, raw)?
    };
    let marks: Vec<_> = setters.iter().map(|_| PyList::empty_bound(py)).collect();
    for (setter, mark) in setters.iter().zip(&marks) {
        // SAFETY: both pointers are live (held by `probe` and `marks`).
        if unsafe { setter.set(probe.as_ptr(), mark.as_ptr()) } < 0 {
            drop(PyErr::fetch(py)); // a slot that refuses an object: the descriptors' way
            return Ok(None);
        }
    }
    let base = probe.as_ptr().cast::<*mut ffi::PyObject>();
    let mut found: Vec<usize> = Vec::with_capacity(setters.len());
    for mark in &marks {
        // SAFETY: every word read is inside the object (`__basicsize__` bytes from `base`).
        let places: Vec<usize> =
            (header..words).filter(|&at| unsafe { *base.add(at) } == mark.as_ptr()).collect();
        match places[..] {
            [at] if !found.contains(&at) => found.push(at),
            _ => return Ok(None),
        }
    }
    Ok(Some(found)) // `probe` freed: its slots' references to `marks` dropped with it
}

/// The member descriptor (a slot) ``name`` finds on ``cls``: the first class of its `__mro__`
/// whose `__dict__` holds the name, as attribute access looks; None if that is anything else.
fn member_descriptor<'py>(
    cls: &Bound<'py, PyType>,
    name: &str,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let name = PyString::intern_bound(cls.py(), name);
    for klass in cls.getattr("__mro__")?.iter()? {
        let Some(found) = klass?.getattr("__dict__")?.get_item(&name).ok() else { continue };
        let member = found.get_type().name()? == "member_descriptor";
        return Ok(member.then_some(found));
    }
    Ok(None)
}

/// A slot read through its member descriptor's `tp_descr_get`, as attribute access reads it
/// after its lookup (a slotted class with no `__getattribute__` of its own).
pub(crate) struct Slot {
    descriptor: PyObject,
    get: ffi::descrgetfunc,
}

impl Slot {
    /// ``name``'s slot on ``cls``, or None if it is not one.
    pub(crate) fn get(cls: &Bound<'_, PyType>, name: &str) -> PyResult<Option<Self>> {
        let Some(found) = member_descriptor(cls, name)? else { return Ok(None) };
        // SAFETY: `found`'s type is a live type object; the slot is a `descrgetfunc`.
        let get =
            unsafe { ffi::PyType_GetSlot(found.get_type().as_type_ptr(), ffi::Py_tp_descr_get) };
        if get.is_null() {
            return Ok(None);
        }
        // SAFETY: `Py_tp_descr_get` holds a `descrgetfunc`.
        let get = unsafe { std::mem::transmute::<*mut _, ffi::descrgetfunc>(get) };
        Ok(Some(Slot { descriptor: found.unbind(), get }))
    }

    /// The slot's value on ``made``, or None with the error set (an unset slot).
    ///
    /// # Safety
    /// ``made`` must be an instance of exactly the class the slot was found on.
    pub(crate) unsafe fn read<'py>(&self, made: &Bound<'py, PyAny>) -> Option<Bound<'py, PyAny>> {
        let kind = made.get_type();
        let raw = (self.get)(self.descriptor.as_ptr(), made.as_ptr(), kind.as_ptr());
        Bound::from_owned_ptr_or_opt(made.py(), raw)
    }
}

#[pymethods]
impl Builder {
    #[new]
    fn new(
        cls: Bound<'_, PyType>,
        given: Vec<String>,
        defaults: Vec<(String, PyObject)>,
    ) -> PyResult<Self> {
        let given: Vec<Setter> =
            given.iter().map(|name| Setter::new(&cls, name)).collect::<PyResult<_>>()?;
        let defaults = defaults
            .into_iter()
            .map(|(name, value)| Ok((Setter::new(&cls, &name)?, value)))
            .collect::<PyResult<Vec<(Setter, PyObject)>>>()?;
        // SAFETY: each default is a live object held by `defaults`.
        let defaults_atomic = defaults.iter().all(|(_, value)| unsafe { atomic(value.as_ptr()) });
        let setters: Vec<&Setter> =
            given.iter().chain(defaults.iter().map(|(setter, _)| setter)).collect();
        let words = slot_words(&cls, &setters)?;
        Ok(Builder { cls: cls.unbind(), given, defaults, defaults_atomic, words })
    }

    #[pyo3(signature = (*values))]
    fn __call__(&self, py: Python<'_>, values: &Bound<'_, PyTuple>) -> PyResult<PyObject> {
        let pointers: Vec<*mut ffi::PyObject> = values.iter().map(|value| value.as_ptr()).collect();
        // SAFETY: each pointer is borrowed from `values`, alive for the call.
        unsafe { self.build(py, &pointers) }
    }

    /// Whether this builder writes a new object's slots in place (`slot_words` found each).
    #[getter]
    fn in_place(&self) -> bool {
        self.words.is_some()
    }

    /// This builder as a `METH_FASTCALL` builtin (see the module's docstring).
    fn fast(slf: &Bound<'_, Self>) -> PyResult<PyObject> {
        // SAFETY: `BUILD` is a static the interpreter only reads; the function holds its own
        // reference to `slf`, which `build_fast` reads as a `Builder`.
        unsafe {
            let raw =
                ffi::PyCFunction_NewEx(ptr::addr_of_mut!(BUILD), slf.as_ptr(), ptr::null_mut());
            Ok(Bound::from_owned_ptr_or_err(slf.py(), raw)?.unbind())
        }
    }
}

impl Builder {
    /// The object, from ``values`` (borrowed pointers, alive for the call).
    unsafe fn build(&self, py: Python<'_>, values: &[*mut ffi::PyObject]) -> PyResult<PyObject> {
        if values.len() != self.given.len() {
            return Err(PyTypeError::new_err(format!(
                "build() takes {} positional arguments but {} were given",
                self.given.len(),
                values.len()
            )));
        }
        // SAFETY: `cls` is a type object (checked by `new`'s conversion); the allocation's
        // reference is owned by `made` from here, and every pointer passed below is alive.
        let raw = ffi::PyType_GenericAlloc(self.cls.as_ptr().cast::<ffi::PyTypeObject>(), 0);
        let made: PyObject = Bound::from_owned_ptr_or_err(py, raw)?.unbind();
        if let Some(words) = &self.words {
            // the slots of a new object are empty: each takes a reference to its value
            let base = made.as_ptr().cast::<*mut ffi::PyObject>();
            let defaults = self.defaults.iter().map(|(_, value)| value.as_ptr());
            for (at, value) in words.iter().zip(values.iter().copied().chain(defaults)) {
                ffi::Py_INCREF(value);
                *base.add(*at) = value;
            }
        } else {
            self.set_each(py, made.as_ptr(), values)?;
        }
        if self.defaults_atomic
            && values.iter().all(|value| atomic(*value))
            && ffi::PyObject_GC_IsTracked(made.as_ptr()) != 0
        {
            ffi::PyObject_GC_UnTrack(made.as_ptr().cast());
        }
        Ok(made)
    }

    /// Each field set on ``made`` through its descriptor (`Setter::set`).
    unsafe fn set_each(
        &self,
        py: Python<'_>,
        made: *mut ffi::PyObject,
        values: &[*mut ffi::PyObject],
    ) -> PyResult<()> {
        for (setter, value) in self.given.iter().zip(values.iter()) {
            if setter.set(made, *value) < 0 {
                return Err(PyErr::fetch(py));
            }
        }
        for (setter, value) in &self.defaults {
            if setter.set(made, value.as_ptr()) < 0 {
                return Err(PyErr::fetch(py));
            }
        }
        Ok(())
    }
}

static mut BUILD: ffi::PyMethodDef = ffi::PyMethodDef {
    ml_name: c"build".as_ptr(),
    ml_meth: ffi::PyMethodDefPointer { _PyCFunctionFast: build_fast },
    ml_flags: ffi::METH_FASTCALL,
    ml_doc: ptr::null(),
};

/// `Builder.fast()`'s function: ``slf`` the builder, ``args`` the caller's ``nargs`` values.
unsafe extern "C" fn build_fast(
    slf: *mut ffi::PyObject,
    args: *mut *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
) -> *mut ffi::PyObject {
    // SAFETY: the interpreter holds the GIL and passes `nargs` live pointers; `slf` is the
    // `Builder` `fast` bound (its type checked by the downcast all the same).
    let py = Python::assume_gil_acquired();
    let owner = Bound::from_borrowed_ptr(py, slf);
    let Ok(builder) = owner.downcast::<Builder>() else {
        PyTypeError::new_err("build: not a Builder").restore(py);
        return ptr::null_mut();
    };
    let values: &[*mut ffi::PyObject] =
        if nargs <= 0 { &[] } else { std::slice::from_raw_parts(args, nargs as usize) };
    match builder.get().build(py, values) {
        Ok(made) => made.into_ptr(),
        Err(error) => {
            error.restore(py);
            ptr::null_mut()
        }
    }
}
