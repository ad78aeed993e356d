//! A page image embedded in the HTML page: which kind it is, and its bytes as base64 (RFC 4648,
//! standard alphabet, padded), so that the page stays one file that fetches nothing. Twenty
//! lines do not earn a dependency.

/// The media type of a PNG or JPEG image, by its first bytes (not its name); `None` for
/// anything else.
pub fn image_type(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else {
        None
    }
}

/// The size in pixels (width, height) of a PNG or JPEG image, read from its header (a PNG's
/// `IHDR`, a JPEG's start of frame); `None` when it holds none, or a size of 0.
pub fn image_size(bytes: &[u8]) -> Option<(u32, u32)> {
    let be = |at: usize, n: usize| {
        bytes
            .get(at..at + n)
            .map(|b| b.iter().fold(0u32, |v, &b| v << 8 | u32::from(b)))
    };
    let size = match image_type(bytes)? {
        "image/png" if bytes.get(12..16) == Some(b"IHDR") => (be(16, 4)?, be(20, 4)?),
        "image/png" => return None,
        _ => {
            // Segments from the start of image: a marker, its length, its data; the size is in
            // the first start of frame (C0–CF but C4, C8 and CC, which are no frame).
            let mut at = 2;
            loop {
                while bytes.get(at) == Some(&0xFF) && bytes.get(at + 1) == Some(&0xFF) {
                    at += 1;
                }
                let (0xFF, marker) = (*bytes.get(at)?, *bytes.get(at + 1)?) else {
                    return None;
                };
                if (0xC0..=0xCF).contains(&marker) && ![0xC4, 0xC8, 0xCC].contains(&marker) {
                    break (be(at + 7, 2)?, be(at + 5, 2)?);
                }
                at += 2 + be(at + 2, 2)? as usize;
            }
        }
    };
    (size.0 > 0 && size.1 > 0).then_some(size)
}

/// Bytes as base64.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_of_the_rfc_4648_vectors() {
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), coded);
        }
        assert_eq!(base64(&[0xFF, 0xFE, 0xFD]), "//79");
    }

    #[test]
    fn an_images_size_is_read_from_its_header() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        png.extend([0, 0, 3, 0x20, 0, 0, 1, 0xF4, 8, 2, 0, 0, 0]);
        assert_eq!(image_size(&png), Some((800, 500)));
        // A JPEG: start of image, an APP0 segment of 4 bytes, then a baseline frame.
        let jpeg = [
            0xFF, 0xD8, 0xFF, 0xE0, 0, 4, 0, 0, 0xFF, 0xC0, 0, 11, 8, 0x01, 0xF4, 0x03, 0x20,
        ];
        assert_eq!(image_size(&jpeg), Some((800, 500)));
        assert_eq!(image_size(&jpeg[..14]), None);
        assert_eq!(image_size(b"\x89PNG\r\n\x1a\n"), None);
    }

    #[test]
    fn images_are_known_by_their_first_bytes() {
        assert_eq!(image_type(b"\x89PNG\r\n\x1a\n...."), Some("image/png"));
        assert_eq!(image_type(&[0xFF, 0xD8, 0xFF, 0xE0]), Some("image/jpeg"));
        assert_eq!(image_type(b"%PDF-1.7"), None);
    }
}
