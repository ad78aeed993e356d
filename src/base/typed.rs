//! Reading amounts and dates the way invoices write them, for `compare: number | date`.

use crate::base::decimal::Decimal;

/// Reads an amount, exactly (see [`Decimal`]): `1 234,50`, `1,234.50`, `1.234,50`, `€1234.5`, `1234.50 EUR`, `-12`, `(12.50)`,
/// `1e3`. Anything else (`12 apples`, `5 or 6`, `1.2.3`) is not a number.
///
/// A currency sign or an ISO code (`EUR`, `usd`) may stand before or after the digits. Groups of
/// thousands are marked by one kind of separator (space, no-break space, `'`, `.` or `,`), every
/// group after the first having three digits. With both `.` and `,`, the last is the decimal
/// mark. A single `.` is the decimal mark (`1.234` is 1.234, as JSON writes it); a single `,`
/// before exactly three digits groups thousands (`1,234` is 1234), otherwise it is the decimal mark.
pub fn read_number(text: &str) -> Option<Decimal> {
    let (negative, number) = signed(text)?;
    // Amounts, identifiers and counts are written in far fewer digits; a longer run of digits
    // is no amount, and reading it as one would only make every message that shows it long.
    if number.len() > MOST_DIGITS {
        return None;
    }
    Decimal::parse(negative, &number)
}

/// The most characters a number's digits may take to be read as a number (1,000).
pub const MOST_DIGITS: usize = 1_000;

/// The sign and the digits of a number as [`read_number`] reads it: `("1234.50", false)` for
/// `1 234,50 €`; scientific notation as written.
fn signed(text: &str) -> Option<(bool, String)> {
    let mut t = text.trim();
    // Accounting parentheses and a minus say one thing, negative: `(-12.50)` is -12.50, as
    // the ledgers that write both mean it, never +12.50 by two signs cancelling.
    let mut negative = false;
    if let Some(inner) = t.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
        t = inner.trim();
        negative = true;
    }
    t = strip_currency(t);
    if let Some(rest) = t.strip_prefix(['-', '−']) {
        negative = true;
        t = rest.trim_start();
    } else if let Some(rest) = t.strip_prefix('+') {
        t = rest.trim_start();
    } else if let Some(rest) = t.strip_suffix('-') {
        negative = true; // a trailing minus, as some ledgers print
        t = rest.trim_end();
    }
    t = strip_currency(t);
    Some((negative, body(t)?))
}

/// A number as a gold file writes it, its decimals kept: no currency, no group separators, `.` as
/// the decimal mark (`4,512.00 €` -> `4512.00`, `(12.50)` -> `-12.50`, `1e3` as written).
pub fn plain_number(text: &str) -> Option<String> {
    let (negative, number) = signed(text)?;
    // A zero has no sign to write (`-0.00` is `0.00`).
    let sign = if Decimal::parse(negative, &number)?.is_zero() || !negative {
        ""
    } else {
        "-"
    };
    Some(format!("{sign}{number}"))
}

/// A number in one written form, exact: no group separators, `.` as the decimal mark, no
/// exponent, no leading or trailing zeros, no sign on zero (`1 234,50 €` -> `1234.5`, `-0` ->
/// `0`, `1e3` -> `1000`), every digit kept at any length.
pub fn canonical_number(text: &str) -> Option<String> {
    read_number(text).map(|n| n.to_string())
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

/// A number in scientific notation, as written, when it is a finite float that does not vanish:
/// `1e999` and `1e-999` are no amounts, and the exponent of what is read stays within what a
/// float can say (sums stay cheap).
fn scientific(t: &str) -> Option<String> {
    let ok = t.chars().all(|c| c.is_ascii_digit() || "eE+-.".contains(c))
        && t.starts_with(|c: char| c.is_ascii_digit());
    let mantissa_is_zero = t
        .split(['e', 'E'])
        .next()
        .is_some_and(|m| m.chars().all(|c| c == '0' || c == '.'));
    let fits = t
        .parse::<f64>()
        .is_ok_and(|v| v.is_finite() && (v != 0.0 || mantissa_is_zero));
    (ok && fits).then(|| t.to_owned())
}

/// Digits with their separators, or scientific notation: the number's digits with `.` as the
/// decimal mark, or the notation as written.
fn body(t: &str) -> Option<String> {
    if t.is_empty() {
        return None;
    }
    if t.contains(['e', 'E']) {
        return scientific(t);
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
    // Every date has digits (its year, its day): ASCII text without one is none, and folding
    // ASCII adds no digit. (Other text is folded first: `２０２４` reads as 2024.)
    if text.is_ascii() && !text.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
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

/// An ISO date, alone or with a time of day after it (`2024-03-05T10:30:00Z`): anything else after
/// the date (`2024-03-05 2099-12-31`, `2024-03-05 (not 2024-04-05)`) makes the value no date.
fn iso(text: &str) -> Option<Date> {
    let end = text.find(['t', ' ']).unwrap_or(text.len());
    let (date, rest) = text.split_at(end);
    if !rest.is_empty() && !time_of_day(&rest[1..]) {
        return None;
    }
    let parts: Vec<&str> = date.split(['-', '/']).collect();
    match parts.as_slice() {
        [y, m, d] if y.len() == 4 && y.chars().all(|c| c.is_ascii_digit()) => {
            valid(y.parse().ok()?, m.parse().ok()?, d.parse().ok()?)
        }
        _ => None,
    }
}

/// A time of day as it follows a date, lowercased: `10:30`, `10:30:00.123`, then optionally
/// `am`/`pm` and a zone (`z`, `utc`, `gmt`, `+01:00`, `-0500`), spaces between them allowed.
fn time_of_day(text: &str) -> bool {
    let text = text.trim();
    let clock_end = text
        .find(|c: char| !(c.is_ascii_digit() || c == ':' || c == '.'))
        .unwrap_or(text.len());
    let (clock, rest) = text.split_at(clock_end);
    let fields: Vec<&str> = clock.split(':').collect();
    let two_digits = |f: &str| f.len() == 2 && f.chars().all(|c| c.is_ascii_digit());
    // Hours to 24 (`24:00` ends a day), minutes to 59, seconds to 60 (a leap second).
    let within = |f: &str, most: u32| f.parse::<u32>().is_ok_and(|n| n <= most);
    let clock_ok = match fields.as_slice() {
        [h, m] => (1..=2).contains(&h.len()) && two_digits(m) && within(m, 59),
        [h, m, sec] => {
            let (whole, fraction) = sec.split_once('.').unwrap_or((sec, "0"));
            (1..=2).contains(&h.len())
                && two_digits(m)
                && within(m, 59)
                && two_digits(whole)
                && within(whole, 60)
                && !fraction.is_empty()
                && fraction.chars().all(|c| c.is_ascii_digit())
        }
        _ => false,
    };
    if !clock_ok || fields[0].chars().any(|c| !c.is_ascii_digit()) || !within(fields[0], 24) {
        return false;
    }
    let rest = rest.trim_start();
    let rest = rest
        .strip_prefix("am")
        .or_else(|| rest.strip_prefix("pm"))
        .unwrap_or(rest)
        .trim_start();
    zone(rest)
}

/// Nothing, or a time zone: `z`, `utc`, `gmt`, or an offset `+01:00`, `-0500`, `+01`.
fn zone(text: &str) -> bool {
    if matches!(text, "" | "z" | "utc" | "gmt") {
        return true;
    }
    let Some(offset) = text.strip_prefix(['+', '-']) else {
        return false;
    };
    let digits: String = offset.chars().filter(|&c| c != ':').collect();
    let colons = offset.matches(':').count();
    // ASCII digits only, before the digits are split by bytes (`+1€` is no offset).
    if !(digits.len() == 2 || digits.len() == 4) || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    // Offsets run from -12:00 to +14:00; minutes to 59.
    let (hours, minutes) = digits.split_at(2);
    (colons == 0 || (colons == 1 && offset.find(':') == Some(2) && digits.len() == 4))
        && hours.parse::<u32>().is_ok_and(|h| h <= 14)
        && (minutes.is_empty() || minutes.parse::<u32>().is_ok_and(|m| m <= 59))
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
    identifier_chars(text).collect()
}

/// Whether two texts are one identifier: the same non-empty [`identifier_key`], compared as
/// they are read (no key written).
pub fn same_identifier(a: &str, b: &str) -> bool {
    identifier_chars(a).next().is_some() && identifier_chars(a).eq(identifier_chars(b))
}

fn identifier_chars(text: &str) -> impl Iterator<Item = char> + '_ {
    text.chars()
        .filter(|c| !c.is_whitespace() && !matches!(c, '-' | '.' | '/'))
        .flat_map(char::to_uppercase)
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

    /// The number read, as the nearest float.
    fn parse_number(text: &str) -> Option<f64> {
        read_number(text).map(|n| n.to_f64() + 0.0)
    }

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
        let difference = |a: &str, b: &str| {
            let (a, b) = (read_number(a).unwrap(), read_number(b).unwrap());
            a.sub(&b).abs().to_string()
        };
        assert_eq!(difference("9007199254740993", "9007199254740992"), "1");
        assert_eq!(difference("1 234,50", "1234.4"), "0.1");
        assert_eq!(difference("-0", "0"), "0");
        assert_eq!(
            difference(&"9".repeat(39), "1"),
            format!("{}8", "9".repeat(38))
        );
        assert_eq!(difference("1e3", "1000"), "0");
        // 40 digits that differ in the last: two numbers, one float.
        let (a, b) = ("1".repeat(40), format!("{}2", "1".repeat(39)));
        assert_eq!(canonical_number(&a), Some(a.clone()));
        assert_eq!(difference(&a, &b), "1");
        assert_eq!(parse_number(&a), parse_number(&b));
        // A number too long for a float is a number all the same, up to 1,000 digits.
        assert_eq!(canonical_number(&"9".repeat(400)), Some("9".repeat(400)));
        assert_eq!(
            canonical_number(&"9".repeat(1_000)),
            Some("9".repeat(1_000))
        );
        assert_eq!(canonical_number(&"9".repeat(1_001)), None);
    }

    #[test]
    fn a_sign_is_read_once() {
        for (text, want) in [
            ("(-12.50)", -12.5),
            ("(12.50-)", -12.5),
            ("(12.50)", -12.5),
            ("-12.50", -12.5),
            ("(€ -12.50)", -12.5),
        ] {
            assert_eq!(parse_number(text), Some(want), "{text}");
        }
        assert_eq!(canonical_number("(-12.50)"), Some("-12.5".into()));
        assert_eq!(plain_number("(-12.50)"), Some("-12.50".into()));
        assert_eq!(parse_number("--12"), None);
        // Scientific notation beyond a float, either way, is not an amount.
        assert_eq!(parse_number("1e400"), None);
        assert_eq!(read_number("1e-400"), None);
        assert_eq!(canonical_number("0e-400"), Some("0".into()));
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

    #[test]
    fn a_date_is_the_whole_value_or_none() {
        let march_5 = Some(Date {
            year: 2024,
            month: 3,
            day: 5,
        });
        for text in [
            "2024-03-05",
            "2024-03-05T10:00:00Z",
            "2024-03-05 10:30",
            "2024-03-05 10:30:15.250 +01:00",
            "2024-03-05T09:00:00-0500",
            "2024-03-05 9:00 pm utc",
        ] {
            assert_eq!(parse_date(text, false), march_5, "{text}");
        }
        for text in [
            "2024-03-05 2099-12-31",
            "2024-03-05 foo bar",
            "2024-03-05 (not 2024-04-05)",
            "2024-03-05 to 2024-12-31",
            "2024-03-05 / 2024-04-05",
            "2024-03-05T",
            "2024-03-05 10",
            "2024-03-05 10:30 tomorrow",
            "2024-03-05 10:30 +1",
            "2024-03-05T99:99:99",
            "2024-03-05T10:61",
            "2024-03-05T10:30:00+99:00",
            "2024-03-05 00:00-2099",
            // Found by the `reading` fuzz target: a byte index inside `€` once panicked here.
            "2024-03-05 6:30-2€",
            "2024-03-05 6:30+€1",
            "5 March 2024 or 6 March 2024",
        ] {
            assert_eq!(parse_date(text, false), None, "{text}");
        }
    }
}

#[cfg(test)]
mod examples {
    use super::*;

    fn parse_number(text: &str) -> Option<f64> {
        read_number(text).map(|n| n.to_f64())
    }

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
        assert!(same_identifier("FR 32 123 456 789", "fr32-123.456/789"));
        assert!(!same_identifier("FR32123456788", "FR32123456789"));
        assert!(!same_identifier(" - ", ""), "no identifier is an empty key");
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
