//! Projection: the fields a reader asked for ([`Selection`]), and the type
//! and value pruned down to them.

use std::collections::HashMap;
use std::sync::Arc;

use crate::metadata::{Metadata, StructMetadata};
use crate::value::{OptionValue, StructValue, Value, VecValue};

/// Which fields of a struct to decode; `None` at a place means all of it.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    pub(crate) fields: HashMap<String, Option<Selection>>,
}

impl Selection {
    /// Whether struct field `name` is read under `sel` (everything is, with
    /// no selection) and, if so, the selection inside it (`None`: all of it).
    pub(crate) fn pick<'a>(sel: Option<&'a Selection>, name: &str) -> Option<Option<&'a Selection>> {
        match sel {
            None => Some(None),
            Some(sel) => sel.fields.get(name).map(Option::as_ref),
        }
    }

    /// From dotted paths such as `features.properties.mag`: struct fields by
    /// name, through vecs, arrays and options transparently.
    pub fn from_paths<S: AsRef<str>>(paths: &[S]) -> Selection {
        let mut root = Selection::default();
        for path in paths {
            let mut at = &mut root;
            let parts: Vec<&str> = path.as_ref().split('.').collect();
            for (i, part) in parts.iter().enumerate() {
                let last = i + 1 == parts.len();
                let slot = at.fields.entry((*part).to_owned()).or_insert_with(|| Some(Selection::default()));
                if last {
                    *slot = None;
                    break;
                }
                match slot {
                    Some(next) => at = next,
                    None => break, // a shorter path already selects all of it
                }
            }
        }
        root
    }
}

/// The type that `sel` leaves of `ty`; `None` if it selects nothing.
pub(crate) fn prune_type(ty: &Metadata, sel: &Selection) -> Option<Metadata> {
    Some(match ty {
        Metadata::Struct(s) => {
            let mut fields = Vec::new();
            for (name, fty) in s.fields() {
                match sel.fields.get(name) {
                    Some(None) => fields.push((name, fty.clone())),
                    Some(Some(sub)) => fields.extend(prune_type(fty, sub).map(|t| (name, t))),
                    None => {}
                }
            }
            if fields.is_empty() {
                return None;
            }
            StructMetadata::new(s.name(), fields).expect("fields of a struct are unique").into()
        }
        Metadata::Vec(e) => Metadata::vec(prune_type(e, sel)?),
        Metadata::Array(a) => Metadata::array(a.len, prune_type(&a.element, sel)?),
        Metadata::Option(i) => Metadata::option(prune_type(i, sel)?),
        other => other.clone(),
    })
}

fn prune_value(v: &Value, pty: &Metadata, sel: &Selection) -> Value {
    match (v, pty) {
        (Value::Struct(s), Metadata::Struct(ps)) => {
            let vals: Box<[Value]> = ps
                .fields()
                .map(|(name, fty)| {
                    let fv = s.get(name).expect("a projected field is a field");
                    match sel.fields.get(name) {
                        Some(Some(sub)) => prune_value(fv, fty, sub),
                        _ => fv.clone(),
                    }
                })
                .collect();
            Value::Struct(StructValue::new_unchecked(ps.clone(), vals))
        }
        (Value::Vec(x), Metadata::Vec(e)) => {
            Value::Vec(VecValue::new_unchecked(e.clone(), x.items().iter().map(|i| prune_value(i, e, sel)).collect()))
        }
        (Value::Array(x), Metadata::Array(a)) => Value::Array(VecValue::new_unchecked(
            Arc::new(a.element.clone()),
            x.items().iter().map(|i| prune_value(i, &a.element, sel)).collect(),
        )),
        (Value::Option(o), Metadata::Option(i)) => {
            Value::Option(OptionValue::new_unchecked(i.clone(), o.value().map(|x| prune_value(x, i, sel))))
        }
        (other, _) => other.clone(),
    }
}

/// Keeps only what `sel` picks of a value of type `ty` (a no-op on what a
/// columnar decoder already projected); `None` if it picks nothing.
pub(crate) fn prune(ty: &Metadata, value: Value, sel: &Selection) -> Option<Value> {
    let pty = prune_type(ty, sel)?;
    if pty == *ty {
        return Some(value);
    }
    Some(prune_value(&value, &pty, sel))
}
