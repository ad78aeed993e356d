//! A PDF's bytes measured before any reader is given them: a reader decodes a stream whole,
//! through every filter of its chain, each held in memory, and builds every page of the page
//! tree when the document opens. So every stream is decoded here through its whole chain and
//! counted (never held) against one budget, the dictionaries' nesting and the pages the page
//! tree lists are counted, and a document over a bound is refused with the bound it passed.
//!
//! The file's bytes are searched rather than its objects read, so that nothing here trusts what
//! a reader would (an object stream is decoded to find the objects in it, an xref stream to
//! find the objects at all). A stream is found by its `stream` keyword, wherever it is, and its
//! dictionary is every one that ends right before the keyword: what a reader decodes is then
//! never less than what is counted here.

use std::cell::Cell;
use std::io::Read;
use std::rc::Rc;

use hayro::hayro_syntax::object::{Dict, MaybeRef, Name, Object, Stream};
use hayro::hayro_syntax::reader::{Reader, ReaderContext, ReaderExt};

use super::budget::{PDF_NESTING, PDF_PAGES, PDF_STREAM_BYTES, PDF_STREAMS_BYTES};
use super::pdf::NotReadable;
use super::pdf_filters::{Filter, decoder};

/// How far before its `stream` keyword a stream's dictionary may start, and how many of the
/// `<<` there are tried as its start: a real stream's dictionary is a few hundred bytes.
const DICTIONARY_BYTES: usize = 256 << 10;
const DICTIONARY_STARTS: usize = 16;

/// How many object streams deep the objects are looked for: an object stream holds no stream.
const OBJECT_STREAM_LEVELS: u32 = 2;

/// Every stream of the file decoded and counted, its dictionaries' nesting and its pages
/// counted, each within its bound.
pub(crate) fn within_bounds(bytes: &[u8]) -> Result<(), NotReadable> {
    // An encrypted document's streams are measured on their encrypted bytes, which decode to
    // nothing here and to anything once a reader decrypts them: it cannot be bounded unread.
    if is_encrypted(bytes) {
        return Err(NotReadable(
            "it is encrypted, and goldgate cannot measure what an encrypted stream decodes to before a reader decodes it whole; save a decrypted copy (`qpdf --decrypt in.pdf out.pdf`) and name that".into(),
        ));
    }
    let mut scan = Scan::default();
    scan.buffer(bytes, 0)?;
    scan.pages()
}

/// Whether the file names an encryption dictionary (`/Encrypt` in its trailer or its xref
/// stream's dictionary): the name followed by a delimiter, so that `/EncryptMetadata`, a key of
/// that dictionary, is not taken for it.
fn is_encrypted(bytes: &[u8]) -> bool {
    const NAME: &[u8] = b"/Encrypt";
    bytes.windows(NAME.len() + 1).any(|w| {
        w.starts_with(NAME)
            && matches!(
                w[NAME.len()],
                b' ' | b'\t' | b'\r' | b'\n' | b'\x0c' | b'\0' | b'/' | b'<' | b'[' | b'('
            )
    })
}

#[derive(Default)]
struct Scan {
    /// What every stream decoded to so far, through every filter of its chain.
    decoded: u64,
    /// The entries of `/Kids` arrays written in place, and the objects `/Kids` refers to.
    kids: usize,
    kids_by_reference: Vec<u32>,
    /// The entries of every array that is an object of its own, by object number.
    arrays: std::collections::HashMap<u32, usize>,
    /// Dictionaries with `/Contents`: the pages a reader finds by searching when the page tree
    /// is broken.
    contents: usize,
}

impl Scan {
    /// One buffer (the file, or an object stream decoded): its nesting and pages counted, its
    /// streams measured, and the object streams among them scanned in turn.
    fn buffer(&mut self, bytes: &[u8], level: u32) -> Result<(), NotReadable> {
        self.census(bytes)?;
        for at in stream_keywords(bytes) {
            for stream in streams_at(bytes, at) {
                self.stream(bytes, &stream, level)?;
            }
        }
        Ok(())
    }

    fn stream(&mut self, bytes: &[u8], stream: &Stream<'_>, level: u32) -> Result<(), NotReadable> {
        let chain = chain(stream.dict())?;
        let data = extent(bytes, stream);
        let size = decoded_size(data, &chain, None);
        if size > PDF_STREAM_BYTES {
            return Err(NotReadable(format!(
                "a stream of it decodes to more than {} MiB",
                PDF_STREAM_BYTES >> 20
            )));
        }
        self.decoded += size;
        if self.decoded > PDF_STREAMS_BYTES {
            return Err(NotReadable(format!(
                "its streams decode to more than {} MiB",
                PDF_STREAMS_BYTES >> 20
            )));
        }
        let object_stream = stream.dict().get::<Name<'_>>(b"Type".as_slice()).as_deref()
            == Some(b"ObjStm".as_slice());
        if object_stream && level < OBJECT_STREAM_LEVELS {
            let mut held = Vec::new();
            decoded_size(data, &chain, Some(&mut held));
            self.buffer(&held, level + 1)?;
        }
        Ok(())
    }

    /// How deep dictionaries nest and how many pages the page tree lists, from the bytes:
    /// a reader's parser recurses into nested dictionaries (a million of them took it 15 s),
    /// and builds every page it lists when the document opens (2 million took 2.4 GB).
    fn census(&mut self, bytes: &[u8]) -> Result<(), NotReadable> {
        let mut depth = 0usize;
        let mut i = 0;
        while i < bytes.len() {
            let rest = &bytes[i..];
            if rest.starts_with(b"<<") {
                depth += 1;
                if depth > PDF_NESTING {
                    return Err(NotReadable(format!(
                        "its dictionaries nest more than {PDF_NESTING} deep"
                    )));
                }
                i += 2;
            } else if rest.starts_with(b">>") {
                depth = depth.saturating_sub(1);
                i += 2;
            } else if rest.starts_with(b"/Kids") && ends_token(bytes, i + 5) {
                i += 5;
                match kids_at(bytes, i) {
                    Kids::Listed(n) => self.kids += n,
                    Kids::Object(number) => self.kids_by_reference.push(number),
                    Kids::None => {}
                }
            } else if rest.starts_with(b"/Contents") && ends_token(bytes, i + 9) {
                self.contents += 1;
                i += 9;
            } else if rest.starts_with(b"obj") && ends_token(bytes, i + 3) {
                let number = object_number(bytes, i);
                i += 3;
                if let Some(number) = number
                    && let Some(n) = array_entries(bytes, skip_space(bytes, i))
                {
                    self.arrays.insert(number, n);
                }
            } else if let Some(end) = stream_data(bytes, i) {
                // Stream data is bytes, not objects: compressed data holds `<<` by chance.
                i = end;
            } else {
                i += 1;
            }
        }
        self.pages()
    }

    fn pages(&self) -> Result<(), NotReadable> {
        let by_reference: usize = self
            .kids_by_reference
            .iter()
            .filter_map(|n| self.arrays.get(n))
            .sum();
        let listed = self.kids + by_reference;
        if listed.max(self.contents) > PDF_PAGES {
            return Err(NotReadable(format!(
                "its page tree lists more than {PDF_PAGES} pages"
            )));
        }
        Ok(())
    }
}

fn is_space(byte: u8) -> bool {
    matches!(byte, b'\0' | b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

fn is_delimiter(byte: u8) -> bool {
    is_space(byte) || b"()<>[]{}/%".contains(&byte)
}

/// Whether a token ends at `at` (the end, a space or a delimiter).
fn ends_token(bytes: &[u8], at: usize) -> bool {
    bytes.get(at).is_none_or(|&b| is_delimiter(b))
}

fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(|&b| is_space(b)) {
        at += 1;
    }
    at
}

enum Kids {
    Listed(usize),
    Object(u32),
    None,
}

/// What follows `/Kids`: an array (its entries counted) or a reference to one.
fn kids_at(bytes: &[u8], at: usize) -> Kids {
    let at = skip_space(bytes, at);
    if let Some(n) = array_entries(bytes, at) {
        return Kids::Listed(n);
    }
    let number_end = bytes[at..]
        .iter()
        .position(|b| !b.is_ascii_digit())
        .map_or(bytes.len(), |n| at + n);
    let after = &bytes[skip_space(bytes, number_end)..];
    let generation = after.iter().take_while(|b| b.is_ascii_digit()).count();
    let reference = generation > 0 && {
        let r = skip_space(after, generation);
        after.get(r) == Some(&b'R')
    };
    match std::str::from_utf8(&bytes[at..number_end])
        .ok()
        .map(str::parse)
    {
        Some(Ok(number)) if reference => Kids::Object(number),
        _ => Kids::None,
    }
}

/// The entries of the array at `at` that can be pages: references (`R`) and dictionaries
/// written in place, at the array's own level. `None` when no array starts there.
fn array_entries(bytes: &[u8], at: usize) -> Option<usize> {
    if bytes.get(at) != Some(&b'[') {
        return None;
    }
    let (mut entries, mut dictionaries, mut arrays) = (0, 0usize, 0usize);
    let mut i = at + 1;
    while i < bytes.len() {
        let rest = &bytes[i..];
        match rest[0] {
            b'<' if rest.starts_with(b"<<") => {
                if dictionaries == 0 && arrays == 0 {
                    entries += 1;
                }
                dictionaries += 1;
                i += 1;
            }
            b'>' if rest.starts_with(b">>") => {
                dictionaries = dictionaries.saturating_sub(1);
                i += 1;
            }
            b'[' => arrays += 1,
            b']' if arrays == 0 => return Some(entries),
            b']' => arrays -= 1,
            b'R' if dictionaries == 0
                && arrays == 0
                && i > 0
                && is_space(bytes[i - 1])
                && ends_token(bytes, i + 1) =>
            {
                entries += 1;
            }
            _ => {}
        }
        i += 1;
    }
    Some(entries)
}

/// The number of the object whose `obj` keyword is at `at` (`12 0 obj`).
fn object_number(bytes: &[u8], at: usize) -> Option<u32> {
    let before = &bytes[..at];
    let trimmed = before.len() - before.iter().rev().take_while(|&&b| is_space(b)).count();
    let generation = before[..trimmed]
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_digit())
        .count();
    let gap = trimmed - generation;
    let number_end = gap
        - before[..gap]
            .iter()
            .rev()
            .take_while(|&&b| is_space(b))
            .count();
    let digits = before[..number_end]
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_digit())
        .count();
    if generation == 0 || digits == 0 || number_end == gap {
        return None;
    }
    std::str::from_utf8(&before[number_end - digits..number_end])
        .ok()?
        .parse()
        .ok()
}

/// Where the data of a stream whose `stream` keyword is at `at` ends (its `endstream`, or the
/// end of the bytes); `None` when no stream's data starts there.
fn stream_data(bytes: &[u8], at: usize) -> Option<usize> {
    let start = data_start(bytes, at)?;
    Some(find(&bytes[start..], b"endstream").map_or(bytes.len(), |n| start + n + 9))
}

/// The first byte of the data after a `stream` keyword at `at`: the keyword (not the end of
/// `endstream`) and its end of line.
fn data_start(bytes: &[u8], at: usize) -> Option<usize> {
    if !bytes[at..].starts_with(b"stream") || bytes[..at].ends_with(b"end") {
        return None;
    }
    let after = at + 6;
    match bytes.get(after)? {
        b'\r' if bytes.get(after + 1) == Some(&b'\n') => Some(after + 2),
        b'\n' | b'\r' => Some(after + 1),
        _ => None,
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Every place a `stream` keyword starts data.
fn stream_keywords(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        while let Some(found) = find(&bytes[at..], b"stream") {
            let keyword = at + found;
            at = keyword + 6;
            if data_start(bytes, keyword).is_some() {
                return Some(keyword);
            }
        }
        None
    })
}

/// The streams a reader could read with their `stream` keyword at `at`: each dictionary that
/// ends right before it (after spaces and comments), read as the reader reads it, from each
/// `<<` within [`DICTIONARY_BYTES`] before it, the nearest [`DICTIONARY_STARTS`] of them.
fn streams_at(bytes: &[u8], at: usize) -> Vec<Stream<'_>> {
    let data = data_start(bytes, at).unwrap_or(at);
    let from = at.saturating_sub(DICTIONARY_BYTES);
    let mut streams = Vec::new();
    let mut tried = 0;
    let mut start = at;
    while tried < DICTIONARY_STARTS {
        let Some(found) = bytes[from..start].windows(2).rposition(|w| w == b"<<") else {
            break;
        };
        start = from + found;
        tried += 1;
        let mut reader = Reader::new(&bytes[start..]);
        let read = reader.read_with_context::<Stream<'_>>(&ReaderContext::dummy());
        if let Some(stream) = read
            && stream.raw_data().as_ptr() == bytes[data..].as_ptr()
        {
            streams.push(stream);
        }
    }
    streams
}

/// The bytes a reader may decode as the stream's data: those it was read with, or, when its
/// `/Length` is a reference (which a reader follows, and this reading does not), all the bytes
/// after the keyword (the decoders stop where their data ends).
fn extent<'a>(bytes: &'a [u8], stream: &Stream<'a>) -> &'a [u8] {
    let data = stream.raw_data();
    let start = data.as_ptr() as usize - bytes.as_ptr() as usize;
    let by_reference = matches!(
        stream.dict().get_raw::<Object<'_>>(b"Length".as_slice()),
        Some(MaybeRef::Ref(_))
    );
    if by_reference {
        &bytes[start..]
    } else {
        &bytes[start..start + data.len()]
    }
}

/// The filters a stream's data goes through, those that can expand it, in order; a chain that
/// cannot be measured (given by reference, or an image's filter before another) is refused.
fn chain(dict: &Dict<'_>) -> Result<Vec<Filter>, NotReadable> {
    let cannot = |why: &str| {
        Err(NotReadable(format!(
            "a stream of it has {why}, which goldgate cannot measure"
        )))
    };
    let keys = [b"F".as_slice(), b"Filter".as_slice()];
    let mut names: Vec<Vec<u8>> = Vec::new();
    for key in keys {
        match dict.get_raw::<Object<'_>>(key) {
            Some(MaybeRef::Ref(_)) => return cannot("its filters given by reference"),
            Some(MaybeRef::NotRef(Object::Name(name))) if names.is_empty() => {
                names.push(name.as_ref().to_vec());
            }
            Some(MaybeRef::NotRef(Object::Array(array))) if names.is_empty() => {
                for item in array.raw_iter() {
                    match item {
                        MaybeRef::NotRef(Object::Name(name)) => names.push(name.as_ref().to_vec()),
                        MaybeRef::Ref(_) => return cannot("its filters given by reference"),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    let early = !matches!(
        dict.get::<Dict<'_>>(b"DecodeParms".as_slice())
            .and_then(|p| p.get::<i32>(b"EarlyChange".as_slice())),
        Some(0)
    );
    let mut chain = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let filter = match name.as_slice() {
            b"ASCIIHexDecode" | b"AHx" => Filter::Hex,
            b"ASCII85Decode" | b"A85" => Filter::Ascii85,
            b"LZWDecode" | b"LZW" => Filter::Lzw(early),
            b"FlateDecode" | b"Fl" => Filter::Flate,
            b"RunLengthDecode" | b"RL" => Filter::RunLength,
            // An image's filter gives pixels, held to the image budget when drawn; a filter
            // after it would decode pixels, which no writer does.
            b"DCTDecode" | b"DCT" | b"JPXDecode" | b"JBIG2Decode" | b"CCITTFaxDecode" | b"CCF" => {
                if i + 1 < names.len() {
                    return cannot("a filter after an image's filter");
                }
                break;
            }
            // Decryption keeps the size; an unknown filter is skipped by readers.
            _ => continue,
        };
        chain.push(filter);
    }
    Ok(chain)
}

/// What `data` decodes to through `chain`, every filter's output counted, up to a little over
/// [`PDF_STREAM_BYTES`]; the last filter's output kept in `held` when asked (an object stream,
/// whose objects are scanned in turn).
fn decoded_size(data: &[u8], chain: &[Filter], held: Option<&mut Vec<u8>>) -> u64 {
    let counted = Rc::new(Cell::new(0u64));
    let mut reader: Box<dyn Read + '_> = Box::new(data);
    for &filter in chain {
        reader = Box::new(Counted {
            inner: decoder(filter, reader),
            counted: Rc::clone(&counted),
        });
    }
    if chain.is_empty() {
        return 0;
    }
    let _ = match held {
        Some(held) => reader.read_to_end(held).map(|n| n as u64),
        None => std::io::copy(&mut reader, &mut std::io::sink()),
    };
    counted.get()
}

/// A filter's output, counted into the stream's total as it is read; past the budget it ends,
/// so that no chain decodes far beyond what is refused.
struct Counted<'a> {
    inner: Box<dyn Read + 'a>,
    counted: Rc<Cell<u64>>,
}

impl Read for Counted<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.counted.get() > PDF_STREAM_BYTES {
            return Ok(0);
        }
        let n = self.inner.read(buf)?;
        self.counted.set(self.counted.get() + n as u64);
        Ok(n)
    }
}
