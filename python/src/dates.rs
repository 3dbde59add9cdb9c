//! `datetime.date` and `datetime.datetime` made, recognised and taken apart
//! in one place, because the two builds reach them differently: a
//! version-specific build through PyO3's types over the `datetime` C API
//! (`PyDate`, `PyDateTime`), an abi3 build (feature `abi3`: Python's limited
//! API, one wheel for every Python from 3.10) through the `datetime`
//! module's classes, looked up once and cached, as PyO3 0.22 has no date
//! types under the limited API.

use pyo3::prelude::*;

#[cfg(not(feature = "abi3"))]
mod imp {
    use pyo3::prelude::*;
    use pyo3::types::{PyDate, PyDateAccess, PyDateTime, PyTimeAccess, PyTzInfo};

    use crate::pyobj::refs;

    pub(crate) fn is_date(obj: &Bound<'_, PyAny>) -> bool {
        obj.is_instance_of::<PyDate>()
    }

    pub(crate) fn is_datetime(obj: &Bound<'_, PyAny>) -> bool {
        obj.is_instance_of::<PyDateTime>()
    }

    pub(crate) fn new_date(py: Python<'_>, y: i32, m: u8, d: u8) -> PyResult<Bound<'_, PyAny>> {
        Ok(PyDate::new_bound(py, y, m, d)?.into_any())
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new_utc_datetime(
        py: Python<'_>,
        y: i32,
        mo: u8,
        d: u8,
        h: u8,
        mi: u8,
        s: u8,
        us: u32,
    ) -> PyResult<Bound<'_, PyAny>> {
        let utc = refs(py)?.utc.bind(py).downcast::<PyTzInfo>()?.clone();
        Ok(PyDateTime::new_bound(py, y, mo, d, h, mi, s, us, Some(&utc))?.into_any())
    }

    pub(crate) fn ymd(obj: &Bound<'_, PyAny>) -> PyResult<(i32, u8, u8)> {
        let d = obj.downcast::<PyDate>()?;
        Ok((d.get_year(), d.get_month(), d.get_day()))
    }

    pub(crate) fn hms_us(obj: &Bound<'_, PyAny>) -> PyResult<(u8, u8, u8, u32)> {
        let t = obj.downcast::<PyDateTime>()?;
        Ok((t.get_hour(), t.get_minute(), t.get_second(), t.get_microsecond()))
    }
}

#[cfg(feature = "abi3")]
mod imp {
    use pyo3::prelude::*;
    use pyo3::sync::GILOnceCell;
    use pyo3::types::PyType;

    use crate::pyobj::refs;

    /// `datetime.date` and `datetime.datetime`.
    static CLASSES: GILOnceCell<(Py<PyType>, Py<PyType>)> = GILOnceCell::new();

    fn classes(py: Python<'_>) -> PyResult<&(Py<PyType>, Py<PyType>)> {
        CLASSES.get_or_try_init(py, || {
            let m = py.import_bound("datetime")?;
            Ok((
                m.getattr("date")?.downcast_into::<PyType>()?.unbind(),
                m.getattr("datetime")?.downcast_into()?.unbind(),
            ))
        })
    }

    pub(crate) fn is_date(obj: &Bound<'_, PyAny>) -> bool {
        classes(obj.py()).is_ok_and(|c| obj.is_instance(c.0.bind(obj.py())).unwrap_or(false))
    }

    pub(crate) fn is_datetime(obj: &Bound<'_, PyAny>) -> bool {
        classes(obj.py()).is_ok_and(|c| obj.is_instance(c.1.bind(obj.py())).unwrap_or(false))
    }

    pub(crate) fn new_date(py: Python<'_>, y: i32, m: u8, d: u8) -> PyResult<Bound<'_, PyAny>> {
        classes(py)?.0.bind(py).call1((y, m, d))
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new_utc_datetime(
        py: Python<'_>,
        y: i32,
        mo: u8,
        d: u8,
        h: u8,
        mi: u8,
        s: u8,
        us: u32,
    ) -> PyResult<Bound<'_, PyAny>> {
        let utc = refs(py)?.utc.bind(py);
        classes(py)?.1.bind(py).call1((y, mo, d, h, mi, s, us, utc))
    }

    pub(crate) fn ymd(obj: &Bound<'_, PyAny>) -> PyResult<(i32, u8, u8)> {
        Ok((obj.getattr("year")?.extract()?, obj.getattr("month")?.extract()?, obj.getattr("day")?.extract()?))
    }

    pub(crate) fn hms_us(obj: &Bound<'_, PyAny>) -> PyResult<(u8, u8, u8, u32)> {
        Ok((
            obj.getattr("hour")?.extract()?,
            obj.getattr("minute")?.extract()?,
            obj.getattr("second")?.extract()?,
            obj.getattr("microsecond")?.extract()?,
        ))
    }
}

pub(crate) use imp::{hms_us, is_date, is_datetime, new_date, new_utc_datetime, ymd};

/// Whether `obj` is a date and not a datetime (a datetime is a date too).
pub(crate) fn is_plain_date(obj: &Bound<'_, PyAny>) -> bool {
    is_date(obj) && !is_datetime(obj)
}
