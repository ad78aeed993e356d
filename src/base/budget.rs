//! How much goldgate reads and computes for one case. Each bound is far above what a gold set of
//! real documents needs and low enough that no input, however large or hostile, hangs a run or
//! exhausts memory; going over one is an error located where the input is, that says the bound.

use super::value::Value;

/// The largest input file read (case, prediction, suite, rubric set). The same as what is kept
/// of a command's output: a recorded output and a live one are held to one size.
pub const FILE_BYTES: u64 = 64 << 20;

/// The most a kept output's file may hold (an entry of the cache, an output a run's processes
/// share): a command's standard output at its limit ([`FILE_BYTES`]) as JSON writes it, its quotes
/// and backslashes escaped (twice its bytes at most, for text), and the rest of the entry. An
/// output whose entry would be larger (control characters, six bytes each once escaped) is not
/// kept, only called again; a file over it is no entry, never read: a committed cache cannot make
/// a run read 385 MiB (and hold 1.25 GB) for an output a command may not print.
pub const KEPT_OUTPUT_BYTES: u64 = 2 * FILE_BYTES + (1 << 20);

/// How much of a document is read to key a shared command output (keyed by the
/// document's bytes): its first 64 MiB, with its size and, beyond that, its modification time. A
/// scan of gigabytes is keyed in a fraction of a second, never held in memory.
pub const DOCUMENT_KEY_BYTES: u64 = FILE_BYTES;

/// What is kept of a command's standard error: its last 16 KiB, enough for the tail a failure
/// message shows; the rest is counted (for the flood bound) and let go as it comes.
pub const STDERR_KEPT: usize = 16 << 10;

/// The lines of standard error a failure message shows, from its end.
pub const STDERR_LINES: usize = 10;

/// The longest line of standard error a failure message shows, in characters; a longer one is
/// cut and says so (one line of 70 MB would otherwise be the message, and the report).
pub const STDERR_LINE_CHARS: usize = 300;

/// The most values in one JSON prediction (every mapping, list and scalar counts one): the
/// budget the YAML reader (serde-saphyr) keeps for a YAML file, so that both formats cost alike.
/// 250,000 values is some 4,000 line items of 60 values each.
pub const JSON_VALUES: usize = 250_000;

/// The longest text value compared, in characters: twenty-odd pages of dense text. ANLS of two
/// texts this long takes about 0.1 s (a bit-parallel Levenshtein); a character diff of them is
/// held to [`DIFF_SECONDS`].
pub const TEXT_CHARS: usize = 100_000;

/// The most items in one list value. Items of two lists are matched against each other (n²
/// comparisons, then an assignment that is cubic in n), so this bound is what keeps a list field
/// to a few seconds: 2,000 line items of six values, read with small slips, take 3 s.
pub const LIST_ITEMS: usize = 2_000;

/// The work scoring one case may do, counted in steps (a Levenshtein word operation, a cell
/// scanned by the matching), so that the bound is the same on every machine: about 5 s of CPU on
/// the 2-core machine goldgate is measured on (3 to 6 ns a step). Lists within [`LIST_ITEMS`]
/// matched against very different predictions are what reach it: 1,000 items of six random
/// values against 1,000 others need 1.4 billion steps; 2,000 line items read with small slips
/// need 0.5 billion.
pub const CASE_STEPS: u64 = 1_200_000_000;

/// What each gold field is charged against [`CASE_STEPS`] besides its comparison: its lookup,
/// copies, miss class and row, a few µs (100,000 flat fields predicted wrong are scored in 2.5 s
/// unoptimised, some 10 times faster in a release build). A case of many cheap fields is then
/// bounded too, at about a million fields; the 250,000 values of [`JSON_VALUES`] as flat fields
/// cost a fifth of the budget.
pub const FIELD_STEPS: u64 = 1_000;

/// How long a character diff in a failure message may search for the shortest edit, after which
/// it gives a coarser diff (`similar`'s deadline): a message stays quick however long the texts.
pub const DIFF_SECONDS: f64 = 0.5;

/// The most items, rubric checks or rows one failure message lists before it says how many more
/// there are; the report holds them all.
pub const MESSAGE_ITEMS: usize = 20;

/// The largest PDF document goldgate reads pages from: a page scanned at 300 dpi is a few MiB, a
/// long report of scans some tens.
pub const DOCUMENT_BYTES: u64 = 64 << 20;

/// The width a PDF page is drawn at for the HTML page, in pixels: 1,000 pixels across an A4 or
/// Letter page (about 120 dpi) shows its text sharp on a screen, in some 50–200 KB of PNG.
#[cfg_attr(not(feature = "pdf"), allow(dead_code))] // drawn only with the feature
pub const PDF_PAGE_WIDTH: u32 = 1_000;

/// The most pixels one drawn PDF page may have: a page far longer than wide is drawn narrower.
#[cfg_attr(not(feature = "pdf"), allow(dead_code))] // drawn only with the feature
pub const PDF_PAGE_PIXELS: u64 = 4_000_000;

/// The most pixels one image inside a PDF may declare: a reader allocates an image at the size
/// its dictionary says (a 300 dpi A0 scan is 100 million).
#[cfg_attr(not(feature = "pdf"), allow(dead_code))] // drawn only with the feature
pub const PDF_IMAGE_PIXELS: u64 = 150_000_000;

/// The most bytes one compressed stream of a PDF may decode to, and all of them together: a
/// few kilobytes of deflate can claim gigabytes. Real documents' pages are far below (a scanned
/// page decodes to some 25 MiB).
pub const PDF_STREAM_BYTES: u64 = 128 << 20;

/// See [`PDF_STREAM_BYTES`]. Every filter of a stream's chain counts: `[/ASCIIHexDecode
/// /FlateDecode]` is the hex decoded plus the deflate inflated.
pub const PDF_STREAMS_BYTES: u64 = 512 << 20;

/// The deepest PDF dictionaries may nest: a reader's parser recurses into them (1.5 million
/// nested took it 15 s), and real documents nest a handful deep (a page's resources, a font's
/// descriptor), by reference beyond that.
#[cfg_attr(not(feature = "pdf"), allow(dead_code))] // read only with the feature
pub const PDF_NESTING: usize = 100;

/// The most pages a PDF's page tree may list: a reader builds every page when the document
/// opens, some 1.2 KB each (2 million took 2.4 GB). A document within [`DOCUMENT_BYTES`] of real
/// pages (a few KB each at the least) has far fewer; at this bound a reader holds some 120 MB.
#[cfg_attr(not(feature = "pdf"), allow(dead_code))] // read only with the feature
pub const PDF_PAGES: usize = 100_000;

/// How long drawing one PDF page may take: a real page takes 10–200 ms.
pub const PDF_PAGE_SECONDS: f64 = 10.0;

/// How many PDF pages one run's HTML page draws, and how long it may spend on them: the
/// failing grounded fields of a run's first 60 such pages are drawn, the rest said not shown.
pub const PDF_RUN_PAGES: usize = 60;

/// See [`PDF_RUN_PAGES`].
pub const PDF_RUN_SECONDS: f64 = 60.0;

/// The first place in `value` over [`TEXT_CHARS`] or [`LIST_ITEMS`]: its path below the value
/// (`[3].description`) and what is wrong, for a located error.
pub fn oversized(value: &Value) -> Option<(String, String)> {
    match value {
        Value::Null => None,
        Value::Text(t) => {
            // A byte count bounds the character count: most texts need no counting at all.
            if t.len() <= TEXT_CHARS {
                return None;
            }
            let chars = t.chars().count();
            (chars > TEXT_CHARS).then(|| {
                (
                    String::new(),
                    format!(
                        "a text of {chars} characters, more than goldgate compares ({TEXT_CHARS})"
                    ),
                )
            })
        }
        Value::List(items) => {
            if items.len() > LIST_ITEMS {
                return Some((
                    String::new(),
                    format!(
                        "a list of {} items, more than goldgate matches ({LIST_ITEMS})",
                        items.len()
                    ),
                ));
            }
            items.iter().enumerate().find_map(|(i, item)| {
                oversized(item).map(|(path, why)| (format!("[{i}]{path}"), why))
            })
        }
        Value::Map(entries) => entries
            .iter()
            .find_map(|(key, v)| oversized(v).map(|(path, why)| (format!(".{key}{path}"), why))),
    }
}

/// `items` joined by `separator`, the first [`MESSAGE_ITEMS`] of them, then how many more: a
/// check over 2,000 line items says what failed in a paragraph, not in 2,000 lines.
pub fn summarised<S: AsRef<str>>(items: &[S], separator: &str) -> String {
    let shown: Vec<&str> = items
        .iter()
        .take(MESSAGE_ITEMS)
        .map(AsRef::as_ref)
        .collect();
    let mut out = shown.join(separator);
    if items.len() > MESSAGE_ITEMS {
        out.push_str(&format!(
            "{separator}… and {} more",
            items.len() - MESSAGE_ITEMS
        ));
    }
    out
}

/// What to do about an oversized value, for the hint of its error.
pub const OVERSIZED_HINT: &str = "split the document into several cases, or leave the long value out of `gold` and check it with a rubric (`contains`, `matches`)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_value_over_a_bound_is_named_by_its_path() {
        let long = Value::Text("é".repeat(TEXT_CHARS + 1));
        let fits = Value::Text("é".repeat(TEXT_CHARS));
        let item = Value::Map(vec![("description".into(), long)]);
        let list = Value::List(vec![Value::Map(vec![]), item]);
        let (path, why) = oversized(&list).unwrap();
        assert_eq!(path, "[1].description");
        assert_eq!(
            why,
            "a text of 100001 characters, more than goldgate compares (100000)"
        );
        // Two bytes a character: over the byte count, within the character count.
        assert_eq!(oversized(&fits), None);
        let many = Value::List(vec![Value::Null; LIST_ITEMS + 1]);
        assert_eq!(
            oversized(&many).unwrap().1,
            "a list of 2001 items, more than goldgate matches (2000)"
        );
        assert_eq!(oversized(&Value::List(vec![Value::Null; LIST_ITEMS])), None);
    }

    #[test]
    fn a_long_list_is_summarised_after_its_first_items() {
        let few: Vec<String> = (0..3).map(|i| format!("[{i}] bad")).collect();
        assert_eq!(summarised(&few, "; "), "[0] bad; [1] bad; [2] bad");
        let many: Vec<String> = (0..MESSAGE_ITEMS + 5).map(|i| format!("{i}")).collect();
        let text = summarised(&many, " + ");
        assert!(text.starts_with("0 + 1 + "), "{text}");
        assert!(text.ends_with(" + 19 + … and 5 more"), "{text}");
    }
}
