//! Reading amounts and dates the way invoices write them, for `compare: number | date` (SPEC §6).

/// Reads an amount: `1 234,50`, `1,234.50`, `1.234,50`, `€1234.5`, `1234.50 EUR`, `-12`, `(12.50)`.
///
/// Currency signs and codes, spaces (also no-break and thin) and apostrophes are dropped. With both
/// `.` and `,`, the last one is the decimal mark. With one kind repeated, it groups thousands. A
/// single mark followed by exactly three digits after a group of one to three digits (not `0`)
/// groups thousands (`1,234` and `1.234` are 1234); otherwise it is the decimal mark.
///
/// ```
/// use goldgate::typed::parse_number;
/// for text in ["1 234,50", "1,234.50", "1.234,50", "€1234.5", "1234.50 EUR", "1'234.50"] {
///     assert_eq!(parse_number(text), Some(1234.5), "{text}");
/// }
/// assert_eq!(parse_number("(12.50)"), Some(-12.5));
/// assert_eq!(parse_number("0.125"), Some(0.125));
/// assert_eq!(parse_number("twelve"), None);
/// ```
pub fn parse_number(text: &str) -> Option<f64> {
    let t = text.trim();
    let (t, parenthesised) = match t.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
        Some(inner) => (inner, true),
        None => (t, false),
    };
    let mut negative = parenthesised;
    let mut digits = String::new();
    for c in t.chars() {
        match c {
            '0'..='9' | '.' | ',' => digits.push(c),
            '-' | '−' if digits.is_empty() => negative = true,
            '-' | '−' => negative = true, // a trailing minus, as some ledgers print
            '+' => {}
            c if c.is_whitespace() || c == '\'' || c == '’' || c == '\u{202f}' => {}
            c if c.is_alphabetic() || "€$£¥₹₩₽¤".contains(c) => {}
            _ => return None,
        }
    }
    if !digits.chars().any(|c| c.is_ascii_digit()) {
        return None;
    }
    let normalized = decimal_point(&digits)?;
    let value: f64 = normalized.parse().ok()?;
    Some(if negative { -value } else { value })
}

/// Rewrites the separators of a digit string so that `.` is the decimal mark and nothing groups.
fn decimal_point(digits: &str) -> Option<String> {
    let last_dot = digits.rfind('.');
    let last_comma = digits.rfind(',');
    let decimal = match (last_dot, last_comma) {
        (Some(d), Some(c)) => Some(d.max(c)),
        (Some(i), None) | (None, Some(i)) => {
            let mark = digits.as_bytes()[i];
            let repeated = digits.bytes().filter(|&b| b == mark).count() > 1;
            let after = &digits[i + 1..];
            let before = &digits[..i];
            let groups_thousands =
                repeated || (after.len() == 3 && (1..=3).contains(&before.len()) && before != "0");
            if groups_thousands { None } else { Some(i) }
        }
        (None, None) => None,
    };
    let mut out = String::new();
    for (i, c) in digits.char_indices() {
        match c {
            '0'..='9' => out.push(c),
            _ if Some(i) == decimal => out.push('.'),
            _ => {}
        }
    }
    // A grouping mark after the decimal mark (`1.234,5.6`) makes no sense.
    if let Some(d) = decimal
        && digits[d + 1..].contains(['.', ','])
    {
        return None;
    }
    Some(out)
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
///
/// ```
/// use goldgate::typed::{Date, parse_date};
/// let march_5 = Some(Date { year: 2024, month: 3, day: 5 });
/// assert_eq!(parse_date("2024-03-05", false), march_5);
/// assert_eq!(parse_date("05/03/2024", true), march_5);
/// assert_eq!(parse_date("03/05/2024", false), march_5);
/// assert_eq!(parse_date("March 5, 2024", false), march_5);
/// assert_eq!(parse_date("5 mars 2024", false), march_5);
/// assert_eq!(parse_date("31/02/2024", true), None);
/// ```
pub fn parse_date(text: &str, day_first: bool) -> Option<Date> {
    let folded = crate::Normalize::ALL.apply(text);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        let cases = [
            ("1234.50", Some(1234.5)),
            ("1 234,50", Some(1234.5)),
            ("1\u{202f}234,50 €", Some(1234.5)),
            ("$1,234,567.89", Some(1234567.89)),
            ("1.234.567", Some(1234567.0)),
            ("1,234", Some(1234.0)),
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
