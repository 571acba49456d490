//! A driver value ([`CqlValue`]) written as a CQL literal, for messages and reports a user
//! pastes into `cqlsh`: `'O''Brien'`, `'2024-03-01'`, `0xcafe`, `{1.5: 2}`, `NaN`.
//!
//! Every literal reads back on the server as the same value (exactly: a float's shortest
//! round-trip digits, a decimal's unscaled digits and scale), including the values a
//! date-time library cannot hold: a `date` or `timestamp` outside the years 1 to 9999 is
//! written as the number CQL also accepts for it (the raw day number, with 2^31 as
//! 1970-01-01; the milliseconds since 1970).

use std::fmt::{self, Write};

use cassmodel_schema::quote_ident;
use chrono::{DateTime, Datelike, NaiveDate};
use scylla::frame::response::result::ColumnType;
use scylla::value::{CqlDate, CqlDecimal, CqlDuration, CqlTime, CqlTimestamp, CqlValue};

use super::reason::describe_type;

/// `value` as a CQL literal. `typ`, the value's column type where known, names the type of
/// an empty value (a zero-length value of a type other than text or blob, which has no literal
/// of its own): `blobAsInt(0x)`.
///
/// ```
/// # use cassmodel_runtime::__private::testing::cql_literal;
/// use cassmodel_runtime::scylla::value::{CqlDate, CqlValue};
///
/// let key = [CqlValue::Text("O'Brien".into()), CqlValue::Date(CqlDate((1 << 31) + 19_783))];
/// let key: Vec<String> = key.iter().map(|v| cql_literal(v, None)).collect();
/// assert_eq!(key.join(", "), "'O''Brien', '2024-03-01'");
/// ```
pub fn cql_literal(value: &CqlValue, typ: Option<&ColumnType<'_>>) -> String {
    let mut out = String::new();
    // Writing into a `String` does not fail.
    let _ = write_literal(&mut out, value, typ);
    out
}

/// The same, or `null` for a null value.
pub fn cql_literal_or_null(value: Option<&CqlValue>, typ: Option<&ColumnType<'_>>) -> String {
    value.map_or_else(|| "null".to_owned(), |v| cql_literal(v, typ))
}

/// Writes `value` as a CQL literal ([`cql_literal`]).
fn write_literal(out: &mut String, value: &CqlValue, typ: Option<&ColumnType<'_>>) -> fmt::Result {
    match value {
        CqlValue::Ascii(s) | CqlValue::Text(s) => string(out, s),
        CqlValue::Boolean(b) => write!(out, "{b}"),
        CqlValue::Blob(b) => blob(out, b),
        CqlValue::Counter(c) => write!(out, "{}", c.0),
        CqlValue::Decimal(d) => decimal(out, d),
        CqlValue::Date(d) => date(out, *d),
        CqlValue::Double(d) => float(out, &d.to_string(), d.is_nan(), d.is_infinite()),
        CqlValue::Float(f) => float(out, &f.to_string(), f.is_nan(), f.is_infinite()),
        CqlValue::Duration(d) => duration(out, *d),
        CqlValue::Empty => match typ {
            Some(t @ ColumnType::Native(_)) => write!(out, "blobAs{}(0x)", describe_type(t)),
            _ => out.write_str("0x"),
        },
        CqlValue::Int(i) => write!(out, "{i}"),
        CqlValue::BigInt(i) => write!(out, "{i}"),
        CqlValue::SmallInt(i) => write!(out, "{i}"),
        CqlValue::TinyInt(i) => write!(out, "{i}"),
        CqlValue::Varint(v) => out.write_str(&signed_decimal(v.as_signed_bytes_be_slice())),
        CqlValue::Timestamp(t) => timestamp(out, *t),
        CqlValue::Time(t) => time(out, *t),
        CqlValue::Inet(ip) => write!(out, "'{ip}'"),
        CqlValue::Uuid(u) => write!(out, "{u}"),
        CqlValue::Timeuuid(u) => write!(out, "{u}"),
        CqlValue::List(items) | CqlValue::Vector(items) => {
            sequence(out, '[', ']', items.iter().map(Some))
        }
        CqlValue::Set(items) => sequence(out, '{', '}', items.iter().map(Some)),
        CqlValue::Tuple(items) => sequence(out, '(', ')', items.iter().map(Option::as_ref)),
        CqlValue::Map(entries) => {
            out.write_char('{')?;
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.write_str(", ")?;
                }
                write_literal(out, k, None)?;
                out.write_str(": ")?;
                write_literal(out, v, None)?;
            }
            out.write_char('}')
        }
        CqlValue::UserDefinedType { fields, .. } => {
            out.write_char('{')?;
            for (i, (name, v)) in fields.iter().enumerate() {
                if i > 0 {
                    out.write_str(", ")?;
                }
                write!(out, "{}: ", quote_ident(name))?;
                match v {
                    Some(v) => write_literal(out, v, None)?,
                    None => out.write_str("null")?,
                }
            }
            out.write_char('}')
        }
        // `CqlValue` is `#[non_exhaustive]`: a kind of value a later driver adds is written
        // as the driver shows it.
        other => write!(out, "{other}"),
    }
}

/// `'text'`, a quote inside doubled.
fn string(out: &mut String, s: &str) -> fmt::Result {
    out.write_char('\'')?;
    out.write_str(&s.replace('\'', "''"))?;
    out.write_char('\'')
}

/// `0x` and the bytes in lower-case hex.
fn blob(out: &mut String, bytes: &[u8]) -> fmt::Result {
    out.write_str("0x")?;
    bytes.iter().try_for_each(|b| write!(out, "{b:02x}"))
}

/// `items` between `open` and `close`, separated by `, `; a missing item (a tuple's null
/// element) as `null`.
fn sequence<'a>(
    out: &mut String,
    open: char,
    close: char,
    items: impl Iterator<Item = Option<&'a CqlValue>>,
) -> fmt::Result {
    out.write_char(open)?;
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.write_str(", ")?;
        }
        match item {
            Some(v) => write_literal(out, v, None)?,
            None => out.write_str("null")?,
        }
    }
    out.write_char(close)
}

/// A `float` or `double` (`plain`, the Rust type's own `Display`: the shortest digits that
/// read back as the same value): `NaN`, `Infinity`, `-Infinity`, else those digits, in
/// exponent form when they would be long (`1e-40`, not 40 zeros), with `.0` on a whole number
/// (`2.0`).
fn float(out: &mut String, plain: &str, nan: bool, infinite: bool) -> fmt::Result {
    if nan {
        return out.write_str("NaN");
    }
    if infinite {
        return out.write_str(if plain.starts_with('-') {
            "-Infinity"
        } else {
            "Infinity"
        });
    }
    let digits = plain.chars().filter(char::is_ascii_digit).count();
    let significant = plain
        .trim_start_matches('-')
        .trim_start_matches(['0', '.'])
        .trim_end_matches(['0', '.'])
        .chars()
        .filter(char::is_ascii_digit)
        .count();
    if digits > significant + 6 {
        // Many zeros: `1.5e-30`, `1e300`. The exponent form of the same shortest digits.
        return out.write_str(&exponent_form(plain));
    }
    out.write_str(plain)?;
    if !plain.contains('.') {
        out.write_str(".0")?;
    }
    Ok(())
}

/// `plain` (a float's decimal digits, as Rust's `Display` writes them) in exponent form:
/// `0.00015` -> `1.5e-4`, `1500000` -> `1.5e6`.
fn exponent_form(plain: &str) -> String {
    let (sign, unsigned) = match plain.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", plain),
    };
    let (int, frac) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    let all: String = format!("{int}{frac}");
    let Some(first) = all.find(|c: char| c != '0') else {
        return format!("{sign}0.0");
    };
    let digits = all[first..].trim_end_matches('0');
    // The value is 0.<all> * 10^(int.len()); the first significant digit is at `first`.
    let exp = int.len() as i64 - first as i64 - 1;
    let (lead, rest) = digits.split_at(1);
    if rest.is_empty() {
        format!("{sign}{lead}e{exp}")
    } else {
        format!("{sign}{lead}.{rest}e{exp}")
    }
}

/// A big-endian two's-complement integer (a `varint`, a decimal's unscaled value) in decimal.
fn signed_decimal(bytes: &[u8]) -> String {
    let negative = bytes.first().is_some_and(|b| b & 0x80 != 0);
    // The magnitude, big-endian: the bytes themselves, or their two's complement.
    let mut magnitude: Vec<u8> = bytes.to_vec();
    if negative {
        for b in &mut magnitude {
            *b = !*b;
        }
        for b in magnitude.iter_mut().rev() {
            let (sum, carry) = b.overflowing_add(1);
            *b = sum;
            if !carry {
                break;
            }
        }
    }
    // Repeated division by 10: the decimal digits, last first.
    let mut digits = Vec::new();
    while magnitude.iter().any(|&b| b != 0) {
        let mut remainder = 0u32;
        for b in &mut magnitude {
            let cur = (remainder << 8) | u32::from(*b);
            *b = (cur / 10) as u8;
            remainder = cur % 10;
        }
        digits.push(char::from(b'0' + remainder as u8));
    }
    if digits.is_empty() {
        digits.push('0');
    }
    if negative {
        digits.push('-');
    }
    digits.iter().rev().collect()
}

/// A `decimal`: its unscaled digits with the point placed by the scale (`123.45`, `0.005`,
/// `1.50`), or in exponent form when the scale is negative or large (`12E+3`, `1E-40`),
/// which reads back with the same unscaled value and scale.
fn decimal(out: &mut String, d: &CqlDecimal) -> fmt::Result {
    let (bytes, scale) = d.as_signed_be_bytes_slice_and_exponent();
    let unscaled = signed_decimal(bytes);
    let (sign, digits) = match unscaled.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", unscaled.as_str()),
    };
    let scale = i64::from(scale);
    if scale == 0 {
        return write!(out, "{sign}{digits}");
    }
    if !(0..=32).contains(&scale) {
        // Java's BigDecimal reads `<unscaled>E<n>` as that unscaled value with scale -n.
        return write!(out, "{sign}{digits}E{:+}", -scale);
    }
    let scale = scale as usize;
    let padded = format!("{digits:0>width$}", width = scale + 1);
    let (int, frac) = padded.split_at(padded.len() - scale);
    write!(out, "{sign}{int}.{frac}")
}

/// Days from 0001-01-01 (`date`'s day 2^31 is 1970-01-01).
const EPOCH_DAY: i64 = 1 << 31;

/// A `date`: `'2024-03-01'` for the years 1 to 9999, else its raw day number (unsigned, 2^31
/// is 1970-01-01), which CQL takes for a date too.
fn date(out: &mut String, d: CqlDate) -> fmt::Result {
    let day = i64::from(d.0) - EPOCH_DAY;
    let written = NaiveDate::from_ymd_opt(1970, 1, 1)
        .and_then(|epoch| epoch.checked_add_signed(chrono::TimeDelta::try_days(day)?))
        .filter(|date| (1..=9999).contains(&date.year()));
    match written {
        Some(date) => write!(out, "'{}'", date.format("%Y-%m-%d")),
        None => write!(out, "{}", d.0),
    }
}

/// A `timestamp`: `'2024-03-01T10:00:00.000Z'` for the years 1 to 9999, else its
/// milliseconds since 1970-01-01, which CQL takes for a timestamp too.
fn timestamp(out: &mut String, t: CqlTimestamp) -> fmt::Result {
    match DateTime::from_timestamp_millis(t.0).filter(|d| (1..=9999).contains(&d.year())) {
        Some(d) => write!(out, "'{}'", d.format("%Y-%m-%dT%H:%M:%S%.3fZ")),
        None => write!(out, "{}", t.0),
    }
}

/// Nanoseconds in a day.
const NANOS_PER_DAY: i64 = 86_400_000_000_000;

/// A `time`: `'10:30:00.000000000'`; a value outside one day (which Cassandra refuses) as its
/// nanoseconds.
fn time(out: &mut String, t: CqlTime) -> fmt::Result {
    let n = t.0;
    if !(0..NANOS_PER_DAY).contains(&n) {
        return write!(out, "{n}");
    }
    write!(
        out,
        "'{:02}:{:02}:{:02}.{:09}'",
        n / 3_600_000_000_000,
        n / 60_000_000_000 % 60,
        n / 1_000_000_000 % 60,
        n % 1_000_000_000
    )
}

/// A `duration` in CQL's unit form: `1y2mo3d4h5m6s7ms8us9ns` (zero units left out, `0s` for
/// none), one sign in front (Cassandra keeps the three parts of a duration of one sign).
fn duration(out: &mut String, d: CqlDuration) -> fmt::Result {
    let negative = d.months < 0 || d.days < 0 || d.nanoseconds < 0;
    let mixed = negative && (d.months > 0 || d.days > 0 || d.nanoseconds > 0);
    if mixed {
        // Not a duration Cassandra stores; written part by part.
        return write!(out, "{}mo{}d{}ns", d.months, d.days, d.nanoseconds);
    }
    if negative {
        out.write_char('-')?;
    }
    let months = d.months.unsigned_abs();
    let days = d.days.unsigned_abs();
    let nanos = d.nanoseconds.unsigned_abs();
    let units: [(u64, &str); 9] = [
        (u64::from(months / 12), "y"),
        (u64::from(months % 12), "mo"),
        (u64::from(days), "d"),
        (nanos / 3_600_000_000_000, "h"),
        (nanos / 60_000_000_000 % 60, "m"),
        (nanos / 1_000_000_000 % 60, "s"),
        (nanos / 1_000_000 % 1_000, "ms"),
        (nanos / 1_000 % 1_000, "us"),
        (nanos % 1_000, "ns"),
    ];
    let mut any = false;
    for (n, unit) in units {
        if n > 0 {
            write!(out, "{n}{unit}")?;
            any = true;
        }
    }
    if !any {
        out.write_str("0s")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::net::IpAddr;

    use scylla::frame::response::result::NativeType;
    use scylla::value::{Counter, CqlTimeuuid, CqlVarint};

    use super::*;

    fn lit(v: CqlValue) -> String {
        cql_literal(&v, None)
    }

    fn varint(n: i128) -> CqlValue {
        CqlValue::Varint(CqlVarint::from_signed_bytes_be(n.to_be_bytes().to_vec()))
    }

    fn decimal(unscaled: i128, scale: i32) -> CqlValue {
        CqlValue::Decimal(CqlDecimal::from_signed_be_bytes_and_exponent(
            unscaled.to_be_bytes().to_vec(),
            scale,
        ))
    }

    #[test]
    fn text_is_quoted_with_quotes_doubled() {
        assert_eq!(lit(CqlValue::Text("plain".into())), "'plain'");
        assert_eq!(lit(CqlValue::Text("O'Brien's".into())), "'O''Brien''s'");
        assert_eq!(lit(CqlValue::Text("''".into())), "''''''");
        assert_eq!(lit(CqlValue::Text(String::new())), "''");
        assert_eq!(lit(CqlValue::Text("café, \"x\"".into())), "'café, \"x\"'");
        assert_eq!(lit(CqlValue::Ascii("a'b".into())), "'a''b'");
    }

    #[test]
    fn uuids_are_bare() {
        let u = uuid::Uuid::parse_str("da700000-1111-4222-8333-444455556666").expect("uuid");
        assert_eq!(
            lit(CqlValue::Uuid(u)),
            "da700000-1111-4222-8333-444455556666"
        );
        let t = uuid::Uuid::parse_str("8e14e760-7fa8-11eb-bc66-000000000001").expect("uuid");
        assert_eq!(
            lit(CqlValue::Timeuuid(CqlTimeuuid::from(t))),
            "8e14e760-7fa8-11eb-bc66-000000000001"
        );
    }

    #[test]
    fn integers() {
        assert_eq!(lit(CqlValue::Int(i32::MIN)), "-2147483648");
        assert_eq!(lit(CqlValue::BigInt(i64::MAX)), "9223372036854775807");
        assert_eq!(lit(CqlValue::SmallInt(-7)), "-7");
        assert_eq!(lit(CqlValue::TinyInt(i8::MIN)), "-128");
        assert_eq!(lit(CqlValue::Counter(Counter(42))), "42");
        for n in [
            0,
            1,
            -1,
            127,
            128,
            -128,
            -129,
            255,
            256,
            i128::from(i64::MAX) + 1,
            i128::MIN,
            i128::MAX,
        ] {
            assert_eq!(lit(varint(n)), n.to_string(), "varint {n}");
        }
        // The shortest encoding too, and an empty one (zero).
        let short = |b: &[u8]| lit(CqlValue::Varint(CqlVarint::from_signed_bytes_be_slice(b)));
        assert_eq!(short(&[0xff]), "-1");
        assert_eq!(short(&[0x00, 0x80]), "128");
        assert_eq!(short(&[]), "0");
    }

    #[test]
    fn decimals_keep_their_scale() {
        assert_eq!(lit(decimal(12345, 2)), "123.45");
        assert_eq!(lit(decimal(-12345, 2)), "-123.45");
        assert_eq!(lit(decimal(5, 3)), "0.005");
        assert_eq!(lit(decimal(-5, 3)), "-0.005");
        assert_eq!(lit(decimal(150, 2)), "1.50");
        assert_eq!(lit(decimal(0, 2)), "0.00");
        assert_eq!(lit(decimal(7, 0)), "7");
        assert_eq!(lit(decimal(12, -3)), "12E+3");
        assert_eq!(lit(decimal(-12, -3)), "-12E+3");
        assert_eq!(lit(decimal(1, 40)), "1E-40");
        assert_eq!(lit(decimal(1, i32::MIN)), "1E+2147483648");
        assert_eq!(lit(decimal(1, i32::MAX)), "1E-2147483647");
    }

    #[test]
    fn floats_read_back_exactly() {
        assert_eq!(lit(CqlValue::Double(1.5)), "1.5");
        assert_eq!(lit(CqlValue::Double(2.0)), "2.0");
        assert_eq!(lit(CqlValue::Double(-0.0)), "-0.0");
        assert_eq!(lit(CqlValue::Double(0.0)), "0.0");
        assert_eq!(lit(CqlValue::Double(0.1)), "0.1");
        assert_eq!(lit(CqlValue::Double(f64::NAN)), "NaN");
        assert_eq!(lit(CqlValue::Double(f64::INFINITY)), "Infinity");
        assert_eq!(lit(CqlValue::Double(f64::NEG_INFINITY)), "-Infinity");
        assert_eq!(lit(CqlValue::Double(f64::MAX)), "1.7976931348623157e308");
        assert_eq!(
            lit(CqlValue::Double(f64::MIN_POSITIVE)),
            "2.2250738585072014e-308"
        );
        assert_eq!(lit(CqlValue::Double(5e-324)), "5e-324");
        assert_eq!(lit(CqlValue::Double(1e10)), "1e10");
        assert_eq!(lit(CqlValue::Double(-0.00015)), "-0.00015");
        assert_eq!(lit(CqlValue::Double(1_500_000.0)), "1500000.0");
        assert_eq!(lit(CqlValue::Float(0.1)), "0.1");
        assert_eq!(lit(CqlValue::Float(-3.0)), "-3.0");
        assert_eq!(lit(CqlValue::Float(f32::NAN)), "NaN");
        assert_eq!(lit(CqlValue::Float(f32::NEG_INFINITY)), "-Infinity");
        assert_eq!(lit(CqlValue::Float(f32::MAX)), "3.4028235e38");
        assert_eq!(lit(CqlValue::Float(f32::MIN_POSITIVE)), "1.1754944e-38");
        // Every written float parses back to the same bits (the server parses the same
        // digits as Java's `Float.parseFloat` / `Double.parseDouble`).
        for v in [
            1.5f64,
            -0.0,
            1e-300,
            123_456.789,
            f64::MAX,
            f64::MIN,
            5e-324,
            0.3,
        ] {
            let text = lit(CqlValue::Double(v));
            let back: f64 = text.parse().expect("a number");
            assert_eq!(back.to_bits(), v.to_bits(), "{text}");
        }
        for v in [
            1.5f32,
            -0.0,
            1e-40,
            3.3,
            f32::MAX,
            f32::MIN_POSITIVE,
            16_777_217.0,
        ] {
            let text = lit(CqlValue::Float(v));
            let back: f32 = text.parse().expect("a number");
            assert_eq!(back.to_bits(), v.to_bits(), "{text}");
        }
    }

    #[test]
    fn booleans_and_inets_and_blobs() {
        assert_eq!(lit(CqlValue::Boolean(true)), "true");
        assert_eq!(lit(CqlValue::Boolean(false)), "false");
        assert_eq!(
            lit(CqlValue::Inet(IpAddr::from([10, 0, 0, 1]))),
            "'10.0.0.1'"
        );
        assert_eq!(
            lit(CqlValue::Inet(IpAddr::from([0u16, 0, 0, 0, 0, 0, 0, 1]))),
            "'::1'"
        );
        assert_eq!(
            lit(CqlValue::Blob(vec![0xca, 0xfe, 0x00, 0x0a])),
            "0xcafe000a"
        );
        assert_eq!(lit(CqlValue::Blob(vec![])), "0x");
    }

    #[test]
    fn empty_values_name_their_type() {
        let int = ColumnType::Native(NativeType::Int);
        assert_eq!(cql_literal(&CqlValue::Empty, Some(&int)), "blobAsint(0x)");
        assert_eq!(cql_literal(&CqlValue::Empty, None), "0x");
    }

    #[test]
    fn dates() {
        let day = |d: i64| lit(CqlValue::Date(CqlDate((EPOCH_DAY + d) as u32)));
        assert_eq!(day(0), "'1970-01-01'");
        assert_eq!(day(19_783), "'2024-03-01'");
        assert_eq!(day(-1), "'1969-12-31'");
        assert_eq!(day(-719_162), "'0001-01-01'");
        assert_eq!(day(2_932_896), "'9999-12-31'");
        // Outside the years 1 to 9999: the raw day number.
        assert_eq!(day(-719_163), (EPOCH_DAY - 719_163).to_string());
        assert_eq!(day(2_932_897), (EPOCH_DAY + 2_932_897).to_string());
        assert_eq!(lit(CqlValue::Date(CqlDate(0))), "0");
        assert_eq!(lit(CqlValue::Date(CqlDate(u32::MAX))), "4294967295");
    }

    #[test]
    fn timestamps() {
        let ts = |ms: i64| lit(CqlValue::Timestamp(CqlTimestamp(ms)));
        assert_eq!(ts(0), "'1970-01-01T00:00:00.000Z'");
        assert_eq!(ts(1_709_287_200_123), "'2024-03-01T10:00:00.123Z'");
        assert_eq!(ts(-1), "'1969-12-31T23:59:59.999Z'");
        assert_eq!(ts(253_402_300_799_999), "'9999-12-31T23:59:59.999Z'");
        assert_eq!(ts(253_402_300_800_000), "253402300800000");
        assert_eq!(ts(-62_135_596_800_000), "'0001-01-01T00:00:00.000Z'");
        assert_eq!(ts(-62_135_596_800_001), "-62135596800001");
        assert_eq!(ts(i64::MIN), i64::MIN.to_string());
        assert_eq!(ts(i64::MAX), i64::MAX.to_string());
    }

    #[test]
    fn times() {
        let t = |n: i64| lit(CqlValue::Time(CqlTime(n)));
        assert_eq!(t(0), "'00:00:00.000000000'");
        assert_eq!(t(NANOS_PER_DAY - 1), "'23:59:59.999999999'");
        assert_eq!(t(37_845_000_000_123), "'10:30:45.000000123'");
        assert_eq!(t(-1), "-1");
        assert_eq!(t(NANOS_PER_DAY), NANOS_PER_DAY.to_string());
    }

    #[test]
    fn durations() {
        let d = |months, days, nanoseconds| {
            lit(CqlValue::Duration(CqlDuration {
                months,
                days,
                nanoseconds,
            }))
        };
        assert_eq!(d(1, 2, 3), "1mo2d3ns");
        assert_eq!(d(14, 0, 0), "1y2mo");
        assert_eq!(d(0, 0, 0), "0s");
        assert_eq!(d(0, 0, 5_400_000_000_000), "1h30m");
        assert_eq!(d(0, 0, 1_001_001_001), "1s1ms1us1ns");
        assert_eq!(d(-1, -2, -3), "-1mo2d3ns");
        assert_eq!(d(0, -1, 0), "-1d");
        assert_eq!(
            d(i32::MIN, i32::MIN, i64::MIN),
            "-178956970y8mo2147483648d2562047h47m16s854ms775us808ns"
        );
        assert_eq!(d(1, -1, 0), "1mo-1d0ns");
    }

    #[test]
    fn collections_tuples_and_udts() {
        let int = CqlValue::Int;
        let text = |s: &str| CqlValue::Text(s.into());
        assert_eq!(lit(CqlValue::List(vec![int(1), int(2)])), "[1, 2]");
        assert_eq!(lit(CqlValue::List(vec![])), "[]");
        assert_eq!(
            lit(CqlValue::Set(vec![text("a'"), text("b")])),
            "{'a''', 'b'}"
        );
        assert_eq!(
            lit(CqlValue::Map(vec![
                (CqlValue::Float(1.5), int(2)),
                (CqlValue::Float(f32::NAN), int(3))
            ])),
            "{1.5: 2, NaN: 3}"
        );
        assert_eq!(
            lit(CqlValue::Tuple(vec![Some(int(1)), None, Some(text("x"))])),
            "(1, null, 'x')"
        );
        assert_eq!(
            lit(CqlValue::Vector(vec![
                CqlValue::Float(0.5),
                CqlValue::Float(-1.0)
            ])),
            "[0.5, -1.0]"
        );
        // Nested, and a UDT's field names quoted where CQL would change them.
        let udt = CqlValue::UserDefinedType {
            keyspace: "ks".into(),
            name: "addr".into(),
            fields: vec![
                ("street".into(), Some(text("Main"))),
                ("zipCode".into(), None),
                ("order".into(), Some(CqlValue::List(vec![int(1)]))),
            ],
        };
        assert_eq!(
            lit(udt.clone()),
            "{street: 'Main', \"zipCode\": null, \"order\": [1]}"
        );
        assert_eq!(
            lit(CqlValue::Map(vec![(text("home"), udt)])),
            "{'home': {street: 'Main', \"zipCode\": null, \"order\": [1]}}"
        );
        assert_eq!(cql_literal_or_null(None, None), "null");
    }
}
