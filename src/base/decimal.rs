//! Decimal numbers held exactly, at any length: what `compare: number`, the `number:` check and
//! `sum_of` compute with, so that two amounts that differ in their 40th digit, or a sum of parts
//! beyond a float's range, are never equal by rounding.
//!
//! A float reads `9007199254740993` as `9007199254740992` and `1e308 + 1e308` as infinity; a
//! tolerance compared with such values holds for numbers that differ. Here a number is its digits
//! and a power of ten, and sums and differences are computed digit by digit. The cost is linear in
//! the digits written (and in the distance between the exponents, bounded because a number in
//! scientific notation must be a finite, non-vanishing float to be read at all).

use std::cmp::Ordering;

/// A decimal number: `digits × 10^exponent`, negative or not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decimal {
    negative: bool,
    /// The significant digits, most significant first, each 0 to 9: no leading zero, no
    /// trailing zero (moved into `exponent`); empty for zero.
    digits: Vec<u8>,
    exponent: i64,
}

impl Decimal {
    /// Zero.
    pub const ZERO: Decimal = Decimal {
        negative: false,
        digits: Vec::new(),
        exponent: 0,
    };

    /// Reads a plain number as [`crate::base::typed`] leaves it: ASCII digits, at most one `.`,
    /// and an optional exponent (`1234.50`, `1.5e-7`); the sign given apart. `None` for any other
    /// text, and for an exponent that does not fit 64 bits.
    pub fn parse(negative: bool, text: &str) -> Option<Decimal> {
        let (mantissa, exponent) = match text.find(['e', 'E']) {
            Some(at) => (&text[..at], exponent_of(&text[at + 1..])?),
            None => (text, 0),
        };
        let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if whole.is_empty() || !all_digits(whole) || !all_digits(fraction) {
            return None;
        }
        let digits: Vec<u8> = whole
            .bytes()
            .chain(fraction.bytes())
            .map(|b| b - b'0')
            .collect();
        let exponent = exponent.checked_sub(i64::try_from(fraction.len()).ok()?)?;
        Some(Decimal::of(negative, digits, exponent))
    }

    /// The shortest decimal that reads back as `x` (Rust's `{:e}`): a tolerance written `0.01`
    /// is one hundredth, not the binary float nearest to it. `None` for a NaN or an infinity.
    pub fn from_f64(x: f64) -> Option<Decimal> {
        if !x.is_finite() {
            return None;
        }
        let text = format!("{:e}", x.abs());
        Decimal::parse(x.is_sign_negative(), &text)
    }

    /// Normalized: leading zeros dropped, trailing zeros moved into the exponent, zero unsigned.
    fn of(negative: bool, mut digits: Vec<u8>, mut exponent: i64) -> Decimal {
        let leading = digits.iter().take_while(|&&d| d == 0).count();
        digits.drain(..leading);
        while digits.last() == Some(&0) {
            digits.pop();
            exponent += 1;
        }
        if digits.is_empty() {
            return Decimal::ZERO;
        }
        Decimal {
            negative,
            digits,
            exponent,
        }
    }

    /// Whether it is zero.
    pub fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }

    /// Its absolute value.
    pub fn abs(&self) -> Decimal {
        Decimal {
            negative: false,
            ..self.clone()
        }
    }

    /// `self + other`, exactly.
    pub fn add(&self, other: &Decimal) -> Decimal {
        if self.is_zero() {
            return other.clone();
        }
        if other.is_zero() {
            return self.clone();
        }
        let exponent = self.exponent.min(other.exponent);
        let (a, b) = (self.aligned(exponent), other.aligned(exponent));
        if self.negative == other.negative {
            return Decimal::of(self.negative, plus(&a, &b), exponent);
        }
        match magnitude(&a, &b) {
            Ordering::Equal => Decimal::ZERO,
            Ordering::Greater => Decimal::of(self.negative, minus(&a, &b), exponent),
            Ordering::Less => Decimal::of(other.negative, minus(&b, &a), exponent),
        }
    }

    /// `self - other`, exactly.
    pub fn sub(&self, other: &Decimal) -> Decimal {
        let negated = Decimal {
            negative: !other.negative && !other.is_zero(),
            ..other.clone()
        };
        self.add(&negated)
    }

    /// The digits written out to `exponent` (no lower than its own): `12e1` to `0` is `[1, 2, 0]`.
    fn aligned(&self, exponent: i64) -> Vec<u8> {
        let zeros = usize::try_from(self.exponent - exponent).unwrap_or(0);
        let mut digits = self.digits.clone();
        digits.resize(digits.len() + zeros, 0);
        digits
    }

    #[cfg(test)]
    /// The nearest float (correctly rounded by the standard library's reading of the text);
    /// infinite beyond its range.
    pub fn to_f64(&self) -> f64 {
        if self.is_zero() {
            return 0.0;
        }
        let digits: String = self.digits.iter().map(|d| char::from(b'0' + d)).collect();
        let sign = if self.negative { "-" } else { "" };
        format!("{sign}{digits}e{}", self.exponent)
            .parse()
            .unwrap_or(f64::NAN)
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Decimal) -> Ordering {
        let sign = |d: &Decimal| match (d.is_zero(), d.negative) {
            (true, _) => 0,
            (false, true) => -1,
            (false, false) => 1,
        };
        match sign(self).cmp(&sign(other)) {
            Ordering::Equal if sign(self) == 0 => Ordering::Equal,
            Ordering::Equal => {
                let exponent = self.exponent.min(other.exponent);
                let order = magnitude(&self.aligned(exponent), &other.aligned(exponent));
                if self.negative {
                    order.reverse()
                } else {
                    order
                }
            }
            order => order,
        }
    }
}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Decimal) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Written in full, without exponent or group separators: `-1234.5`, `0.05`, `1000`.
impl std::fmt::Display for Decimal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_zero() {
            return f.write_str("0");
        }
        let digits: String = self.digits.iter().map(|d| char::from(b'0' + d)).collect();
        let sign = if self.negative { "-" } else { "" };
        let fraction = match usize::try_from(-self.exponent) {
            Ok(fraction) if fraction > 0 => fraction,
            _ => {
                let zeros = "0".repeat(usize::try_from(self.exponent).unwrap_or(0));
                return write!(f, "{sign}{digits}{zeros}");
            }
        };
        if fraction >= digits.len() {
            let zeros = "0".repeat(fraction - digits.len());
            write!(f, "{sign}0.{zeros}{digits}")
        } else {
            let (whole, rest) = digits.split_at(digits.len() - fraction);
            write!(f, "{sign}{whole}.{rest}")
        }
    }
}

/// An exponent as written after `e`: an optional sign and digits.
fn exponent_of(text: &str) -> Option<i64> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Which of two digit strings of one alignment is the larger (leading zeros allowed).
fn magnitude(a: &[u8], b: &[u8]) -> Ordering {
    let significant = |x: &[u8]| x.iter().position(|&d| d != 0).map_or(0, |i| x.len() - i);
    let (la, lb) = (significant(a), significant(b));
    la.cmp(&lb)
        .then_with(|| a[a.len() - la..].cmp(&b[b.len() - lb..]))
}

/// The digits of `a + b` (both aligned to one exponent).
fn plus(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(a.len().max(b.len()) + 1);
    let (mut a, mut b) = (a.iter().rev(), b.iter().rev());
    let mut carry = 0;
    loop {
        let (x, y) = (a.next(), b.next());
        if x.is_none() && y.is_none() {
            break;
        }
        let sum = x.copied().unwrap_or(0) + y.copied().unwrap_or(0) + carry;
        out.push(sum % 10);
        carry = sum / 10;
    }
    if carry > 0 {
        out.push(carry);
    }
    out.reverse();
    out
}

/// The digits of `a - b`, for `a ≥ b` (both aligned to one exponent).
fn minus(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(a.len());
    let mut b = b.iter().rev();
    let mut borrow = 0;
    for &x in a.iter().rev() {
        let y = b.next().copied().unwrap_or(0) + borrow;
        if x >= y {
            out.push(x - y);
            borrow = 0;
        } else {
            out.push(x + 10 - y);
            borrow = 1;
        }
    }
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::Decimal;

    fn d(text: &str) -> Decimal {
        match text.strip_prefix('-') {
            Some(rest) => Decimal::parse(true, rest),
            None => Decimal::parse(false, text),
        }
        .unwrap_or_else(|| panic!("{text} is a number"))
    }

    #[test]
    fn numbers_are_written_in_full_and_in_one_form() {
        for (text, written) in [
            ("1234.50", "1234.5"),
            ("0.050", "0.05"),
            ("1e3", "1000"),
            ("1.5e-7", "0.00000015"),
            ("000", "0"),
            ("-0.0", "0"),
            ("120", "120"),
            (
                "12345678901234567890123456789012345678901",
                "12345678901234567890123456789012345678901",
            ),
        ] {
            assert_eq!(d(text).to_string(), written, "{text}");
        }
        assert_eq!(Decimal::parse(false, "1.2.3"), None);
        assert_eq!(Decimal::parse(false, ".5"), None);
        assert_eq!(Decimal::parse(false, "1e"), None);
        assert_eq!(Decimal::parse(false, "1e99999999999999999999"), None);
    }

    #[test]
    fn sums_and_differences_are_exact_at_any_length() {
        let forty = "1234567890123456789012345678901234567890";
        let forty_one_more = "1234567890123456789012345678901234567891";
        assert_eq!(d(forty_one_more).sub(&d(forty)).to_string(), "1");
        assert_eq!(d(forty).sub(&d(forty_one_more)).to_string(), "-1");
        assert_eq!(d("0.1").add(&d("0.2")), d("0.3"));
        assert_eq!(
            d("1e308").add(&d("1e308")).to_string(),
            format!("2{}", "0".repeat(308))
        );
        assert_eq!(d("1e308").add(&d("1e308")).to_f64(), f64::INFINITY);
        assert_eq!(d("-12.5").add(&d("12.5")), Decimal::ZERO);
        assert_eq!(d("-12.5").add(&d("2.25")).to_string(), "-10.25");
        assert_eq!(d("999").add(&d("1")).to_string(), "1000");
        assert_eq!(d("1000").sub(&d("0.001")).to_string(), "999.999");
    }

    #[test]
    fn order_and_tolerances_are_read_as_written() {
        assert!(d("-2") < d("-1"));
        assert!(d("-1") < d("0"));
        assert!(d("0.01") < d("0.1"));
        assert!(d("1e3") == d("1000"));
        assert_eq!(Decimal::from_f64(0.01), Some(d("0.01")));
        assert_eq!(Decimal::from_f64(0.0), Some(Decimal::ZERO));
        assert_eq!(Decimal::from_f64(f64::INFINITY), None);
        assert_eq!(d("0.1").to_f64(), 0.1);
        assert_eq!(d("-9007199254740993").to_f64(), -9007199254740992.0);
    }
}
