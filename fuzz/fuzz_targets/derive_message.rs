//! Decodes arbitrary bytes as a whole message of `Vec<Rec>` with the
//! derived reader (`xbf::fast::from_slice`, `#[derive(Xbf)]`), rows or
//! columns, any header, and with the serde reader (`xbf::from_slice`).
//!
//! - Neither may panic, allocate without bound or hang.
//! - They accept the same inputs, with the same values. On rows they both
//!   refuse, the error kind, offset and path agree too; on columns the
//!   derived reader reads whole columns in field order and the serde one a
//!   column when a value first needs it, so only the refusal must agree.
//! - A value read re-encodes with the derived writer and reads back equal.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xbf_fuzz::Rec;

fuzz_target!(|data: &[u8]| {
    let columnar = data.first() == Some(&0xc2) && data.get(1).is_some_and(|f| f & 0x02 != 0);
    let derived = xbf::fast::from_slice::<Vec<Rec>>(data);
    let serde = xbf::from_slice::<Vec<Rec>>(data);
    match (&derived, &serde) {
        // Compared through the serde writer's rows: bit for bit, NaNs included.
        (Ok(a), Ok(b)) => assert_eq!(xbf::to_vec(a).unwrap(), xbf::to_vec(b).unwrap()),
        (Err(_), Err(_)) if columnar => {}
        (Err(e), Err(f)) => assert_eq!(
            (e.kind(), e.offset(), e.path_string()),
            (f.kind(), f.offset(), f.path_string()),
            "derived: {e}\nserde: {f}"
        ),
        (a, b) => panic!("derived {a:?}\nserde {b:?}"),
    }
    if let Ok(v) = &derived {
        let bytes = xbf::fast::to_vec(v).expect("a read value encodes");
        let back = xbf::fast::from_slice::<Vec<Rec>>(&bytes).expect("a written value reads");
        assert_eq!(xbf::to_vec(&back).unwrap(), xbf::to_vec(v).unwrap(), "a value changes through the writer");
    }
});
