//! PyO3's configuration flags (`Py_3_12`, `Py_LIMITED_API`, `PyPy`, ...) for
//! this crate's own code: `raw::small_int` reads CPython's int object, whose
//! layout changed in 3.12. And `dict_entries_in_place`, for the builds whose
//! dict layout `raw::DictEntries` reads: CPython 3.11 to 3.13 with the GIL
//! (the free-threaded build adds a lock to the keys object), not abi3.

fn main() {
    pyo3_build_config::use_pyo3_cfgs();
    println!("cargo:rustc-check-cfg=cfg(dict_entries_in_place)");
    let config = pyo3_build_config::get();
    let free_threaded = config.build_flags.0.iter().any(|f| f.to_string() == "Py_GIL_DISABLED");
    let abi3 = config.abi3 || std::env::var_os("CARGO_FEATURE_ABI3").is_some();
    let cpython = config.implementation == pyo3_build_config::PythonImplementation::CPython;
    let version = (config.version.major, config.version.minor);
    if cpython && !abi3 && !free_threaded && ((3, 11)..=(3, 13)).contains(&version) {
        println!("cargo:rustc-cfg=dict_entries_in_place");
    }
}
