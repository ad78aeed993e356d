//! Reading amounts and dates the way invoices write them, for `compare: number | date`.

/// Reads an amount: `1 234,50`, `1,234.50`, `1.234,50`, `€1234.5`, `1234.50 EUR`, `-12`, `(12.50)`,
/// `1e3`. Anything else (`12 apples`, `5 or 6`, `1.2.3`) is not a number.
///
/// A currency sign or an ISO code (`EUR`, `usd`) may stand before or after the digits. Groups of
/// thousands are marked by one kind of separator (space, no-break space, `'`, `.` or `,`), every
/// group after the first having three digits. With both `.` and `,`, the last is the decimal
/// mark. A single `.` is the decimal mark (`1.234` is 1.234, as JSON writes it); a single `,`
/// before exactly three digits groups thousands (`1,234` is 1234), otherwise it is the decimal mark.
pub fn parse_number(text: &str) -> Option<f64> {
    let (negative, number) = signed(text)?;
    let value: f64 = number.parse().ok().filter(|v: &f64| v.is_finite())?;
    // `+ 0.0` reads `-0` as 0: a zero has no sign to compare or to show.
    Some(if negative { -value } else { value } + 0.0)
}

/// The sign and the digits of a number as [`parse_number`] reads it: `("1234.50", false)` for
/// `1 234,50 €`; scientific notation as written.
fn signed(text: &str) -> Option<(bool, String)> {
    let mut t = text.trim();
    let mut negative = false;
    if let Some(inner) = t.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
        t = inner.trim();
        negative = true;
    }
    t = strip_currency(t);
    if let Some(rest) = t.strip_prefix(['-', '−']) {
        negative = !negative;
        t = rest.trim_start();
    } else if let Some(rest) = t.strip_prefix('+') {
        t = rest.trim_start();
    } else if let Some(rest) = t.strip_suffix('-') {
        negative = !negative; // a trailing minus, as some ledgers print
        t = rest.trim_end();
    }
    t = strip_currency(t);
    Some((negative, body(t)?))
}

/// A number read exactly, as an integer count of `10^-scale`, when it is written without an
/// exponent and fits 38 digits: beyond 2^53 a float would read `9007199254740993` as
/// `9007199254740992`.
fn exact(text: &str) -> Option<(i128, u32)> {
    let (negative, number) = signed(text)?;
    if number.contains(['e', 'E']) {
        return None;
    }
    let (whole, fraction) = number.split_once('.').unwrap_or((&number, ""));
    if whole.len() + fraction.len() > 38 {
        return None;
    }
    let value: i128 = format!("{whole}{fraction}").parse().ok()?;
    Some((if negative { -value } else { value }, fraction.len() as u32))
}

/// `|a - b|` of two numbers computed exactly (then rounded once), when both are written without
/// an exponent in at most 38 digits; `None` otherwise.
pub fn exact_difference(a: &str, b: &str) -> Option<f64> {
    let ((x, sx), (y, sy)) = (exact(a)?, exact(b)?);
    let scale = sx.max(sy);
    let x = x.checked_mul(10i128.checked_pow(scale - sx)?)?;
    let y = y.checked_mul(10i128.checked_pow(scale - sy)?)?;
    let difference = x.checked_sub(y)?.unsigned_abs();
    Some(difference as f64 / 10f64.powi(scale as i32))
}

/// A number as a gold file writes it, its decimals kept: no currency, no group separators, `.` as
/// the decimal mark (`4,512.00 €` -> `4512.00`, `(12.50)` -> `-12.50`, `1e3` as written).
pub fn plain_number(text: &str) -> Option<String> {
    let (negative, number) = signed(text)?;
    let value: f64 = number.parse().ok().filter(|v: &f64| v.is_finite())?;
    // A zero has no sign to write (`-0.00` is `0.00`).
    let sign = if negative && value != 0.0 { "-" } else { "" };
    Some(format!("{sign}{number}"))
}

/// A number in one written form, exact: no group separators, `.` as the decimal mark, no
/// leading or trailing zeros, no sign on zero (`1 234,50 €` -> `1234.5`, `-0` -> `0`). Numbers in
/// scientific notation or of more than 38 digits take their shortest float form.
pub fn canonical_number(text: &str) -> Option<String> {
    let Some((value, scale)) = exact(text) else {
        return parse_number(text).map(|n| format!("{n}"));
    };
    let digits = value.unsigned_abs().to_string();
    let scale = scale as usize;
    let padded = format!("{digits:0>width$}", width = scale + 1);
    let (whole, fraction) = padded.split_at(padded.len() - scale);
    let fraction = fraction.trim_end_matches('0');
    let sign = if value < 0 { "-" } else { "" };
    Some(if fraction.is_empty() {
        format!("{sign}{whole}")
    } else {
        format!("{sign}{whole}.{fraction}")
    })
}

const ISO_CODES: [&str; 12] = [
    "eur", "usd", "gbp", "chf", "jpy", "cad", "aud", "cny", "inr", "sek", "nok", "dkk",
];

/// Drops one currency sign or code at the start and one at the end.
fn strip_currency(t: &str) -> &str {
    const SIGNS: [char; 8] = ['€', '$', '£', '¥', '₹', '₩', '₽', '¤'];
    let is_code = |w: &str| {
        (w.len() == 3 && w.chars().all(|c| c.is_ascii_uppercase()))
            || ISO_CODES.contains(&w.to_lowercase().as_str())
    };
    let mut t = t.trim();
    if let Some(rest) = t.strip_prefix(SIGNS) {
        t = rest.trim_start();
    } else {
        let word_end = t.find(|c: char| !c.is_alphabetic()).unwrap_or(t.len());
        if word_end < t.len() && is_code(&t[..word_end]) {
            t = t[word_end..].trim_start();
        }
    }
    if let Some(rest) = t.strip_suffix(SIGNS) {
        t = rest.trim_end();
    } else {
        let word_start = t
            .rfind(|c: char| !c.is_alphabetic())
            .map_or(0, |i| i + t[i..].chars().next().map_or(1, char::len_utf8));
        if word_start > 0 && is_code(&t[word_start..]) {
            t = t[..word_start].trim_end();
        }
    }
    t
}

/// Digits with their separators, or scientific notation: the number's digits with `.` as the
/// decimal mark, or the notation as written.
fn body(t: &str) -> Option<String> {
    if t.is_empty() {
        return None;
    }
    if t.contains(['e', 'E']) {
        let ok = t.chars().all(|c| c.is_ascii_digit() || "eE+-.".contains(c))
            && t.starts_with(|c: char| c.is_ascii_digit());
        return (ok && t.parse::<f64>().is_ok_and(f64::is_finite)).then(|| t.to_owned());
    }
    let is_space = |c: char| c == ' ' || c == '\u{a0}' || c == '\u{202f}' || c == '\u{2009}';
    let is_sep = |c: char| is_space(c) || matches!(c, '.' | ',' | '\'' | '’');
    if !t.chars().all(|c| c.is_ascii_digit() || is_sep(c))
        || !t.starts_with(|c: char| c.is_ascii_digit())
    {
        return None;
    }
    let kind = |c: char| {
        if is_space(c) {
            ' '
        } else if c == '’' {
            '\''
        } else {
            c
        }
    };
    let seps: Vec<(usize, char)> = t
        .char_indices()
        .filter(|(_, c)| is_sep(*c))
        .map(|(i, c)| (i, kind(c)))
        .collect();
    let Some(&(last_at, last)) = seps.last() else {
        return Some(t.to_owned());
    };
    let after_last = &t[last_at + t[last_at..].chars().next().map_or(1, char::len_utf8)..];
    let decimal_at = match last {
        '.' | ',' => {
            let others: Vec<char> = seps[..seps.len() - 1].iter().map(|(_, c)| *c).collect();
            if others.is_empty() {
                let before = &t[..last_at];
                let groups = last == ','
                    && after_last.len() == 3
                    && (1..=3).contains(&before.len())
                    && before != "0";
                (!groups).then_some(last_at)
            } else if others.iter().all(|&c| c == last) {
                None
            } else {
                Some(last_at)
            }
        }
        _ => None,
    };
    let (whole, fraction) = match decimal_at {
        Some(at) => (&t[..at], Some(after_last)),
        None => (t, None),
    };
    if fraction.is_some_and(|f| f.is_empty() || !f.chars().all(|c| c.is_ascii_digit())) {
        return None;
    }
    // The whole part: one kind of separator, groups of three after the first.
    let group_seps: Vec<char> = whole.chars().filter(|c| is_sep(*c)).map(kind).collect();
    if group_seps.windows(2).any(|w| w[0] != w[1]) {
        return None;
    }
    let groups: Vec<&str> = whole.split(is_sep).collect();
    if groups.len() > 1
        && !((1..=3).contains(&groups[0].len()) && groups[1..].iter().all(|g| g.len() == 3))
    {
        return None;
    }
    let digits: String = groups.concat();
    Some(match fraction {
        Some(f) => format!("{digits}.{f}"),
        None => digits,
    })
}

/// A calendar date.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Date {
    /// Year.
    pub year: i32,
    /// Month, 1 to 12.
    pub month: u32,
    /// Day, 1 to 31.
    pub day: u32,
}

impl std::fmt::Display for Date {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

const MONTHS: [(&str, u32); 41] = [
    ("january", 1),
    ("jan", 1),
    ("janvier", 1),
    ("janv", 1),
    ("february", 2),
    ("feb", 2),
    ("fevrier", 2),
    ("fev", 2),
    ("fevr", 2),
    ("march", 3),
    ("mar", 3),
    ("mars", 3),
    ("april", 4),
    ("apr", 4),
    ("avril", 4),
    ("avr", 4),
    ("may", 5),
    ("mai", 5),
    ("june", 6),
    ("jun", 6),
    ("juin", 6),
    ("july", 7),
    ("jul", 7),
    ("juillet", 7),
    ("juil", 7),
    ("august", 8),
    ("aug", 8),
    ("aout", 8),
    ("september", 9),
    ("sep", 9),
    ("sept", 9),
    ("septembre", 9),
    ("october", 10),
    ("oct", 10),
    ("octobre", 10),
    ("november", 11),
    ("nov", 11),
    ("novembre", 11),
    ("december", 12),
    ("dec", 12),
    ("decembre", 12),
];

const WEEKDAYS: [&str; 21] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "mon",
    "tue",
    "wed",
    "thu",
    "fri",
    "sat",
    "sun",
    "lundi",
    "mardi",
    "mercredi",
    "jeudi",
    "vendredi",
    "samedi",
    "dimanche",
];

/// Reads a date: ISO (`2024-03-05`, a time after it ignored), numeric day-first or month-first
/// (`05/03/2024`, `5.3.24`) as `day_first` says, and English or French month names
/// (`March 5, 2024`, `5 mars 2024`, `1er mars 2024`, `Tuesday, 5th March 2024`).
pub fn parse_date(text: &str, day_first: bool) -> Option<Date> {
    let folded = crate::base::normalize::Normalize::ALL.apply(text);
    let folded = folded.trim().trim_end_matches('.');
    if let Some(date) = iso(folded) {
        return Some(date);
    }
    let tokens: Vec<&str> = folded
        .split(|c: char| c.is_whitespace() || matches!(c, '/' | '.' | '-' | ','))
        .filter(|t| !t.is_empty() && !WEEKDAYS.contains(t))
        .collect();
    let month_at = tokens.iter().position(|t| month_name(t).is_some());
    let (year, month, day) = match (month_at, tokens.as_slice()) {
        (Some(1), [d, m, y]) => (year_of(y)?, month_name(m)?, day_of(d)?),
        (Some(0), [m, d, y]) => (year_of(y)?, month_name(m)?, day_of(d)?),
        (None, [a, b, y]) if y.len() == 4 || a.len() <= 2 => {
            let (d, m) = if day_first { (a, b) } else { (b, a) };
            (year_of(y)?, m.parse().ok()?, d.parse().ok()?)
        }
        _ => return None,
    };
    valid(year, month, day)
}

fn iso(text: &str) -> Option<Date> {
    let date = text.split(['t', ' ']).next()?;
    let parts: Vec<&str> = date.split(['-', '/']).collect();
    match parts.as_slice() {
        [y, m, d] if y.len() == 4 && y.chars().all(|c| c.is_ascii_digit()) => {
            valid(y.parse().ok()?, m.parse().ok()?, d.parse().ok()?)
        }
        _ => None,
    }
}

fn month_name(token: &str) -> Option<u32> {
    MONTHS
        .iter()
        .find(|(name, _)| *name == token)
        .map(|(_, m)| *m)
}

fn day_of(token: &str) -> Option<u32> {
    let digits = token.trim_end_matches(|c: char| c.is_alphabetic()); // 1st, 2nd, 1er
    digits.parse().ok()
}

fn year_of(token: &str) -> Option<i32> {
    let y: i32 = token.parse().ok()?;
    match token.len() {
        4 => Some(y),
        2 => Some(if y < 70 { 2000 + y } else { 1900 + y }),
        _ => None,
    }
}

fn valid(year: i32, month: u32, day: u32) -> Option<Date> {
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    (1..=days)
        .contains(&day)
        .then_some(Date { year, month, day })
}

/// An identifier as compared (`compare: identifier`): without whitespace and the separators
/// `-` `.` `/`, in capitals. `FR 32 123 456 789` and `fr32-123.456/789` are both `FR32123456789`.
pub fn identifier_key(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_whitespace() && !matches!(c, '-' | '.' | '/'))
        .flat_map(char::to_uppercase)
        .collect()
}

#[cfg(test)]
mod plain {
    use super::plain_number;

    #[test]
    fn a_number_is_written_plain_with_its_decimals() {
        for (written, plain) in [
            ("4,512.00", "4512.00"),
            ("1 234,50 €", "1234.50"),
            ("(12.50)", "-12.50"),
            ("EUR 7", "7"),
            ("-0.00", "0.00"),
            ("1e3", "1e3"),
        ] {
            assert_eq!(plain_number(written).as_deref(), Some(plain), "{written}");
        }
        assert_eq!(plain_number("12 apples"), None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_has_no_sign_and_long_integers_are_read_digit_for_digit() {
        assert_eq!(parse_number("-0").map(f64::to_bits), Some(0f64.to_bits()));
        assert_eq!(canonical_number("-0"), Some("0".into()));
        assert_eq!(canonical_number("-0,00 €"), Some("0".into()));
        assert_eq!(canonical_number("1 234,50 €"), Some("1234.5".into()));
        assert_eq!(canonical_number("(0173.100)"), Some("-173.1".into()));
        assert_eq!(canonical_number("0.05"), Some("0.05".into()));
        assert_eq!(canonical_number("1e3"), Some("1000".into()));
        // 2^53 + 1 is not 2^53, though both read as the same float.
        assert_eq!(
            canonical_number("9007199254740993"),
            Some("9007199254740993".into())
        );
        assert_eq!(
            parse_number("9007199254740993"),
            parse_number("9007199254740992")
        );
        assert_eq!(
            exact_difference("9007199254740993", "9007199254740992"),
            Some(1.0)
        );
        assert_eq!(exact_difference("1 234,50", "1234.4"), Some(0.1));
        assert_eq!(exact_difference("-0", "0"), Some(0.0));
        // Beyond 38 digits or in scientific notation: no exact difference.
        assert_eq!(exact_difference(&"9".repeat(39), "1"), None);
        assert_eq!(exact_difference("1e3", "1000"), None);
    }

    #[test]
    fn numbers() {
        let cases = [
            ("1234.50", Some(1234.5)),
            ("1 234,50", Some(1234.5)),
            ("1\u{202f}234,50 €", Some(1234.5)),
            ("$1,234,567.89", Some(1234567.89)),
            ("1.234.567", Some(1234567.0)),
            ("1,234", Some(1234.0)),
            ("1.234", Some(1.234)),
            ("12.345", Some(12.345)),
            ("1e3", Some(1000.0)),
            ("1.5e-07", Some(1.5e-7)),
            ("5 or 6", None),
            ("10 20", None),
            ("12 apples", None),
            ("1.2.3", None),
            ("1,23,4", None),
            ("abc100", None),
            ("100 usd", Some(100.0)),
            ("CHF 1'250.00", Some(1250.0)),
            ("12,5", Some(12.5)),
            ("0,125", Some(0.125)),
            ("1234,567", Some(1234.567)),
            ("-12.00", Some(-12.0)),
            ("12.00-", Some(-12.0)),
            ("−3", Some(-3.0)),
            ("EUR", None),
            ("", None),
            ("12/03", None),
        ];
        for (text, want) in cases {
            assert_eq!(parse_number(text), want, "{text:?}");
        }
    }

    #[test]
    fn dates() {
        let d = |y, m, day| {
            Some(Date {
                year: y,
                month: m,
                day,
            })
        };
        assert_eq!(parse_date("2024-03-05T10:00:00", false), d(2024, 3, 5));
        assert_eq!(parse_date("2024/03/05", true), d(2024, 3, 5));
        assert_eq!(parse_date("5.3.24", true), d(2024, 3, 5));
        assert_eq!(parse_date("Tuesday, March 5th, 2024", false), d(2024, 3, 5));
        assert_eq!(parse_date("mardi 5 mars 2024", true), d(2024, 3, 5));
        assert_eq!(parse_date("1er février 2024", true), d(2024, 2, 1));
        assert_eq!(parse_date("12 août 2024", true), d(2024, 8, 12));
        assert_eq!(parse_date("Dec. 25, 2023", false), d(2023, 12, 25));
        assert_eq!(parse_date("25 décembre 2023", true), d(2023, 12, 25));
        assert_eq!(parse_date("29/02/2023", true), None);
        assert_eq!(parse_date("soon", true), None);
    }
}

#[cfg(test)]
mod examples {
    use super::*;

    #[test]
    fn amounts_in_many_forms() {
        for text in [
            "1 234,50",
            "1,234.50",
            "1.234,50",
            "€1234.5",
            "1234.50 EUR",
            "1'234.50",
        ] {
            assert_eq!(parse_number(text), Some(1234.5), "{text}");
        }
        assert_eq!(parse_number("(12.50)"), Some(-12.5));
        assert_eq!(parse_number("0.125"), Some(0.125));
        assert_eq!(parse_number("12 apples"), None);
    }

    #[test]
    fn identifiers_ignore_case_spaces_and_separators() {
        assert_eq!(identifier_key("FR 32 123 456 789"), "FR32123456789");
        assert_eq!(identifier_key("fr32-123.456/789"), "FR32123456789");
        assert_ne!(identifier_key("FR32123456788"), "FR32123456789");
    }

    #[test]
    fn dates_in_many_forms() {
        let march_5 = Some(Date {
            year: 2024,
            month: 3,
            day: 5,
        });
        assert_eq!(parse_date("2024-03-05", false), march_5);
        assert_eq!(parse_date("05/03/2024", true), march_5);
        assert_eq!(parse_date("03/05/2024", false), march_5);
        assert_eq!(parse_date("March 5, 2024", false), march_5);
        assert_eq!(parse_date("5 mars 2024", false), march_5);
        assert_eq!(parse_date("31/02/2024", true), None);
    }
}
