//! Writes the seeds of the `typed_columns` corpus into the folder given.

fn main() {
    let dir = std::env::args().nth(1).expect("usage: seed_typed_columns DIR");
    std::fs::create_dir_all(&dir).expect("corpus folder");
    for (i, s) in xbf_fuzz::seeds().iter().enumerate() {
        std::fs::write(format!("{dir}/seed-{i}"), s).expect("seed written");
    }
}
