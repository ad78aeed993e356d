//! The parse floor: reads and parses every `.yaml` (serde-saphyr, into `serde_json::Value`) and
//! `.json` file under a folder, in name order, and does nothing else. goldgate's CPU time on a
//! gold set over this program's is the cost of everything goldgate does beyond reading its files
//! (`perf/measure.sh`).
//!
//! cargo run --release --manifest-path perf/floor/Cargo.toml -- DIR

fn main() {
    let Some(dir) = std::env::args().nth(1) else {
        eprintln!("usage: parse-floor DIR");
        std::process::exit(2);
    };
    let (mut files, mut bytes, mut unread) = (0usize, 0usize, 0usize);
    for entry in walkdir::WalkDir::new(&dir).sort_by_file_name() {
        let Ok(entry) = entry else { continue };
        let path = entry.path();
        let parsed = match path.extension().and_then(|e| e.to_str()) {
            Some("yaml") => std::fs::read_to_string(path).map(|text| {
                bytes += text.len();
                serde_saphyr::from_str::<serde_json::Value>(&text).map(std::hint::black_box).is_ok()
            }),
            Some("json") => std::fs::read_to_string(path).map(|text| {
                bytes += text.len();
                serde_json::from_str::<serde_json::Value>(&text).map(std::hint::black_box).is_ok()
            }),
            _ => continue,
        };
        files += 1;
        if !parsed.unwrap_or(false) {
            unread += 1;
        }
    }
    eprintln!("{files} files, {bytes} bytes parsed, {unread} that did not read");
}
