//! Units of partition growth (`#[cass(expect(rows = .., per = "month", horizon = "5 years"))]`)
//! and the size of each CQL type on disk, shared by the derive (which checks them at compile
//! time) and the runtime's partition-size analysis.

use std::fmt;
use std::str::FromStr;

use crate::types::{CqlType, NativeType};

/// A calendar period: the unit of a growth rate, a horizon and a time bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Period {
    /// One day.
    Day,
    /// Seven days.
    Week,
    /// A calendar month (365.25 / 12 days on average).
    Month,
    /// A calendar year (365.25 days on average).
    Year,
}

impl Period {
    /// Every period, shortest first.
    pub const ALL: [Period; 4] = [Period::Day, Period::Week, Period::Month, Period::Year];

    /// The singular name (`day`, `week`, `month`, `year`).
    pub const fn name(self) -> &'static str {
        match self {
            Period::Day => "day",
            Period::Week => "week",
            Period::Month => "month",
            Period::Year => "year",
        }
    }

    /// Its average length in days.
    pub const fn days(self) -> f64 {
        match self {
            Period::Day => 1.0,
            Period::Week => 7.0,
            Period::Month => 365.25 / 12.0,
            Period::Year => 365.25,
        }
    }
}

impl fmt::Display for Period {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The message for a unit that is not a period.
pub const PERIODS: &str = "`day`, `week`, `month` or `year`";

impl FromStr for Period {
    type Err = String;

    /// `day`, `days`, `week`, ..., in any case.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim().to_ascii_lowercase();
        let t = t.strip_suffix('s').unwrap_or(&t);
        Period::ALL
            .into_iter()
            .find(|p| p.name() == t)
            .ok_or_else(|| format!("unknown unit `{s}`: expected {PERIODS}"))
    }
}

/// A length of time in whole periods, e.g. `5 years`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Span {
    /// How many periods (at least 1).
    pub amount: u32,
    /// Of which period.
    pub period: Period,
}

impl Span {
    /// Its average length in days.
    pub fn days(self) -> f64 {
        f64::from(self.amount) * self.period.days()
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = if self.amount == 1 { "" } else { "s" };
        write!(f, "{} {}{s}", self.amount, self.period)
    }
}

impl FromStr for Span {
    type Err = String;

    /// `"5 years"`, `"1 month"`, `"90 days"`: a positive whole number and a period.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let form = "write a positive whole number and a unit, e.g. \"5 years\" or \"90 days\"";
        let mut parts = s.split_whitespace();
        let (Some(n), Some(unit), None) = (parts.next(), parts.next(), parts.next()) else {
            return Err(format!("`{s}` is not a length of time: {form}"));
        };
        let amount: u32 = n
            .replace('_', "")
            .parse()
            .map_err(|_| format!("`{n}` in `{s}` is not a positive whole number: {form}"))?;
        if amount == 0 {
            return Err(format!("`{s}` is no time at all: {form}"));
        }
        let period = unit.parse().map_err(|e| format!("{e} in `{s}`"))?;
        Ok(Span { amount, period })
    }
}

/// Bytes on disk of a value of type `t` when the type fixes them (the serialized size; no
/// per-cell overhead), `None` when it varies with the value (text, blob, varint, decimal,
/// duration, collections) or depends on a user-defined type's fields (`udt` resolves those:
/// `None` if unknown).
pub fn fixed_size(t: &CqlType, udt: &dyn Fn(&str) -> Option<u64>) -> Option<u64> {
    use NativeType as N;
    match t {
        CqlType::Native(n) => match n {
            N::Boolean | N::Tinyint => Some(1),
            N::Smallint => Some(2),
            N::Int | N::Float | N::Date => Some(4),
            N::Bigint | N::Double | N::Timestamp | N::Time | N::Counter => Some(8),
            N::Uuid | N::Timeuuid | N::Inet => Some(16),
            N::Ascii | N::Text | N::Blob | N::Varint | N::Decimal | N::Duration => None,
        },
        CqlType::Frozen(inner) => fixed_size(inner, udt),
        // Each element of a tuple or UDT carries a 4-byte length.
        CqlType::Tuple(ts) => ts.iter().map(|t| fixed_size(t, udt).map(|n| n + 4)).sum(),
        CqlType::Udt(name) => udt(name),
        CqlType::Vector(elem, n) => fixed_size(elem, udt).map(|e| e * u64::from(*n)),
        CqlType::List(_) | CqlType::Set(_) | CqlType::Map(..) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_and_periods() {
        assert_eq!(
            "20 years".parse::<Span>(),
            Ok(Span {
                amount: 20,
                period: Period::Year
            })
        );
        assert_eq!(
            "1 Month".parse::<Span>().map(|s| s.period),
            Ok(Period::Month)
        );
        assert!("0 days".parse::<Span>().is_err());
        assert!("-3 days".parse::<Span>().is_err());
        assert!(
            "3 fortnights"
                .parse::<Span>()
                .unwrap_err()
                .contains("unknown unit")
        );
        assert!("years".parse::<Span>().is_err());
        assert_eq!("weeks".parse::<Period>(), Ok(Period::Week));
    }

    #[test]
    fn sizes() {
        let none = |_: &str| None;
        let t = |s: &str| fixed_size(&s.parse().unwrap(), &none);
        assert_eq!(t("int"), Some(4));
        assert_eq!(t("timestamp"), Some(8));
        assert_eq!(t("uuid"), Some(16));
        assert_eq!(t("text"), None);
        assert_eq!(t("map<uuid, int>"), None);
        assert_eq!(t("tuple<int, bigint>"), Some(20));
        assert_eq!(t("vector<float, 3>"), Some(12));
        assert_eq!(t("frozen<addr>"), None);
    }
}
