//! Column type inference shared by `xbf compare` and `xbf from-csv`: which
//! texts are numbers, and the narrowest integer type that holds a column.

use xbf::PrimitiveType;

/// What a column's values have all been so far.
#[derive(Clone, Copy)]
pub struct Inference {
    pub ints: bool,
    pub numbers: bool,
    pub bools: bool,
    pub min: i128,
    pub max: i128,
}

impl Inference {
    pub fn new() -> Self {
        Inference { ints: true, numbers: true, bools: true, min: 0, max: 0 }
    }

    pub fn not_number(&mut self) {
        self.ints = false;
        self.numbers = false;
    }

    pub fn int(&mut self, x: i128, first: bool) {
        self.bools = false;
        if first {
            (self.min, self.max) = (x, x);
        } else {
            self.min = self.min.min(x);
            self.max = self.max.max(x);
        }
    }

    /// The column type: the narrowest integer that holds every value, then
    /// f64, then bool, else string.
    pub fn column_type(&self) -> PrimitiveType {
        use PrimitiveType::*;
        if self.ints {
            let (lo, hi) = (self.min, self.max);
            if lo >= 0 {
                for (ty, max) in
                    [(U8, u8::MAX as i128), (U16, u16::MAX as i128), (U32, u32::MAX as i128), (U64, u64::MAX as i128)]
                {
                    if hi <= max {
                        return ty;
                    }
                }
            } else {
                for (ty, min, max) in [
                    (I8, i8::MIN as i128, i8::MAX as i128),
                    (I16, i16::MIN as i128, i16::MAX as i128),
                    (I32, i32::MIN as i128, i32::MAX as i128),
                    (I64, i64::MIN as i128, i64::MAX as i128),
                ] {
                    if lo >= min && hi <= max {
                        return ty;
                    }
                }
            }
        }
        if self.numbers {
            F64
        } else if self.bools {
            Bool
        } else {
            String
        }
    }
}

/// Whether `s` is a number as JSON writes one: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
/// Returns `Some(true)` for an integer (no fraction, no exponent). Leading
/// zeros (`007`), `+1`, `.5`, `inf` and `NaN` are not numbers, so codes such
/// as ZIP codes stay strings.
pub fn number_shape(s: &str) -> Option<bool> {
    let b = s.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    let int_start = i;
    let n = digits(&mut i);
    if n == 0 || (n > 1 && b[int_start] == b'0') {
        return None;
    }
    let mut integer = true;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        if digits(&mut i) == 0 {
            return None;
        }
        integer = false;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return None;
        }
        integer = false;
    }
    // "-0" is the float -0.0, as in JSON (SPEC.md §19): as an integer it
    // would lose its sign.
    (i == b.len()).then_some(integer && s != "-0")
}

/// Whether a number's text reads as an f64 that is the same number: finite,
/// and not a non-zero number that would become 0 (`1e-400`); a column with
/// one that is not stays text instead of changing silently.
pub fn exact_float(s: &str) -> bool {
    let Ok(x) = s.parse::<f64>() else { return false };
    let mantissa = s.split(['e', 'E']).next().unwrap_or(s);
    x.is_finite() && (x != 0.0 || !mantissa.bytes().any(|b| matches!(b, b'1'..=b'9')))
}

/// Infers a column's type from its CSV cells.
pub fn infer_text<'a>(cells: impl Iterator<Item = &'a str>) -> PrimitiveType {
    let mut inf = Inference::new();
    for (i, s) in cells.enumerate() {
        inf.push(s, i == 0);
        if !inf.ints && !inf.numbers && !inf.bools {
            break;
        }
    }
    inf.column_type()
}

impl Inference {
    /// Takes one more cell (`first` for a column's first), as `infer_text`
    /// does: for inferring a column cell by cell, as `from-csv` does on
    /// input of any size.
    pub fn push(&mut self, s: &str, first: bool) {
        if s != "true" && s != "false" {
            self.bools = false;
        }
        match number_shape(s) {
            Some(true) => match s.parse::<i128>() {
                Ok(x) if x >= i64::MIN as i128 && x <= u64::MAX as i128 => self.int(x, first),
                // Too wide for 64 bits: a float, if it is finite.
                _ => {
                    self.ints = false;
                    self.bools = false;
                    if !exact_float(s) {
                        self.numbers = false;
                    }
                }
            },
            Some(false) => {
                self.ints = false;
                self.bools = false;
                if !exact_float(s) {
                    self.numbers = false;
                }
            }
            None => self.not_number(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_shapes() {
        for (s, want) in [
            ("0", Some(true)),
            ("-12", Some(true)),
            ("2476.959961", Some(false)),
            ("1e5", Some(false)),
            ("-0.5E-3", Some(false)),
            ("007", None),
            ("+1", None),
            (".5", None),
            ("5.", None),
            ("", None),
            ("-", None),
            ("NaN", None),
            ("inf", None),
            ("1e", None),
            ("1 ", None),
        ] {
            assert_eq!(number_shape(s), want, "{s:?}");
        }
    }
}
