//! PDF files written by hand for the tests of PDF pages: pages of given sizes and rotations with
//! coloured rectangles at known places (so a drawn page can be checked pixel by pixel), and
//! hostile files (deeply nested objects, huge pages, streams that decode to gigabytes).
//!
//! Included with `#[path = "support/pdf.rs"] mod pdf;` by the files that need it.

#![allow(dead_code)] // each test file uses its own part

/// A page: its media box's width and height in points, its `/Rotate`, and the rectangles it
/// fills, `(r, g, b)` from 0 to 1 and `[x, y, w, h]` in PDF user space (origin bottom-left).
#[derive(Clone)]
pub struct Page {
    pub width: f64,
    pub height: f64,
    pub rotate: u32,
    pub fills: Vec<((f64, f64, f64), [f64; 4])>,
    /// Raw bytes added to the page's dictionary (a hostile key).
    pub extra: String,
}

impl Page {
    pub fn new(width: f64, height: f64) -> Page {
        Page {
            width,
            height,
            rotate: 0,
            fills: Vec::new(),
            extra: String::new(),
        }
    }

    pub fn fill(mut self, rgb: (f64, f64, f64), rect: [f64; 4]) -> Page {
        self.fills.push((rgb, rect));
        self
    }

    pub fn rotated(mut self, degrees: u32) -> Page {
        self.rotate = degrees;
        self
    }
}

/// A PDF of these pages (objects: 1 catalog, 2 page tree, then a page and its content per page,
/// then `streams` as extra stream objects whose bytes are given whole, filter included).
pub fn pdf(pages: &[Page], streams: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut objects: Vec<Vec<u8>> = Vec::new();
    let kids: Vec<String> = (0..pages.len())
        .map(|i| format!("{} 0 R", 3 + 2 * i))
        .collect();
    objects.push(b"<< /Type /Catalog /Pages 2 0 R >>".to_vec());
    objects.push(
        format!(
            "<< /Type /Pages /Kids [{}] /Count {} >>",
            kids.join(" "),
            pages.len()
        )
        .into_bytes(),
    );
    for (i, page) in pages.iter().enumerate() {
        let content: String = page
            .fills
            .iter()
            .map(|((r, g, b), [x, y, w, h])| format!("{r} {g} {b} rg {x} {y} {w} {h} re f\n"))
            .collect();
        objects.push(
            format!(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {} {}] /Rotate {} /Contents {} 0 R /Resources << >> {} >>",
                page.width,
                page.height,
                page.rotate,
                4 + 2 * i,
                page.extra
            )
            .into_bytes(),
        );
        objects.push(stream("", content.as_bytes()));
    }
    for (dict, bytes) in streams {
        objects.push(stream(dict, bytes));
    }
    with_xref(&objects)
}

/// A PDF of these objects (1 is the catalog), numbered in order, with a cross-reference table:
/// for a test that writes its objects itself.
pub fn with_xref(objects: &[Vec<u8>]) -> Vec<u8> {
    let mut out = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        out.extend_from_slice(body);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for offset in offsets {
        out.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

fn stream(dict: &str, bytes: &[u8]) -> Vec<u8> {
    let mut out = format!("<< /Length {} {dict} >>\nstream\n", bytes.len()).into_bytes();
    out.extend_from_slice(bytes);
    out.extend_from_slice(b"\nendstream");
    out
}

/// Raw deflate (RFC 1951, one block of fixed Huffman codes) of `size` zero bytes, written
/// directly: one literal, then matches of 258 bytes at distance 1, 13 bits each, so that a
/// gigabyte takes some 6 MB and no time to make.
pub fn deflated_zeros(size: u64) -> Vec<u8> {
    let mut bits = Bits::default();
    bits.put(1, 1); // the last block
    bits.put(1, 2); // fixed Huffman codes
    bits.code(0x30, 8); // literal 0
    let mut left = size - 1;
    while left >= 258 {
        bits.code(0xC5, 8); // length 258 (symbol 285)
        bits.code(0, 5); // distance 1
        left -= 258;
    }
    for _ in 0..left {
        bits.code(0x30, 8);
    }
    bits.code(0, 7); // end of block (symbol 256)
    bits.bytes
}

#[derive(Default)]
struct Bits {
    bytes: Vec<u8>,
    used: u32,
}

impl Bits {
    /// `n` bits of `value`, least significant first (a header's fields).
    fn put(&mut self, value: u32, n: u32) {
        for i in 0..n {
            if self.used.is_multiple_of(8) {
                self.bytes.push(0);
            }
            let bit = (value >> i) & 1;
            *self.bytes.last_mut().unwrap() |= (bit as u8) << (self.used % 8);
            self.used += 1;
        }
    }

    /// A Huffman code of `n` bits, most significant first.
    fn code(&mut self, code: u32, n: u32) {
        for i in (0..n).rev() {
            self.put((code >> i) & 1, 1);
        }
    }
}

/// A PNG's pixels as RGBA rows, with its width and height.
pub fn decode_png(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::ALPHA);
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    let rgba = match info.color_type {
        png::ColorType::Rgba => buf,
        png::ColorType::Rgb => buf
            .chunks(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        png::ColorType::GrayscaleAlpha => buf
            .chunks(2)
            .flat_map(|p| [p[0], p[0], p[0], p[1]])
            .collect(),
        other => panic!("an unexpected PNG colour type {other:?}"),
    };
    (info.width, info.height, rgba)
}

/// The colour of the pixel at fractions `(fx, fy)` of the image from its top-left corner.
pub fn pixel(image: &(u32, u32, Vec<u8>), fx: f64, fy: f64) -> [u8; 3] {
    let (w, h, rgba) = image;
    let x = ((fx * f64::from(*w)) as u32).min(w - 1);
    let y = ((fy * f64::from(*h)) as u32).min(h - 1);
    let i = ((y * w + x) * 4) as usize;
    [rgba[i], rgba[i + 1], rgba[i + 2]]
}
