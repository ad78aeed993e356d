//! Hardening IV, the PDF reader (issue 51, items 3, 8 and 9): a decompression bomb through a
//! filter chain, a page tree of more pages than goldgate reads, dictionaries nested past its
//! bound. Each is a located error of the cases naming the document (boxes in points), and the
//! HTML page says why it does not draw it; nothing decodes, parses or builds past the bound.

mod support;

#[path = "support/pdf.rs"]
mod pdf;

use pdf::Page;
use support::{goldgate, stdout};

/// A PDF of these objects (1 is the catalog), with a cross-reference table.
fn raw_pdf(objects: &[Vec<u8>]) -> Vec<u8> {
    pdf::with_xref(objects)
}

/// Three cases naming `document`, their boxes in `units`, gold on page 1 and the prediction
/// elsewhere on it (so that the HTML page draws it).
fn three_cases(dir: &std::path::Path, units: &str, document: &[u8]) {
    std::fs::write(dir.join("doc.pdf"), document).unwrap();
    let bbox = if units == "points" {
        "[10, 10, 20, 20]"
    } else {
        "[0.1, 0.1, 0.2, 0.2]"
    };
    let mut files = vec![(
        "cases/suite.yaml".to_owned(),
        format!("bbox_units: {units}\npipelines:\n  ocr: out/{{case}}.json\n"),
    )];
    for i in 0..3 {
        files.push((
            format!("cases/inv{i}.yaml"),
            format!(
                "document: ../doc.pdf\ngold:\n  total: {{ value: \"12.50\", page: 1, bbox: {bbox} }}\nthresholds:\n  min_grounded: 1\n"
            ),
        ));
        files.push((
            format!("cases/out/inv{i}.json"),
            "{\"fields\": {\"total\": {\"value\": \"12.50\", \"page\": 1, \"bbox\": [0.5, 0.5, 0.6, 0.6]}}}\n".to_owned(),
        ));
    }
    support::write_owned(dir, &files);
}

/// `goldgate lint cases` over three cases in points naming `document`: each case's error,
/// located at its `document:`, says `why`.
fn refused_at_load(document: &[u8], why: &str) {
    let dir = tempfile::tempdir().unwrap();
    three_cases(dir.path(), "points", document);
    let lint = goldgate(dir.path(), &["lint", "cases"]);
    let out = stdout(&lint) + &support::stderr(&lint);
    assert!(!lint.status.success(), "{out}");
    for i in 0..3 {
        let said = format!(
            "cases/inv{i}.yaml:1:11: document: the pages of the PDF `cases/../doc.pdf` cannot be read: {why}"
        );
        assert!(out.contains(&said), "no `{said}` in:\n{out}");
    }
}

/// `goldgate test cases --html` over the cases in fractions of the page: the run ends, and
/// the page says why the document is not drawn.
fn not_drawn(document: &[u8], why: &str) {
    let dir = tempfile::tempdir().unwrap();
    three_cases(dir.path(), "normalized", document);
    let page = dir.path().join("page.html");
    let run = goldgate(
        dir.path(),
        &["test", "cases", "--html", page.to_str().unwrap()],
    );
    let html = std::fs::read_to_string(&page)
        .unwrap_or_else(|e| panic!("no page ({e}):\n{}", support::stderr(&run)));
    let said = format!("is not shown: {why}</p>");
    assert!(html.contains(&said), "no `{said}` in the page");
    assert!(!html.contains("<figure class=\"page\""), "a page was drawn");
}

/// A page whose content stream is hex of deflate, decoding to 130 MiB (1.7 MB in the file): the
/// deflate inside the hex is counted, at load and before the page is drawn.
#[test]
fn a_bomb_through_a_filter_chain_is_measured_whole() {
    let hex: String = pdf::deflated_zeros(130 << 20)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<String>()
        + ">";
    let document = raw_pdf(&[
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>".to_vec(),
        [
            format!(
                "<< /Length {} /Filter [/ASCIIHexDecode /FlateDecode] >>\nstream\n",
                hex.len()
            )
            .as_bytes(),
            hex.as_bytes(),
            b"\nendstream",
        ]
        .concat(),
    ]);
    refused_at_load(&document, "a stream of it decodes to more than 128 MiB");
    not_drawn(&document, "a stream of it decodes to more than 128 MiB");
    // Deflate inside deflate: each filter's output counts.
    let inner = pdf::deflated_zeros(130 << 20);
    let mut outer = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    std::io::Write::write_all(&mut outer, &inner).unwrap();
    let twice = pdf::pdf(
        &[Page::new(612.0, 792.0)],
        &[(
            "/Filter [/FlateDecode /FlateDecode]",
            outer.finish().unwrap(),
        )],
    );
    refused_at_load(&twice, "a stream of it decodes to more than 128 MiB");
}

/// A page tree of 100,001 pages written in place (half a megabyte), and one whose `/Kids` is
/// an array object of its own: refused before a reader builds the pages.
#[test]
fn a_page_tree_of_more_pages_than_goldgate_reads_is_refused() {
    let kids = "<< /MediaBox [0 0 1 1] >> ".repeat(100_001);
    let in_place = raw_pdf(&[
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        format!("<< /Type /Pages /Kids [{kids}] /Count 100001 >>").into_bytes(),
    ]);
    refused_at_load(&in_place, "its page tree lists more than 100000 pages");
    not_drawn(&in_place, "its page tree lists more than 100000 pages");
    let page = b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>".to_vec();
    let by_reference = raw_pdf(&[
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids 3 0 R /Count 100001 >>".to_vec(),
        format!("[{}]", "4 0 R ".repeat(100_001)).into_bytes(),
        page,
    ]);
    refused_at_load(&by_reference, "its page tree lists more than 100000 pages");
}

/// A page holding dictionaries nested 200 deep: refused before a reader's parser recurses.
#[test]
fn dictionaries_nested_past_the_bound_are_refused() {
    let deep = Page {
        extra: format!("/Deep {}1 {}", "<< /A ".repeat(200), ">> ".repeat(200)),
        ..Page::new(612.0, 792.0)
    };
    let document = pdf::pdf(&[deep], &[]);
    refused_at_load(&document, "its dictionaries nest more than 100 deep");
    not_drawn(&document, "its dictionaries nest more than 100 deep");
    // Within the bound, the document reads.
    let fits = Page {
        extra: format!("/Deep {}1 {}", "<< /A ".repeat(50), ">> ".repeat(50)),
        ..Page::new(612.0, 792.0)
    };
    let dir = tempfile::tempdir().unwrap();
    three_cases(dir.path(), "points", &pdf::pdf(&[fits], &[]));
    let lint = goldgate(dir.path(), &["lint", "cases"]);
    assert!(
        lint.status.success(),
        "{}",
        stdout(&lint) + &support::stderr(&lint)
    );
}

/// An encrypted document's streams would be measured on their encrypted bytes (nothing a
/// decoder reads) and decoded whole once a reader decrypts them: it is refused, with the fix.
/// `/EncryptMetadata` alone (a key of an encryption dictionary, not one) is no encryption.
#[test]
fn an_encrypted_document_is_refused_with_the_fix() {
    let mut document = pdf::pdf(&[Page::new(612.0, 792.0)], &[]);
    let at = document
        .windows(7)
        .rposition(|w| w == b"/Root 1")
        .expect("a trailer");
    document.splice(
        at..at,
        b"/Encrypt << /Filter /Standard /V 1 /R 2 >> "
            .iter()
            .copied(),
    );
    let why = "it is encrypted, and goldgate cannot measure what an encrypted stream decodes to before a reader decodes it whole; save a decrypted copy (`qpdf --decrypt in.pdf out.pdf`) and name that";
    refused_at_load(&document, why);
    let plain = Page {
        extra: "/EncryptMetadata false".into(),
        ..Page::new(612.0, 792.0)
    };
    let dir = tempfile::tempdir().unwrap();
    three_cases(dir.path(), "points", &pdf::pdf(&[plain], &[]));
    let lint = goldgate(dir.path(), &["lint", "cases"]);
    assert!(
        lint.status.success(),
        "{}",
        stdout(&lint) + &support::stderr(&lint)
    );
}
