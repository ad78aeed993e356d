//! The PDF stream filters that can expand their input, decoded as they are read (one `Read` over
//! the one before it), so that a chain of them is measured byte by byte without holding any of
//! it: ASCIIHex, ASCII85, run-length, LZW and Flate. Each decodes what a PDF reader keeps of a
//! broken stream (the bytes before the fault), so that a count is never below what a reader
//! would hold.

use std::io::Read;

/// A filter that expands (or may expand) what it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Filter {
    Hex,
    Ascii85,
    RunLength,
    /// LZW, with its `EarlyChange` (1 unless the stream's parameters say 0).
    Lzw(bool),
    Flate,
}

/// `input` read through `filter`.
pub(crate) fn decoder<'a>(filter: Filter, input: Box<dyn Read + 'a>) -> Box<dyn Read + 'a> {
    match filter {
        Filter::Hex => Box::new(Stepped::new(input, Hex::default())),
        Filter::Ascii85 => Box::new(Stepped::new(input, Ascii85::default())),
        Filter::RunLength => Box::new(Stepped::new(input, RunLength::default())),
        Filter::Lzw(early) => Box::new(Stepped::new(input, Lzw::new(early))),
        Filter::Flate => flate(input),
    }
}

/// Flate as PDF readers take it: a zlib stream when the data starts with a zlib header (its two
/// bytes skipped, the deflate data inflated up to where it ends or breaks), else raw deflate.
fn flate<'a>(mut input: Box<dyn Read + 'a>) -> Box<dyn Read + 'a> {
    let mut head = [0u8; 2];
    let mut got = 0;
    while got < 2 {
        match input.read(&mut head[got..]) {
            Ok(0) | Err(_) => break,
            Ok(n) => got += n,
        }
    }
    let zlib = got == 2
        && head[0] & 0x0f == 8
        && (u16::from(head[0]) << 8 | u16::from(head[1])).is_multiple_of(31)
        && head[1] & 0x20 == 0;
    let rest: Box<dyn Read + 'a> = if zlib {
        input
    } else {
        Box::new(std::io::Cursor::new(head[..got].to_vec()).chain(input))
    };
    Box::new(flate2::read::DeflateDecoder::new(rest))
}

/// A decoder fed one byte at a time: what it decodes goes to `out`; `false` once it has ended
/// (its end-of-data mark, or a byte it cannot take).
trait Step {
    fn feed(&mut self, byte: u8, out: &mut Vec<u8>) -> bool;
    /// The input has ended: what a partial group still gives.
    fn finish(&mut self, _out: &mut Vec<u8>) {}
}

/// A [`Step`] read as a `Read`.
struct Stepped<'a, S> {
    input: Box<dyn Read + 'a>,
    step: S,
    pending: Vec<u8>,
    at: usize,
    ended: bool,
}

impl<'a, S: Step> Stepped<'a, S> {
    fn new(input: Box<dyn Read + 'a>, step: S) -> Self {
        Stepped {
            input,
            step,
            pending: Vec::new(),
            at: 0,
            ended: false,
        }
    }
}

impl<S: Step> Read for Stepped<'_, S> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut chunk = [0u8; 4096];
        while self.at == self.pending.len() && !self.ended {
            self.pending.clear();
            self.at = 0;
            let n = self.input.read(&mut chunk)?;
            if n == 0 {
                self.step.finish(&mut self.pending);
                self.ended = true;
            }
            for &byte in &chunk[..n] {
                if !self.step.feed(byte, &mut self.pending) {
                    self.ended = true;
                    break;
                }
            }
        }
        let n = buf.len().min(self.pending.len() - self.at);
        buf[..n].copy_from_slice(&self.pending[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

fn is_space(byte: u8) -> bool {
    matches!(byte, b'\0' | b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

#[derive(Default)]
struct Hex {
    high: Option<u8>,
}

impl Step for Hex {
    fn feed(&mut self, byte: u8, out: &mut Vec<u8>) -> bool {
        if is_space(byte) {
            return true;
        }
        let Some(digit) = (byte as char).to_digit(16) else {
            self.finish(out);
            return false;
        };
        match self.high.take() {
            Some(high) => out.push(high << 4 | digit as u8),
            None => self.high = Some(digit as u8),
        }
        true
    }

    fn finish(&mut self, out: &mut Vec<u8>) {
        if let Some(high) = self.high.take() {
            out.push(high << 4);
        }
    }
}

#[derive(Default)]
struct Ascii85 {
    group: u64,
    count: usize,
}

impl Step for Ascii85 {
    fn feed(&mut self, byte: u8, out: &mut Vec<u8>) -> bool {
        match byte {
            b'z' if self.count == 0 => out.extend_from_slice(&[0; 4]),
            b'!'..=b'u' => {
                self.group = self.group * 85 + u64::from(byte - b'!');
                self.count += 1;
                if self.count == 5 {
                    out.extend_from_slice(&(self.group as u32).to_be_bytes());
                    (self.group, self.count) = (0, 0);
                }
            }
            _ if is_space(byte) => {}
            _ => {
                self.finish(out);
                return false;
            }
        }
        true
    }

    fn finish(&mut self, out: &mut Vec<u8>) {
        if self.count > 1 {
            let mut group = self.group;
            for _ in self.count..5 {
                group = group * 85 + 84;
            }
            out.extend_from_slice(&(group as u32).to_be_bytes()[..self.count - 1]);
        }
        self.count = 0;
    }
}

/// Run-length: a length byte, then that many bytes plus one (below 128), or one byte repeated
/// 257 minus it (above 128); 128 ends the data.
#[derive(Default)]
struct RunLength {
    /// Literal bytes still to copy, or `None` with a repeat pending when `repeat` is set.
    literal: usize,
    repeat: Option<usize>,
}

impl Step for RunLength {
    fn feed(&mut self, byte: u8, out: &mut Vec<u8>) -> bool {
        if self.literal > 0 {
            out.push(byte);
            self.literal -= 1;
        } else if let Some(times) = self.repeat.take() {
            out.extend(std::iter::repeat_n(byte, times));
        } else {
            match byte {
                128 => return false,
                0..=127 => self.literal = usize::from(byte) + 1,
                _ => self.repeat = Some(257 - usize::from(byte)),
            }
        }
        true
    }
}

/// LZW as PDF writes it: codes of 9 to 12 bits, most significant bit first, 256 clears the
/// table and 257 ends the data.
struct Lzw {
    early: bool,
    bits: u32,
    held: u32,
    /// Each entry past the 258 fixed ones: the entry it extends and the byte added.
    table: Vec<(u16, u8)>,
    previous: Option<u16>,
    scratch: Vec<u8>,
}

impl Lzw {
    fn new(early: bool) -> Self {
        Lzw {
            early,
            bits: 0,
            held: 0,
            table: Vec::new(),
            previous: None,
            scratch: Vec::new(),
        }
    }

    fn width(&self) -> u32 {
        let next = 258 + self.table.len() + usize::from(self.early);
        match next {
            ..512 => 9,
            512..1024 => 10,
            1024..2048 => 11,
            _ => 12,
        }
    }

    /// The bytes of entry `code`, written into `scratch` (first byte first).
    fn spell(&mut self, mut code: u16) {
        self.scratch.clear();
        while code >= 258 {
            let (prefix, byte) = self.table[usize::from(code) - 258];
            self.scratch.push(byte);
            code = prefix;
        }
        self.scratch.push(code as u8);
        self.scratch.reverse();
    }

    fn code(&mut self, code: u16, out: &mut Vec<u8>) -> bool {
        match code {
            256 => {
                self.table.clear();
                self.previous = None;
                return true;
            }
            257 => return false,
            _ => {}
        }
        let known = usize::from(code) < 258 + self.table.len();
        match (known, self.previous) {
            (true, _) => self.spell(code),
            (false, Some(previous)) if usize::from(code) == 258 + self.table.len() => {
                self.spell(previous);
                self.scratch.push(self.scratch[0]);
            }
            _ => return false,
        }
        if let Some(previous) = self.previous
            && self.table.len() < 4096 - 258
        {
            self.table.push((previous, self.scratch[0]));
        }
        out.extend_from_slice(&self.scratch);
        self.previous = Some(code);
        true
    }
}

impl Step for Lzw {
    fn feed(&mut self, byte: u8, out: &mut Vec<u8>) -> bool {
        self.held = self.held << 8 | u32::from(byte);
        self.bits += 8;
        let width = self.width();
        if self.bits < width {
            return true;
        }
        self.bits -= width;
        let code = (self.held >> self.bits) & ((1 << width) - 1);
        self.held &= (1 << self.bits) - 1;
        self.code(code as u16, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoded(filter: Filter, input: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let _ = decoder(filter, Box::new(input)).read_to_end(&mut out);
        out
    }

    #[test]
    fn each_filter_decodes_what_a_reader_keeps() {
        assert_eq!(decoded(Filter::Hex, b"48 656c6C6f7>"), b"Hellop");
        assert_eq!(decoded(Filter::Hex, b"4865x6c"), b"He");
        assert_eq!(
            decoded(Filter::Ascii85, b"87cURD]i,\"Ebo80~>"),
            b"Hello World!"
        );
        assert_eq!(decoded(Filter::Ascii85, b"z!!"), [0, 0, 0, 0, 0]);
        assert_eq!(
            decoded(Filter::RunLength, b"\x02abc\xfdz\x80zz"),
            b"abczzzz"
        );
        let mut zlib = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        std::io::Write::write_all(&mut zlib, &[7; 10_000]).unwrap();
        assert_eq!(
            decoded(Filter::Flate, &zlib.finish().unwrap()),
            vec![7; 10_000]
        );
        let mut raw = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
        std::io::Write::write_all(&mut raw, b"raw deflate").unwrap();
        assert_eq!(
            decoded(Filter::Flate, &raw.finish().unwrap()),
            b"raw deflate"
        );
    }

    /// The example of the PDF reference (7.4.4.2): "-----A---B" in LZW, early change on.
    #[test]
    fn lzw_decodes_the_references_example() {
        let codes = [256u16, 45, 258, 258, 65, 259, 66, 257];
        let (mut bits, mut held, mut bytes) = (0u32, 0u64, Vec::new());
        for code in codes {
            held = held << 9 | u64::from(code);
            bits += 9;
            while bits >= 8 {
                bits -= 8;
                bytes.push((held >> bits) as u8);
            }
        }
        bytes.push((held << (8 - bits)) as u8);
        assert_eq!(decoded(Filter::Lzw(true), &bytes), b"-----A---B");
    }
}
