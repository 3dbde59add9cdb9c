//! PyO3's configuration flags (`Py_3_12`, `Py_LIMITED_API`, `PyPy`, ...) for
//! this crate's own code: `raw::small_int` reads CPython's int object, whose
//! layout changed in 3.12.

fn main() {
    pyo3_build_config::use_pyo3_cfgs();
}
