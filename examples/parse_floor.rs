//! The parse floor: reads and parses every `.yaml` (serde-saphyr, into `serde_json::Value`) and
//! `.json` file under a folder and does nothing else. goldgate's CPU time on a suite over this
//! program's is the cost of everything goldgate does beyond reading its files (`perf/measure.sh`).
//!
//! cargo run --release --example parse_floor -- DIR

fn main() {
    let Some(dir) = std::env::args().nth(1) else {
        eprintln!("usage: parse_floor DIR");
        std::process::exit(2);
    };
    let (mut files, mut bytes) = (0usize, 0usize);
    for entry in walkdir::WalkDir::new(&dir).sort_by_file_name() {
        let Ok(entry) = entry else { continue };
        let path = entry.path();
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let parsed = match path.extension().and_then(|e| e.to_str()) {
            Some("yaml") => serde_saphyr::from_str::<serde_json::Value>(&text).is_ok(),
            Some("json") => serde_json::from_str::<serde_json::Value>(&text).is_ok(),
            _ => continue,
        };
        std::hint::black_box(parsed);
        files += 1;
        bytes += text.len();
    }
    eprintln!("{files} files, {bytes} bytes parsed");
}
