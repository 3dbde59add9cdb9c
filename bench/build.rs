//! Generates the FlatBuffers and Cap'n Proto code of bench/schema/ when their
//! features are on and their schema compilers (Debian packages
//! flatbuffers-compiler and capnproto) are installed; skips each cleanly,
//! with a warning, when its compiler is absent.

use std::process::Command;

fn have(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().map(|o| o.status.success()).unwrap_or(false)
}

fn main() {
    println!("cargo::rustc-check-cfg=cfg(has_flatc)");
    println!("cargo::rustc-check-cfg=cfg(has_capnp)");
    println!("cargo::rerun-if-changed=schema");
    println!("cargo::rerun-if-changed=build.rs");
    let out = std::env::var("OUT_DIR").expect("OUT_DIR");
    if std::env::var_os("CARGO_FEATURE_FLATBUFFERS").is_some() {
        if !have("flatc") {
            println!("cargo::warning=flatc not found (Debian package flatbuffers-compiler): FlatBuffers left out of this build");
        } else if Command::new("flatc")
            .args(["--rust", "-o", &out, "schema/records.fbs"])
            .status()
            .map(|s| s.success())
            .unwrap_or(false)
        {
            println!("cargo::rustc-cfg=has_flatc");
        } else {
            println!("cargo::warning=flatc failed on schema/records.fbs: FlatBuffers left out of this build");
        }
    }
    #[cfg(feature = "capnp")]
    {
        if !have("capnp") {
            println!("cargo::warning=capnp not found (Debian package capnproto): Cap'n Proto left out of this build");
        } else {
            match capnpc::CompilerCommand::new().src_prefix("schema").file("schema/records.capnp").run() {
                Ok(()) => println!("cargo::rustc-cfg=has_capnp"),
                Err(x) => println!(
                    "cargo::warning=capnp failed on schema/records.capnp ({x}): Cap'n Proto left out of this build"
                ),
            }
        }
    }
}
