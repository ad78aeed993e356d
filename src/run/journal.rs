//! The journal of a run that spans processes (nextest runs one per test; `NEXTEST_RUN_ID` or
//! `GOLDGATE_RUN_ID` names the run): one file of record lines in the run's private folder. A test
//! appends its record when it ends, under a short lock (O(1) whatever the run's size); no
//! process rewrites anything that grows with the run. The run's files are made from it once, when
//! the run is over (`cargo goldgate test`, `goldgate report --run ID` or `--last`).
//!
//! A process killed while appending leaves a torn last line: the next append starts on a line of
//! its own, and a reader skips what does not read, so every completed test stays in the journal.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::outputs::{Outputs, Records, Unended};
use crate::base::fs::hash_hex;
use crate::base::lock::lock_file;
use crate::base::state::{self, Project, create_private, open_private};

/// A journal being written whole, put in place when the run ends ([`Journal::begin`]).
#[derive(Debug)]
pub(crate) struct Replacement {
    file: std::io::BufWriter<std::fs::File>,
    temporary: PathBuf,
    journal: PathBuf,
}

impl Replacement {
    /// Appends record lines.
    pub(crate) fn write(&mut self, lines: &[u8]) -> std::io::Result<()> {
        self.file.write_all(lines)
    }

    /// Appends every byte `file` holds from where it stands.
    pub(crate) fn copy_from(&mut self, file: &mut std::fs::File) -> std::io::Result<()> {
        std::io::copy(file, &mut self.file).map(|_| ())
    }

    /// Puts it in place of the journal.
    pub(crate) fn finish(self) -> std::io::Result<()> {
        let file = self.file.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        std::fs::rename(&self.temporary, &self.journal)
    }
}

/// The start of the name of a process's note that it began (see [`Journal::begin_process`]).
const PROCESS: &str = "process-";

/// A process of the run that began: [`Begun::ended`] says it ended.
pub(crate) struct Begun {
    path: PathBuf,
}

impl Begun {
    /// The process ended: its note goes.
    pub(crate) fn ended(self) -> std::io::Result<()> {
        std::fs::remove_file(&self.path)
    }
}

/// The folder of the run `run_id` of `project` in the state folder (made 0700), where its
/// journal and its commands' outputs are kept; the project's other runs older than a day are
/// removed first.
pub(crate) fn run_dir(project: &state::Project, run_id: &str) -> std::io::Result<PathBuf> {
    let runs = project.dir().join("runs");
    state::sub_dir(&runs)?;
    let own = hash_hex(&[run_id.as_bytes()]);
    static PRUNED: std::sync::Once = std::sync::Once::new();
    PRUNED.call_once(|| forget_old_runs(&runs, &own));
    let dir = runs.join(own);
    state::sub_dir(&dir)?;
    Ok(dir)
}

/// Removes the folders of other runs older than a day; a run in progress keeps its own.
fn forget_old_runs(runs: &Path, current: &str) {
    let Ok(list) = std::fs::read_dir(runs) else {
        return;
    };
    for entry in list.flatten() {
        let old = entry.metadata().is_ok_and(|m| state::is_old(&m));
        if old && entry.file_name().to_string_lossy() != current {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The journal of one run.
#[derive(Debug, Clone)]
pub(crate) struct Journal {
    dir: PathBuf,
    /// The cases folder its records come from, as a tag: one run may span crates (a nextest
    /// workspace run), whose tests may share names; each keeps its own.
    scope: String,
    /// The same run's journals in other projects, for a reader: a workspace run from its root
    /// writes one per member crate.
    others: Vec<PathBuf>,
}

impl Journal {
    /// The journal of the run `run_id` in the project of `cases`, the folder whose tests the
    /// process runs (its folder made private if new).
    pub(crate) fn for_run(run_id: &str, cases: &Path) -> std::io::Result<Journal> {
        let project = Project::of(cases)?;
        let dir = run_dir(&project, run_id)?;
        let real = crate::base::fs::canonical(cases);
        let scope =
            crate::base::fs::hash_hex(&[real.as_os_str().as_encoded_bytes()])[..8].to_owned();
        let journal = Journal {
            dir,
            scope,
            others: Vec::new(),
        };
        // Its id, for `--last`: written by whichever process comes first (created exclusively:
        // two processes starting at once never write it twice).
        match create_private(&journal.dir.join("id")) {
            Ok(mut f) => f.write_all(run_id.as_bytes())?,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
        Ok(journal)
    }

    /// A journal to read, in `dir`.
    fn reading(dir: PathBuf) -> Journal {
        Journal {
            dir,
            scope: String::new(),
            others: Vec::new(),
        }
    }

    /// The folder of the run's files in the state folder (its shared command outputs).
    pub(crate) fn folder(&self) -> &Path {
        &self.dir
    }

    /// The run `run_id` as a reader of `project` sees it: its journals in the project and in
    /// the projects inside it; `None` when it has written nothing there.
    pub(crate) fn existing(run_id: &str, project: &Project) -> std::io::Result<Option<Journal>> {
        let key = crate::base::fs::hash_hex(&[run_id.as_bytes()]);
        let dirs = project
            .within()?
            .into_iter()
            .map(|p| p.dir().join("runs").join(&key));
        Ok(Journal::of_dirs(dirs))
    }

    /// The journal of the run folders `dirs` that have one, read as one.
    fn of_dirs(dirs: impl IntoIterator<Item = PathBuf>) -> Option<Journal> {
        let mut dirs = dirs
            .into_iter()
            .filter(|dir| Journal::reading(dir.clone()).exists());
        let mut journal = Journal::reading(dirs.next()?);
        journal.others = dirs.collect();
        Some(journal)
    }

    /// The newest run a reader of `project` sees (the run whose journal was written last), with
    /// its id; with the same run's journals in the projects inside it.
    pub(crate) fn last(project: &Project) -> std::io::Result<Option<(Journal, String)>> {
        // Every run folder seen, its journal's time of writing.
        let mut runs: Vec<(std::time::SystemTime, PathBuf)> = Vec::new();
        for project in project.within()? {
            let Ok(list) = std::fs::read_dir(project.dir().join("runs")) else {
                continue;
            };
            runs.extend(list.flatten().filter_map(|entry| {
                let journal = std::fs::symlink_metadata(entry.path().join("journal"));
                Some((journal.and_then(|m| m.modified()).ok()?, entry.path()))
            }));
        }
        let Some((_, dir)) = runs.iter().max_by_key(|(at, _)| *at).cloned() else {
            return Ok(None);
        };
        let id_of = |dir: &Path| {
            std::fs::read_to_string(dir.join("id"))
                .ok()
                .filter(|id| !id.is_empty())
        };
        // Only a whole id: a run whose first process was killed before writing it is named by
        // its folder, and read alone.
        let Some(id) = id_of(&dir) else {
            let id = dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            return Ok(Some((Journal::reading(dir), id)));
        };
        let same = runs
            .into_iter()
            .map(|(_, d)| d)
            .filter(|d| *d == dir || id_of(d).as_ref() == Some(&id));
        Ok(Journal::of_dirs(same).map(|j| (j, id)))
    }

    /// Where a run in one process (no run id) of `project` leaves the records `goldgate review`
    /// acts on: its failed tests, its tests new to their baseline and its tests with a field
    /// that is not an exact match. Not a run's journal: `goldgate report --last` never reads it.
    pub(crate) fn of_the_last_run_in_one_process(project: &Project) -> Journal {
        Journal::reading(project.dir().join("last-run"))
    }

    /// Holds the journal's lock, for a writer that replaces it whole.
    pub(crate) fn hold(&self) -> std::io::Result<crate::base::lock::Held> {
        crate::base::state::sub_dir(&self.dir)?;
        lock_file(&self.lock())
    }

    /// Removes the journal: what it holds is not the last run's.
    pub(crate) fn forget(&self) {
        let _ = std::fs::remove_file(self.path());
    }

    /// A new journal to put in place of this one when the run ends (a private file of this
    /// process, renamed over it then).
    pub(crate) fn begin(&self) -> std::io::Result<Replacement> {
        let temporary = self.dir.join(format!("journal.{}.tmp", std::process::id()));
        match std::fs::remove_file(&temporary) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        Ok(Replacement {
            file: std::io::BufWriter::new(create_private(&temporary)?),
            temporary,
            journal: self.path(),
        })
    }

    /// The records `goldgate review` reads for `project`: the newest run's journal it sees, or
    /// its last run in one process when that wrote after it; with what to call it.
    pub(crate) fn to_review(project: &Project) -> std::io::Result<Option<(Journal, String)>> {
        let newest = Journal::last(project)?;
        let own = Journal::of_the_last_run_in_one_process(project);
        let own_at = own.exists().then(|| own.written_at().ok()).flatten();
        let newest_at = newest.as_ref().and_then(|(j, _)| j.written_at().ok());
        Ok(match (own_at, newest_at) {
            (Some(own_at), Some(at)) if own_at < at => newest,
            (Some(_), _) => Some((own, "the last run in one process".to_owned())),
            (None, _) => newest,
        })
    }

    /// A record line of this process (`KIND<TAB>"NAME"<TAB>JSON`) as the journal keeps it: its
    /// name prefixed with the scope, so that the tests of two crates of one run never meet.
    pub(crate) fn line_of(&self, line: &str) -> Vec<u8> {
        match line.split_once('\t') {
            Some((kind, rest)) => format!("{kind}\t{}\t{rest}", self.scope).into_bytes(),
            None => line.as_bytes().to_vec(),
        }
    }

    /// When the run last wrote a record: a file changed after it is not what the run read.
    pub(crate) fn written_at(&self) -> std::io::Result<std::time::SystemTime> {
        let mut at = std::fs::metadata(self.path())?.modified()?;
        for dir in &self.others {
            at = at.max(std::fs::metadata(dir.join("journal"))?.modified()?);
        }
        Ok(at)
    }

    /// Whether the run has written any record.
    fn exists(&self) -> bool {
        std::fs::symlink_metadata(self.path()).is_ok_and(|m| m.is_file())
    }

    fn path(&self) -> PathBuf {
        self.dir.join("journal")
    }

    fn lock(&self) -> PathBuf {
        self.dir.join("journal.lock")
    }

    /// Appends record lines (each ending in a newline), starting on a line of their own.
    pub(crate) fn append(&self, lines: &[u8]) -> std::io::Result<()> {
        if lines.is_empty() {
            return Ok(());
        }
        let _held = lock_file(&self.lock())?;
        let mut file = open_private(&self.path())?;
        let length = file.metadata()?.len();
        if length > 0 {
            // A process killed while appending left its line without its end.
            let mut last = [0u8];
            file.seek(SeekFrom::Start(length - 1))?;
            file.read_exact(&mut last)?;
            if last[0] != b'\n' {
                file.write_all(b"\n")?;
            }
        }
        file.write_all(lines)
    }

    /// Every record of the run so far; lines that do not read (torn) are skipped and counted.
    pub(crate) fn read(&self) -> std::io::Result<Records> {
        let listed = self.listed()?;
        let unended = self.unended()?;
        self.read_records()
            .map(|r| r.with_listed(listed).with_unended(unended))
    }

    /// Notes that this process begins to run `names`, beside the journal, in a file of its own
    /// that [`Begun::ended`] removes at the process's end: a process killed before its end
    /// leaves it, and a reader knows the run is not whole, and which tests it never recorded.
    pub(crate) fn begin_process(&self, names: &[&str]) -> std::io::Result<Begun> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let path = self
            .dir
            .join(format!("{PROCESS}{}-{nanos}", std::process::id()));
        let lines: Vec<u8> = names
            .iter()
            .flat_map(|n| self.line_of(&super::outputs::listed_line(n)))
            .collect();
        create_private(&path)?.write_all(&lines)?;
        Ok(Begun { path })
    }

    /// The processes of the run that began and never ended, and the keys of the tests they
    /// were to run.
    fn unended(&self) -> std::io::Result<Unended> {
        let mut unended = Unended::default();
        for dir in std::iter::once(&self.dir).chain(&self.others) {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            for entry in entries.flatten() {
                if !entry.file_name().to_string_lossy().starts_with(PROCESS) {
                    continue;
                }
                let mut text = String::new();
                open_private(&entry.path())?.read_to_string(&mut text)?;
                unended.processes += 1;
                unended.tests.extend(
                    text.split_inclusive('\n')
                        .filter_map(super::outputs::key_of_listed),
                );
            }
        }
        Ok(unended)
    }

    fn read_records(&self) -> std::io::Result<Records> {
        if self.others.is_empty() {
            return Records::read(open_private(&self.path())?, true);
        }
        // A run over several projects: their journals read as one, each from a line of its own.
        let mut all = tempfile::tempfile()?;
        for path in
            std::iter::once(self.path()).chain(self.others.iter().map(|d| d.join("journal")))
        {
            let (mut source, mut buf, mut last) = (open_private(&path)?, vec![0; 1 << 16], b'\n');
            loop {
                let n = source.read(&mut buf)?;
                let Some(&end) = buf[..n].last() else { break };
                all.write_all(&buf[..n])?;
                last = end;
            }
            // A torn last line stays torn, and the next journal starts on a line of its own.
            if last != b'\n' {
                all.write_all(b"\n")?;
            }
        }
        Records::read(all, true)
    }

    /// Copies the whole record lines of the tests `keep` keeps (by test name) into `out`; a torn
    /// line is left behind.
    pub(crate) fn copy_records(
        &self,
        out: &mut Replacement,
        keep: impl Fn(&str) -> bool,
    ) -> std::io::Result<()> {
        use std::io::BufRead;
        for path in
            std::iter::once(self.path()).chain(self.others.iter().map(|d| d.join("journal")))
        {
            let mut reader = std::io::BufReader::new(open_private(&path)?);
            let mut line = Vec::new();
            loop {
                line.clear();
                if reader.read_until(b'\n', &mut line)? == 0 {
                    break;
                }
                let kept = std::str::from_utf8(&line)
                    .ok()
                    .and_then(super::outputs::test_of_line)
                    .is_some_and(|test| keep(&test));
                if kept {
                    out.write(&line)?;
                }
            }
        }
        Ok(())
    }

    /// Notes the tests a listing of the run found (lines of [`super::outputs::listed_line`]),
    /// beside the journal: `--last` still finds the run whose tests last recorded.
    pub(crate) fn note_listed(&self, lines: &[u8]) -> std::io::Result<()> {
        if lines.is_empty() {
            return Ok(());
        }
        let _held = lock_file(&self.lock())?;
        open_private(&self.dir.join("listed"))?.write_all(lines)
    }

    /// The keys of the tests the run's listings found.
    fn listed(&self) -> std::io::Result<std::collections::BTreeSet<String>> {
        let mut keys = std::collections::BTreeSet::new();
        for dir in std::iter::once(&self.dir).chain(&self.others) {
            let path = dir.join("listed");
            if std::fs::symlink_metadata(&path).is_err() {
                continue;
            }
            let mut text = String::new();
            open_private(&path)?.read_to_string(&mut text)?;
            keys.extend(
                text.split_inclusive('\n')
                    .filter_map(super::outputs::key_of_listed),
            );
        }
        Ok(keys)
    }

    /// Notes the files the run's processes were asked for (the first process's, once), so that
    /// the end step writes them.
    pub(crate) fn note_outputs(&self, outputs: &Outputs) -> std::io::Result<()> {
        if !outputs.any() {
            return Ok(());
        }
        let path = self.dir.join("outputs.json");
        if std::fs::symlink_metadata(&path).is_ok() {
            return Ok(());
        }
        let _held = lock_file(&self.lock())?;
        let mut file = open_private(&path)?;
        if file.metadata()?.len() == 0 {
            let text = serde_json::to_string(&outputs.clone().absolute())?;
            file.write_all(text.as_bytes())?;
        }
        Ok(())
    }

    /// Notes that a process of the run ran a part of its tests (a filter, a partition), for the
    /// run's history: a file whose presence says it.
    pub(crate) fn note_partial(&self) -> std::io::Result<()> {
        let path = self.dir.join("partial");
        if std::fs::symlink_metadata(&path).is_ok() {
            return Ok(());
        }
        open_private(&path).map(drop)
    }

    /// Whether a process of the run noted that it ran a part of its tests.
    pub(crate) fn partial_noted(&self) -> bool {
        std::iter::once(&self.dir)
            .chain(&self.others)
            .any(|dir| std::fs::symlink_metadata(dir.join("partial")).is_ok())
    }

    /// The files the run's processes were asked for.
    pub(crate) fn outputs(&self) -> Outputs {
        std::iter::once(&self.dir)
            .chain(&self.others)
            .find_map(|dir| {
                let text = std::fs::read_to_string(dir.join("outputs.json")).ok()?;
                crate::base::json::read_back(&text).ok()
            })
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::outputs::{Kind, line};

    fn journal(dir: &Path) -> Journal {
        Journal {
            dir: dir.to_path_buf(),
            scope: "s".into(),
            others: Vec::new(),
        }
    }

    fn record(id: &str) -> String {
        let mut r = crate::record::TestRecord::named(id, &format!("cases/{id}.yaml"));
        r.message = Some("x".repeat(40));
        line(Kind::Case, id, &serde_json::to_string(&r).unwrap())
    }

    /// A journal cut at any byte (a process killed while appending) reads every record that was
    /// whole, and a record appended after the cut is read too.
    #[test]
    fn a_journal_cut_at_any_byte_keeps_every_whole_record() {
        let dir = tempfile::tempdir().unwrap();
        let j = journal(dir.path());
        let lines: Vec<Vec<u8>> = ["a", "b", "c"]
            .iter()
            .map(|id| j.line_of(&record(id)))
            .collect();
        let whole: Vec<u8> = lines.concat();
        let ends: Vec<usize> = lines
            .iter()
            .scan(0, |at, l| {
                *at += l.len();
                Some(*at)
            })
            .collect();
        for cut in 0..=whole.len() {
            std::fs::write(dir.path().join("journal"), &whole[..cut]).unwrap();
            let kept = ends.iter().filter(|&&end| end <= cut).count();
            let records = j.read().unwrap();
            assert_eq!(records.len(), kept, "cut at {cut}");
            assert_eq!(records.numbers.len(), kept, "cut at {cut}");
            j.append(&j.line_of(&record("d"))).unwrap();
            let records = j.read().unwrap();
            let ids: Vec<&str> = records.numbers.iter().map(|n| n.id.as_str()).collect();
            // A record cut just before its newline was whole: the append ends its line.
            let whole_now = ends.iter().filter(|&&end| end - 1 <= cut).count();
            let mut expected: Vec<&str> = ["a", "b", "c"][..whole_now].to_vec();
            expected.push("d");
            assert_eq!(ids, expected, "cut at {cut}");
            let torn = usize::from(cut > 0 && ends.iter().all(|&e| e != cut && e - 1 != cut));
            assert_eq!(records.torn, torn, "cut at {cut}");
        }
    }
}

#[cfg(all(test, unix))]
mod forgetting {
    use super::*;

    #[test]
    fn runs_older_than_a_day_are_forgotten_but_the_current_one() {
        let runs = tempfile::tempdir().unwrap();
        let past = std::time::SystemTime::now() - std::time::Duration::from_secs(2 * 24 * 3600);
        for name in ["old", "current", "recent"] {
            let dir = runs.path().join(name);
            std::fs::create_dir(&dir).unwrap();
            if name != "recent" {
                std::fs::File::open(&dir)
                    .unwrap()
                    .set_modified(past)
                    .unwrap();
            }
        }
        forget_old_runs(runs.path(), "current");
        let mut left: Vec<String> = std::fs::read_dir(runs.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["current", "recent"]);
    }
}
