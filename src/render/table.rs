//! A table is data, written three ways: built once as columns and rows, then printed by the
//! terminal, Markdown and HTML writers. A column no row has a value in is not drawn, and why it
//! is empty is said once, under the table, instead of a `-` on every row.

use std::borrow::Cow;
use std::fmt::Write;

/// The cell of a row without a value.
pub(crate) const ABSENT: &str = "-";

/// What a column holds, which says how it is aligned and whether it may wrap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A figure: right-aligned, in tabular digits, never broken.
    Figure,
    /// A pipeline's name: left-aligned, never broken.
    Name,
    /// Text a user wrote (a field, a tag value, a reason): left-aligned; on the page, wrapped
    /// where it must.
    Text,
}

/// A column: its heading, what it holds, and why it would be empty.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Column {
    /// The heading.
    pub heading: &'static str,
    /// What its cells hold.
    pub kind: Kind,
    /// The least width of the column on a terminal (its heading's, when shorter).
    pub width: usize,
    /// Why no row has a value in it, when none has (`no case names a critical field`); a
    /// column without a reason is always drawn.
    pub empty: Option<Cow<'static, str>>,
}

impl Column {
    /// A column of figures at least `width` characters wide on a terminal, empty because `why`.
    pub(crate) const fn figure(heading: &'static str, width: usize, why: &'static str) -> Column {
        Column {
            heading,
            kind: Kind::Figure,
            width,
            empty: Some(Cow::Borrowed(why)),
        }
    }

    /// A column of figures that every row has.
    pub(crate) const fn count(heading: &'static str, width: usize) -> Column {
        Column {
            heading,
            kind: Kind::Figure,
            width,
            empty: None,
        }
    }

    /// A column of pipelines' names.
    pub(crate) const fn name(heading: &'static str) -> Column {
        Column {
            heading,
            kind: Kind::Name,
            width: 0,
            empty: None,
        }
    }

    /// A column of text.
    pub(crate) const fn text(heading: &'static str) -> Column {
        Column {
            heading,
            kind: Kind::Text,
            width: 0,
            empty: None,
        }
    }
}

/// A table built once, for the terminal, Markdown and HTML writers to print.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Table {
    /// The columns drawn.
    pub columns: Vec<Column>,
    /// The cells, a row at a time, one per column drawn.
    pub rows: Vec<Vec<String>>,
    /// The columns not drawn, because no row has a value in them.
    pub left_out: Vec<Column>,
}

impl Table {
    /// A table of these columns and rows, without the columns no row has a value in (those
    /// that may be empty: a column of names or counts is always drawn).
    pub(crate) fn new(columns: Vec<Column>, rows: Vec<Vec<String>>) -> Table {
        let keep: Vec<bool> = columns
            .iter()
            .enumerate()
            .map(|(i, c)| {
                c.empty.is_none()
                    || rows.is_empty()
                    || rows
                        .iter()
                        .any(|r| r.get(i).is_some_and(|cell| cell != ABSENT))
            })
            .collect();
        let mut left_out = Vec::new();
        let mut drawn = Vec::new();
        for (column, keep) in columns.into_iter().zip(&keep) {
            if *keep {
                drawn.push(column);
            } else {
                left_out.push(column);
            }
        }
        let rows = rows
            .into_iter()
            .map(|row| {
                row.into_iter()
                    .zip(&keep)
                    .filter(|(_, k)| **k)
                    .map(|(cell, _)| cell)
                    .collect()
            })
            .collect();
        Table {
            columns: drawn,
            rows,
            left_out,
        }
    }

    /// `not measured: crit.EM, c.ANLS (no case names a critical field); Brier, ECE (no
    /// prediction gives a confidence)`: the columns left out and why, once; `None` when every
    /// column is drawn.
    pub(crate) fn left_out_line(&self) -> Option<String> {
        let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
        for c in &self.left_out {
            let why = c.empty.as_deref().unwrap_or("no value");
            if why.is_empty() {
                // A column whose absence needs no word (a row's own notes, none left).
                continue;
            }
            match groups.iter_mut().find(|(w, _)| *w == why) {
                Some((_, headings)) => headings.push(c.heading),
                None => groups.push((why, vec![c.heading])),
            }
        }
        (!groups.is_empty()).then(|| {
            let parts: Vec<String> = groups
                .iter()
                .map(|(why, headings)| format!("{} ({why})", headings.join(", ")))
                .collect();
            format!("not measured: {}", parts.join("; "))
        })
    }

    /// The table as a terminal prints it: names and text left-aligned, figures right-aligned,
    /// two spaces apart; then the line that says which columns were left out. Empty without rows.
    pub(crate) fn text(&self) -> String {
        if self.rows.is_empty() {
            return String::new();
        }
        let widths: Vec<usize> = self
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let cells = self
                    .rows
                    .iter()
                    .filter_map(|r| r.get(i))
                    .map(String::as_str);
                super::column_width(cells, c.width.max(c.heading.chars().count()))
            })
            .collect();
        let line = |cells: &mut dyn Iterator<Item = &str>| {
            let mut out = String::new();
            for (i, (cell, width)) in cells.zip(&widths).enumerate() {
                let pad = " ".repeat(width.saturating_sub(cell.chars().count()));
                if i > 0 {
                    out.push_str("  ");
                }
                match self.columns[i].kind {
                    Kind::Figure => {
                        out.push_str(&pad);
                        out.push_str(cell);
                    }
                    Kind::Name | Kind::Text => {
                        out.push_str(cell);
                        out.push_str(&pad);
                    }
                }
            }
            out.trim_end().to_owned() + "\n"
        };
        let mut out = line(&mut self.columns.iter().map(|c| c.heading));
        for row in &self.rows {
            out.push_str(&line(&mut row.iter().map(String::as_str)));
        }
        if let Some(left_out) = self.left_out_line() {
            let _ = writeln!(out, "{left_out}");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(row: &[&str]) -> Vec<String> {
        row.iter().map(|c| (*c).to_owned()).collect()
    }

    #[test]
    fn a_column_without_a_value_is_left_out_and_said_once() {
        let table = Table::new(
            vec![
                Column::name("pipeline"),
                Column::figure("EM", 7, "never"),
                Column::figure("crit.EM", 7, "no case names a critical field"),
                Column::figure("Brier", 7, "no prediction gives a confidence"),
                Column::figure("ECE", 7, "no prediction gives a confidence"),
            ],
            vec![
                cells(&["alpha", "0.5000", "-", "-", "-"]),
                cells(&["beta_long", "-", "-", "-", "-"]),
            ],
        );
        assert_eq!(
            table.text(),
            "pipeline        EM\n\
             alpha       0.5000\n\
             beta_long        -\n\
             not measured: crit.EM (no case names a critical field); Brier, ECE (no prediction gives a confidence)\n"
        );
        // Without rows, every column is drawn and nothing is printed.
        let empty = Table::new(vec![Column::figure("EM", 7, "never")], Vec::new());
        assert_eq!(empty.columns.len(), 1);
        assert_eq!(empty.text(), "");
    }
}
