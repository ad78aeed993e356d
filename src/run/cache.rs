//! The cache of a suite's `run:` outputs: each successful output kept in a folder of the project,
//! keyed by everything that decides it, so that a run calls the pipeline only for what changed.
//!
//! The key of a call is a SHA-256 digest of its parts: the command after substitution, the suite's
//! folder (relative to the cache's), the bytes of every file an argument names (the document, the
//! script), the files `run.inputs` names, the values of the variables `run.env` names (in the
//! key alone, stretched: never in plain text, nor a digest of their own), the pipeline and the
//! attempt. An entry is written whole (a temporary file
//! renamed), so a process killed at any point leaves either the entry or nothing; a lock per key
//! makes a second process wait for the first one's call instead of calling again. Beside the
//! entries, an index names the key each case's call last had, so that a miss in `replay` says which
//! part changed.

use std::path::{Path, PathBuf};

use serde_json::json;
use sha2::{Digest, Sha256};

use super::command::Ran;
use crate::base::fs::read_bytes;
use crate::base::writing;

/// The version of an entry's layout: an entry of another is a miss.
const VERSION: u64 = 1;

/// The file that marks a folder as a goldgate cache (`goldgate cache` looks for it).
pub(crate) const MARKER: &str = "goldgate-cache.json";

/// The most an entry may hold ([`crate::base::budget::KEPT_OUTPUT_BYTES`]).
const ENTRY_BYTES: u64 = crate::base::budget::KEPT_OUTPUT_BYTES;

/// One call of a case's command, as the cache keys it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CallKey {
    /// The digest of every part: the entry's name.
    pub(crate) digest: String,
    /// What decided the call, each part's name and its digest, in a stable order.
    pub(crate) parts: Vec<(String, String)>,
    /// The variables `run.env` names: their values are in `digest`, never in `parts`.
    pub(crate) env: Vec<String>,
    /// The case's name, pipeline and attempt: which index entry names this call.
    pub(crate) call: String,
}

/// Hex of the SHA-256 of `bytes`.
fn sha256(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::with_capacity(64), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// The SHA-256 of a file's bytes, read in chunks (a scan of gigabytes is never held whole).
pub(crate) fn file_digest(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let mut file = std::fs::File::open(path)?;
    let mut hash = Sha256::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut chunk)?;
        if n == 0 {
            break;
        }
        hash.update(&chunk[..n]);
    }
    Ok(hex(&hash.finalize()))
}

/// What a call is made of, before it is keyed.
pub(crate) struct Call<'a> {
    pub(crate) command: &'a [String],
    /// The folder the command runs in (the suite's).
    pub(crate) dir: &'a Path,
    /// The case file, named relative to `dir` in the index.
    pub(crate) case_file: &'a Path,
    pub(crate) document: Option<&'a Path>,
    pub(crate) pipeline: Option<&'a str>,
    pub(crate) attempt: u32,
    pub(crate) settings: &'a crate::model::suite::CallCache,
}

impl Call<'_> {
    /// The call's key: every part that decides its output, each digested.
    pub(crate) fn key(&self) -> Result<CallKey, CacheError> {
        let mut parts: Vec<(String, String)> = Vec::new();
        parts.push(("command".into(), sha256(self.command.join("\0").as_bytes())));
        // Where the command runs, from the cache folder: the same in every checkout, however
        // the run was started (`goldgate test cases` or an absolute path).
        let folder = path_between(&self.settings.folder, self.dir);
        parts.push(("folder".into(), shown(&folder)));
        // The document, whether or not the command names it, and every other argument that
        // names a file: the script, a configuration.
        if let Some(document) = self.document {
            let name = crate::base::fs::relative_to(document, self.dir)
                .unwrap_or_else(|| document.to_path_buf());
            parts.push((format!("document {}", shown(&name)), digest_of(document)?));
        }
        for named in self.command.iter().flat_map(|arg| named_files(arg)) {
            let path = self.dir.join(named);
            let is_document = self
                .document
                .is_some_and(|d| path == d || Path::new(named) == d);
            if !is_document && path.is_file() {
                parts.push((format!("file {named}"), digest_of(&path)?));
            }
        }
        for (written, files) in input_files(&self.settings.inputs, self.dir)? {
            if files.is_empty() {
                parts.push((format!("inputs {written}"), "nothing".into()));
            }
            for file in files {
                let name = crate::base::fs::relative_to(&file, self.dir).unwrap_or(file.clone());
                parts.push((format!("input {}", shown(&name)), digest_of(&file)?));
            }
        }
        if let Some(p) = self.pipeline {
            parts.push(("pipeline".into(), p.to_owned()));
        }
        parts.push(("attempt".into(), self.attempt.to_string()));
        let mut all = Sha256::new();
        all.update(format!("goldgate cache {VERSION}\0").as_bytes());
        for (name, value) in &parts {
            all.update(name.as_bytes());
            all.update([0]);
            all.update(value.as_bytes());
            all.update([0]);
        }
        // The variables' values decide the key, yet are no part the index shows (see
        // `env_digest`).
        if !self.settings.env.is_empty() {
            all.update(b"env\0");
            all.update(env_digest(&self.settings.env).as_bytes());
            all.update([0]);
        }
        let case = crate::base::fs::relative_to(self.case_file, self.dir)
            .unwrap_or_else(|| self.case_file.to_path_buf());
        // Named from the cache folder: two suites' `a.yaml` are two calls in one shared folder.
        let call = format!(
            "{} {} {} {}",
            shown(&folder),
            shown(&case),
            self.pipeline.unwrap_or("-"),
            self.attempt
        );
        Ok(CallKey {
            digest: hex(&all.finalize()),
            parts,
            env: self.settings.env.clone(),
            call,
        })
    }
}

/// The words of an argument that may name a file the command reads: the whole argument, what
/// follows the first `=` (`--config=conf.json`, `if=scan.pdf`), and what follows a short option
/// (`-oconf.json`). A word that names no file costs nothing, and one that names a file the
/// command does not read only makes a miss more, never a stale hit.
fn named_files(arg: &str) -> Vec<&str> {
    let mut words = vec![arg];
    if let Some((_, value)) = arg.split_once('=')
        && !value.is_empty()
    {
        words.push(value);
    }
    let mut chars = arg.chars();
    if chars.next() == Some('-')
        && chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && arg.len() > 2
    {
        words.push(&arg[2..]);
    }
    words
}

/// The most files the globs of `run.inputs` may match for one call: prompts, schemas and
/// configurations are tens; a thousand is a glob that matches what it does not mean.
const INPUT_FILES: usize = 1_000;

/// The most entries (files, folders, links) the globs of `run.inputs` may walk for one call.
const INPUT_ENTRIES: usize = 100_000;

/// The most bytes of the files `run.inputs` matches hashed for one call (each call is keyed).
const INPUT_BYTES: u64 = 256 << 20;

/// What the globs of `run.inputs` have cost one call so far.
#[derive(Default)]
struct InputBudget {
    files: usize,
    entries: usize,
    bytes: u64,
}

impl InputBudget {
    /// Counts one more of `what`, or says which bound `written` went over.
    fn spend(&mut self, written: &str, what: Spent) -> Result<(), CacheError> {
        let over = match what {
            Spent::Entry => {
                self.entries += 1;
                (self.entries > INPUT_ENTRIES)
                    .then(|| format!("walks more than {INPUT_ENTRIES} files and folders"))
            }
            Spent::File(bytes) => {
                self.files += 1;
                self.bytes = self.bytes.saturating_add(bytes);
                if self.files > INPUT_FILES {
                    Some(format!("matches more than {INPUT_FILES} files"))
                } else {
                    (self.bytes > INPUT_BYTES)
                        .then(|| format!("matches more than {} MiB", INPUT_BYTES >> 20))
                }
            }
        };
        match over {
            Some(over) => Err(CacheError::TooMuchInput {
                written: written.to_owned(),
                over,
            }),
            None => Ok(()),
        }
    }
}

/// What one step of a walk of `run.inputs` costs.
enum Spent {
    Entry,
    File(u64),
}

/// The files each glob of `run.inputs` matches (relative to `dir`), sorted. A link to a folder
/// under a wildcard is not followed (links to their own folders made the walk endless), the
/// walk is bounded ([`InputBudget`]), and a file that lies outside the project, by its path or
/// through a link, is refused as every other read is.
fn input_files(globs: &[String], dir: &Path) -> Result<Vec<(String, Vec<PathBuf>)>, CacheError> {
    let mut budget = InputBudget::default();
    globs
        .iter()
        .map(|written| {
            let mut files = matched(written, dir, &mut budget)?;
            files.sort();
            Ok((written.clone(), files))
        })
        .collect()
}

/// The files `written` matches under `dir`: only the folder before its first wildcard is
/// walked (through a link, when it is one: a linked folder is named so, `prompts/shared/*.txt`),
/// and only as deep as the glob reaches (any depth under `**`).
fn matched(
    written: &str,
    dir: &Path,
    budget: &mut InputBudget,
) -> Result<Vec<PathBuf>, CacheError> {
    let pattern = glob::Pattern::new(written).map_err(|source| CacheError::NotAGlob {
        written: written.to_owned(),
        source,
    })?;
    // `*` stays within a folder, as in a shell (and as `glob::glob` read it).
    let options = glob::MatchOptions {
        require_literal_separator: true,
        ..glob::MatchOptions::new()
    };
    let words: Vec<&str> = written.split('/').collect();
    let literal = words
        .iter()
        .take_while(|w| !w.contains(['*', '?', '[']))
        .count();
    let mut walk = walkdir::WalkDir::new(dir.join(words[..literal].join("/"))).sort_by_file_name();
    if !written.contains("**") {
        walk = walk.max_depth(words.len() - literal);
    }
    let mut files = Vec::new();
    for entry in walk {
        budget.spend(written, Spent::Entry)?;
        // An entry gone meanwhile, or a folder that cannot be read: not matched.
        let Ok(entry) = entry else { continue };
        let name = entry.path().strip_prefix(dir).unwrap_or(entry.path());
        // A link is taken when it leads to a file (its target's bytes decide the call).
        let is_file =
            entry.file_type().is_file() || entry.path_is_symlink() && entry.path().is_file();
        if !is_file || !pattern.matches_path_with(name, options) {
            continue;
        }
        if let Some(root) = crate::base::fs::outside_the_project(dir, entry.path()) {
            return Err(CacheError::Outside {
                written: written.to_owned(),
                path: entry.path().to_path_buf(),
                root,
            });
        }
        let bytes = std::fs::metadata(entry.path()).map_or(0, |m| m.len());
        budget.spend(written, Spent::File(bytes))?;
        files.push(entry.into_path());
    }
    Ok(files)
}

/// How many times the values of `run.env` are hashed over: a guess at a secret checked against
/// a committed key costs that many hashes instead of one (some 10 ms a call in an optimised
/// build, once per process and values).
const ENV_ROUNDS: u32 = 10_000;

/// One digest of the values of the variables `names` (unset is a value of its own), stretched
/// over [`ENV_ROUNDS`]. The index keeps no digest of a variable of its own: an unsalted SHA-256
/// of each value, committed, let a short secret be confirmed offline in one hash a guess. The
/// digest must be the same on every machine for a committed cache to hit, so it is salted by
/// goldgate and the names, not by anything random.
fn env_digest(names: &[String]) -> String {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static KNOWN: OnceLock<Mutex<HashMap<String, String>>> = OnceLock::new();
    let mut material = b"goldgate run.env\0".to_vec();
    for name in names {
        material.extend_from_slice(name.as_bytes());
        material.push(0);
        match std::env::var_os(name) {
            Some(v) => {
                material.push(b'=');
                material.extend_from_slice(v.as_encoded_bytes());
            }
            None => material.push(b'-'),
        }
        material.push(0);
    }
    // Remembered by a digest of the values, never by the values.
    let known = KNOWN.get_or_init(Mutex::default);
    let memo = sha256(&material);
    if let Some(found) = known.lock().unwrap_or_else(|e| e.into_inner()).get(&memo) {
        return found.clone();
    }
    let mut round: [u8; 32] = Sha256::digest(&material).into();
    for _ in 0..ENV_ROUNDS {
        let mut hash = Sha256::new();
        hash.update(round);
        hash.update(&material);
        round = hash.finalize().into();
    }
    let stretched = hex(&round);
    known
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(memo, stretched.clone());
    stretched
}

/// The path from the folder `from` to `to` (`../..` from `cases/.goldgate/cache` to `cases`),
/// both taken at their real places.
fn path_between(from: &Path, to: &Path) -> PathBuf {
    let (from, to) = (
        crate::base::fs::canonical(from),
        crate::base::fs::canonical(to),
    );
    let (a, b): (Vec<_>, Vec<_>) = (from.components().collect(), to.components().collect());
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut path = PathBuf::new();
    for _ in common..a.len() {
        path.push("..");
    }
    for part in &b[common..] {
        path.push(part);
    }
    path
}

/// A path as the index and the messages show it, `/`-separated.
fn shown(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

fn digest_of(path: &Path) -> Result<String, CacheError> {
    file_digest(path).map_err(|source| CacheError::Unreadable {
        path: path.to_path_buf(),
        source,
    })
}

/// Why a call could not be keyed.
#[derive(Debug)]
pub(crate) enum CacheError {
    /// A file that decides the call could not be read.
    Unreadable {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// A glob of `run.inputs` does not parse.
    NotAGlob {
        /// The glob as written.
        written: String,
        /// The parser's error.
        source: glob::PatternError,
    },
    /// A glob of `run.inputs` goes over a bound of [`InputBudget`].
    TooMuchInput {
        /// The glob as written.
        written: String,
        /// Which bound, as a message says it.
        over: String,
    },
    /// A glob of `run.inputs` matches a file outside the project.
    Outside {
        /// The glob as written.
        written: String,
        /// The file, as the walk reached it.
        path: PathBuf,
        /// The project's root.
        root: PathBuf,
    },
}

impl std::fmt::Display for CacheError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CacheError::Unreadable { path, source } => write!(
                f,
                "cannot read `{}` to key its call: {source}",
                path.display()
            ),
            CacheError::NotAGlob { written, source } => {
                write!(f, "`run.inputs` `{written}` is not a glob: {}", source.msg)
            }
            CacheError::TooMuchInput { written, over } => write!(
                f,
                "`run.inputs` `{written}` {over}, more than goldgate hashes to key one call (name only the files that decide the output, such as `prompts/*.txt`)"
            ),
            CacheError::Outside {
                written,
                path,
                root,
            } => write!(
                f,
                "`run.inputs` `{written}` matches `{}`, outside the project `{}`, and goldgate reads nothing outside it (move the file into the project; a link that leads out counts as outside)",
                path.display(),
                root.display()
            ),
        }
    }
}

impl std::error::Error for CacheError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CacheError::Unreadable { source, .. } => Some(source),
            CacheError::NotAGlob { source, .. } => Some(source),
            CacheError::TooMuchInput { .. } | CacheError::Outside { .. } => None,
        }
    }
}

/// Whether `path` is a symbolic link (a committed cache may hold one; it is never read through).
fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// A cache folder, made ready to be used.
pub(crate) struct Folder {
    dir: PathBuf,
}

impl Folder {
    /// The folder `dir`, made (with its marker and a `.gitignore` for its locks) when new.
    /// The cache is committed, so a pull request can plant a link in it: every file and folder
    /// of it is made and written through [`crate::base::writing`], which refuses links.
    pub(crate) fn open(dir: &Path) -> std::io::Result<Folder> {
        writing::create_folders(&dir.join("index"))?;
        writing::create_folders(&dir.join(".locks"))?;
        let marker = dir.join(MARKER);
        if !marker.is_file() {
            writing::replace(
                &marker,
                format!(
                    "{{\"goldgate_cache\": {VERSION}, \"about\": \"outputs of the suites' run: commands, keyed by what decides them; commit this folder to replay them without calling (GOLDGATE_CACHE=replay)\"}}\n"
                )
                .as_bytes(),
            )?;
        }
        let ignore = dir.join(".gitignore");
        if !ignore.is_file() {
            writing::replace(
                &ignore,
                b"# Locks of calls in progress.\n.locks/\n.*.tmp*\n",
            )?;
        }
        Ok(Folder {
            dir: dir.to_path_buf(),
        })
    }

    fn entry(&self, key: &CallKey) -> PathBuf {
        self.dir.join(format!("{}.json", key.digest))
    }

    fn index(&self, key: &CallKey) -> PathBuf {
        self.dir
            .join("index")
            .join(format!("{}.json", sha256(key.call.as_bytes())))
    }

    /// Holds the lock of `key` until dropped: one call per key, whatever the processes.
    pub(crate) fn lock(&self, key: &CallKey) -> std::io::Result<crate::base::lock::Held> {
        crate::base::lock::lock_file(&self.dir.join(".locks").join(&key.digest))
    }

    /// The output kept for `key`, if a whole entry of this layout is there; its time is set to
    /// now, so that `goldgate cache prune` removes what no run uses, not what is old.
    pub(crate) fn kept(&self, key: &CallKey) -> Option<(Ran, Option<String>)> {
        let path = self.entry(key);
        // A link in an entry's place is no entry: never read through, replaced when kept.
        if is_link(&path) {
            return None;
        }
        let bytes = read_bytes(&path, ENTRY_BYTES).ok()?;
        if let Ok(file) = std::fs::File::options().append(true).open(&path) {
            let _ = file.set_modified(std::time::SystemTime::now());
        }
        let json: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
        if json.get("goldgate_cache")?.as_u64()? != VERSION
            || json.get("key")?.as_str()? != key.digest
        {
            return None;
        }
        let ran = Ran {
            stdout: json.get("stdout")?.as_str()?.to_owned(),
            latency_ms: json.get("latency_ms")?.as_f64()?,
            // Never kept (an entry of an earlier version may hold one: it is not shown).
            stderr_tail: String::new(),
        };
        // No more than a command may print: an entry written by hand is held to it too.
        if ran.stdout.len() as u64 > crate::base::budget::FILE_BYTES {
            return None;
        }
        let run = json.get("run").and_then(|r| r.as_str()).map(str::to_owned);
        Some((ran, run))
    }

    /// Keeps a successful output, and names its key in the index of its case's call.
    /// `run` names the run that made it (a digest, never a path), when it spans processes.
    /// Its standard error is not kept: a pipeline that logs its key or token would put it in a
    /// folder a team commits, and a successful call's standard error is never shown.
    pub(crate) fn keep(
        &self,
        key: &CallKey,
        ran: &Ran,
        run: Option<&str>,
    ) -> Result<(), writing::Refused> {
        let mut entry = json!({
            "goldgate_cache": VERSION,
            "key": key.digest,
            "call": key.call,
            "stdout": ran.stdout,
            "latency_ms": ran.latency_ms,
        });
        if let Some(run) = run {
            entry["run"] = json!(run);
        }
        let entry = entry.to_string();
        // Larger than a reader takes back: not kept, only called again next time.
        if entry.len() as u64 > ENTRY_BYTES {
            return Ok(());
        }
        writing::replace(&self.entry(key), entry.as_bytes())?;
        let parts: serde_json::Map<String, serde_json::Value> = key
            .parts
            .iter()
            .map(|(n, v)| (n.clone(), json!(v)))
            .collect();
        // The variables by name only: their values are in the key alone.
        let index = json!({"call": key.call, "key": key.digest, "parts": parts, "env": key.env});
        writing::replace(&self.index(key), index.to_string().as_bytes())
    }

    /// Why `key` has no entry, part by part against the key its call last had.
    pub(crate) fn why_missed(&self, key: &CallKey) -> String {
        let index = self.index(key);
        let last = (!is_link(&index))
            .then(|| read_bytes(&index, ENTRY_BYTES).ok())
            .flatten()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok());
        let Some(last) = last else {
            return "no output of this call was ever kept".into();
        };
        if last["key"] == key.digest.as_str() {
            return "its kept output is gone or unreadable".into();
        }
        let before = last["parts"].as_object().cloned().unwrap_or_default();
        let mut changed: Vec<String> = Vec::new();
        for (name, value) in &key.parts {
            match before.get(name).and_then(|v| v.as_str()) {
                Some(b) if b == value => {}
                Some(_) => changed.push(format!("{} changed", part_name(name))),
                None => changed.push(format!("{} is new", part_name(name))),
            }
        }
        // (An index of an earlier version keeps a digest per variable: no part of a key now.)
        for name in before.keys().filter(|n| !n.starts_with("env ")) {
            if !key.parts.iter().any(|(n, _)| n == name) {
                changed.push(format!("{} is gone", part_name(name)));
            }
        }
        if changed.is_empty() && !key.env.is_empty() {
            let names: Vec<String> = key.env.iter().map(|n| format!("`{n}`")).collect();
            return format!(
                "the value of a variable `run.env` names changed ({})",
                names.join(", ")
            );
        }
        if changed.is_empty() {
            return "its key changed".into();
        }
        changed.join(", ")
    }
}

/// A key part as a person names it.
fn part_name(part: &str) -> String {
    match part.split_once(' ') {
        Some(("file", f)) => format!("the file `{f}`"),
        Some(("input", f)) => format!("the input `{f}`"),
        Some(("inputs", g)) => format!("what `{g}` matches"),
        Some(("document", d)) => format!("the document `{d}`"),
        _ => format!("the {part}"),
    }
}
