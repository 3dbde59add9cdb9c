//! Filters `FIELD OP VALUE` on record batches, with the file reader's
//! meaning (SPEC.md §24.4): a null never matches, a NaN matches only `!=`.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, Float64Type};
use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch, Scalar, StringArray};
use arrow_schema::{ArrowError, DataType};
use xbf::Op;

/// One filter: a dotted path through struct columns, an operator and the
/// value as text (read as the column's type: `300`, `SFO`, `2001-01-01`).
#[derive(Clone, Debug, PartialEq)]
pub struct Filter {
    /// The dotted path of the field.
    pub field: String,
    /// The comparison.
    pub op: Op,
    /// The value, as text.
    pub value: String,
}

impl Filter {
    /// A filter `field op value`.
    pub fn new(field: impl Into<String>, op: Op, value: impl Into<String>) -> Filter {
        Filter { field: field.into(), op, value: value.into() }
    }
}

fn column(batch: &RecordBatch, path: &str) -> Result<ArrayRef, ArrowError> {
    let mut parts = path.split('.');
    let first = parts.next().unwrap_or(path);
    let mut col = batch.column(batch.schema().index_of(first)?).clone();
    for part in parts {
        let s = col.as_struct_opt().ok_or_else(|| ArrowError::SchemaError(format!("{path}: not a struct path")))?;
        let mut child =
            s.column_by_name(part).ok_or_else(|| ArrowError::SchemaError(format!("{path}: no field {part}")))?.clone();
        // A null struct leaves its fields without a value.
        if let Some(n) = s.nulls() {
            child = arrow_select::nullif::nullif(&child, &BooleanArray::new(!n.inner(), None))?;
        }
        col = child;
    }
    Ok(col)
}

/// The mask of the rows of `batch` that match `f`.
pub fn matches(batch: &RecordBatch, f: &Filter) -> Result<BooleanArray, ArrowError> {
    let col = column(batch, &f.field)?;
    let dt = match col.data_type() {
        DataType::Dictionary(_, v) => (**v).clone(),
        other => other.clone(),
    };
    // Zones dropped, as when writing (a name needs a time zone database).
    let (dt, col) = (crate::from_arrow::naive(&dt), crate::from_arrow::without_zones(&col)?);
    let col = if &dt == col.data_type() { col } else { arrow_cast::cast(&col, &dt)? };
    let lit = arrow_cast::cast(&(Arc::new(StringArray::from(vec![f.value.as_str()])) as ArrayRef), &dt)?;
    if lit.is_null(0) {
        return Err(ArrowError::CastError(format!("{:?} is not a value of {dt} (field {})", f.value, f.field)));
    }
    let lit = Scalar::new(lit);
    let cmp = match f.op {
        Op::Eq => arrow_ord::cmp::eq(&col, &lit)?,
        Op::Ne => arrow_ord::cmp::neq(&col, &lit)?,
        Op::Lt => arrow_ord::cmp::lt(&col, &lit)?,
        Op::Le => arrow_ord::cmp::lt_eq(&col, &lit)?,
        Op::Gt => arrow_ord::cmp::gt(&col, &lit)?,
        Op::Ge => arrow_ord::cmp::gt_eq(&col, &lit)?,
    };
    // Arrow orders NaN above every number; the file reader's NaN matches `!=` only.
    let nan: Option<Vec<bool>> = match dt {
        DataType::Float32 => Some(col.as_primitive::<Float32Type>().values().iter().map(|x| x.is_nan()).collect()),
        DataType::Float64 => Some(col.as_primitive::<Float64Type>().values().iter().map(|x| x.is_nan()).collect()),
        _ => None,
    };
    Ok(BooleanArray::from_iter((0..cmp.len()).map(|i| {
        let is_nan = nan.as_ref().is_some_and(|n| n[i]);
        Some(cmp.is_valid(i) && if is_nan { f.op == Op::Ne } else { cmp.value(i) })
    })))
}

/// The rows of `batch` that match every filter.
pub fn filter_batch(batch: &RecordBatch, filters: &[Filter]) -> Result<RecordBatch, ArrowError> {
    if filters.is_empty() {
        return Ok(batch.clone());
    }
    let mut mask = matches(batch, &filters[0])?;
    for f in &filters[1..] {
        mask = arrow_arith_and(&mask, &matches(batch, f)?);
    }
    arrow_select::filter::filter_record_batch(batch, &mask)
}

fn arrow_arith_and(a: &BooleanArray, b: &BooleanArray) -> BooleanArray {
    BooleanArray::new(a.values() & b.values(), None)
}
