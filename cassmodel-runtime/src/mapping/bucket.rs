//! The value of a bucket column (`#[cass(bucket(..))]`): the first day of its source's day,
//! week, month or year, or its source rounded down to a width; and the buckets after and
//! before it, which a read over a range of the source visits. Which Rust types are sources
//! is the type mapping's (`BucketSource`).

use chrono::{Datelike, Days, Months, NaiveDate};
use scylla::frame::response::result::ColumnType;
use scylla::serialize::SerializationError;
use scylla::serialize::value::SerializeValue;
use scylla::serialize::writers::{CellWriter, WrittenCellProof};

use cassmodel_schema::Period;

use crate::error::row::value_refused;
use crate::schema::model::BucketRule;

/// A bucket's value, as bound to the bucket column.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum BucketValue {
    /// A `date` bucket.
    Date(NaiveDate),
    /// A `bigint` bucket.
    BigInt(i64),
    /// The source value has no bucket (an integer too close to its type's limit).
    Overflow,
}

/// The most bytes a bucket writes: a `date` (4) or a `bigint` (8).
pub(crate) const BUCKET_SIZE_BOUND: usize = 8;

fn period_start(d: NaiveDate, p: Period) -> Option<NaiveDate> {
    match p {
        Period::Day => Some(d),
        Period::Week => {
            d.checked_sub_days(Days::new(u64::from(d.weekday().num_days_from_monday())))
        }
        Period::Month => NaiveDate::from_ymd_opt(d.year(), d.month(), 1),
        Period::Year => NaiveDate::from_ymd_opt(d.year(), 1, 1),
    }
}

impl BucketValue {
    /// Writes the bucket for a bind marker of type `typ`; [`Overflow`](Self::Overflow) is
    /// refused.
    pub(crate) fn write<'b>(
        &self,
        typ: &ColumnType<'_>,
        writer: CellWriter<'b>,
    ) -> Result<WrittenCellProof<'b>, SerializationError> {
        match self {
            BucketValue::Date(d) => SerializeValue::serialize(d, typ, writer),
            BucketValue::BigInt(n) => SerializeValue::serialize(n, typ, writer),
            BucketValue::Overflow => Err(value_refused(
                "bucket",
                "the value is too close to its type's limit to have a bucket of this width"
                    .to_owned(),
            )),
        }
    }

    pub(crate) fn of_date(d: NaiveDate, rule: BucketRule) -> BucketValue {
        match rule {
            BucketRule::Period(p) => {
                period_start(d, p).map_or(BucketValue::Overflow, BucketValue::Date)
            }
            BucketRule::Width(_) => BucketValue::Overflow,
        }
    }

    pub(crate) fn of_int(v: i64, rule: BucketRule) -> BucketValue {
        match rule {
            BucketRule::Width(w) if w > 0 => v
                .div_euclid(w)
                .checked_mul(w)
                .map_or(BucketValue::Overflow, BucketValue::BigInt),
            _ => BucketValue::Overflow,
        }
    }

    /// The next bucket (`forward`) or the previous one.
    pub(crate) fn step(self, rule: BucketRule, forward: bool) -> Option<BucketValue> {
        match (self, rule) {
            (BucketValue::Date(d), BucketRule::Period(p)) => {
                let d = match (p, forward) {
                    (Period::Day, true) => d.checked_add_days(Days::new(1)),
                    (Period::Day, false) => d.checked_sub_days(Days::new(1)),
                    (Period::Week, true) => d.checked_add_days(Days::new(7)),
                    (Period::Week, false) => d.checked_sub_days(Days::new(7)),
                    (Period::Month, true) => d.checked_add_months(Months::new(1)),
                    (Period::Month, false) => d.checked_sub_months(Months::new(1)),
                    (Period::Year, true) => d.checked_add_months(Months::new(12)),
                    (Period::Year, false) => d.checked_sub_months(Months::new(12)),
                };
                d.map(BucketValue::Date)
            }
            (BucketValue::BigInt(n), BucketRule::Width(w)) => {
                let n = if forward {
                    n.checked_add(w)
                } else {
                    n.checked_sub(w)
                };
                n.map(BucketValue::BigInt)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    #[test]
    fn time_buckets() {
        let d = date(2026, 11, 26); // a Thursday
        let b = |p| BucketValue::of_date(d, BucketRule::Period(p));
        assert_eq!(b(Period::Day), BucketValue::Date(d));
        assert_eq!(b(Period::Week), BucketValue::Date(date(2026, 11, 23)));
        assert_eq!(b(Period::Month), BucketValue::Date(date(2026, 11, 1)));
        assert_eq!(b(Period::Year), BucketValue::Date(date(2026, 1, 1)));
        let month = BucketRule::Period(Period::Month);
        let dec = BucketValue::Date(date(2026, 12, 1));
        assert_eq!(
            dec.step(month, true),
            Some(BucketValue::Date(date(2027, 1, 1)))
        );
        assert_eq!(
            BucketValue::Date(date(2027, 1, 1)).step(month, false),
            Some(dec)
        );
    }

    #[test]
    fn width_buckets() {
        let w = BucketRule::Width(1000);
        assert_eq!(BucketValue::of_int(1999, w), BucketValue::BigInt(1000));
        assert_eq!(BucketValue::of_int(-1, w), BucketValue::BigInt(-1000));
        assert_eq!(BucketValue::of_int(0, w), BucketValue::BigInt(0));
        assert_eq!(BucketValue::of_int(i64::MIN, w), BucketValue::Overflow);
        assert_eq!(
            BucketValue::BigInt(-1000).step(w, true),
            Some(BucketValue::BigInt(0))
        );
    }
}
