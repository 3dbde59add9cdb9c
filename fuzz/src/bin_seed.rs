//! Writes the seeds of a target's corpus into the folder given:
//! `seed TARGET DIR` (typed_columns, derive_message or stream_reader).

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(target), Some(dir)) = (args.next(), args.next()) else {
        panic!("usage: seed TARGET DIR");
    };
    let seeds = match target.as_str() {
        "typed_columns" => xbf_fuzz::seeds(),
        "derive_message" => xbf_fuzz::message_seeds(),
        "stream_reader" => xbf_fuzz::stream_seeds(),
        other => panic!("no seeds for {other}"),
    };
    std::fs::create_dir_all(&dir).expect("corpus folder");
    for (i, s) in seeds.iter().enumerate() {
        std::fs::write(format!("{dir}/seed-{i}"), s).expect("seed written");
    }
}
