//! Finding case files: walkdir, sorted, symlinks followed with loops reported, never a crash.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use glob::Pattern;

use super::cases::{Listed, gold_set, matching};
use super::suite::Suites;
use crate::base::fs::{read_text, relative_to, slashed};
use crate::base::location::{LoadError, Mark};
use crate::spec::{CasesSpec, SuiteFile};

use crate::base::fs::{is_project, project_root};

/// The patterns a case file matches, relative to the cases folder.
pub const CASE_PATTERNS: [&str; 2] = ["**/*.yaml", "**/*.yml"];

/// Files that live among cases but are not cases.
use super::suite::SUITE_FILES;

/// One thing found under the cases folder.
#[derive(Debug, Clone, PartialEq)]
pub enum Found {
    /// A case file and its test name.
    Case {
        /// The test name: relative path without extension, `/`-separated.
        id: String,
        /// The file.
        path: PathBuf,
    },
    /// The other cases of the folder, not walked: a run of one test by its name (`--exact`)
    /// found its file from the name alone.
    Elsewhere,
    /// A case of a gold set (a suite's `cases:`): its gold file, and its YAML case file if any.
    Listed(Box<super::cases::Listed>),
    /// A pipeline's output that no gold file of its gold set matches: a failing test.
    NoGold {
        /// The case's name (`docubench/x`).
        id: String,
        /// The pipeline.
        pipeline: String,
        /// What is wrong.
        reason: String,
    },
    /// What the end of the run lists of a gold set's metadata table.
    Note(super::cases::GoldSetNote),
    /// A gold set whose `cases:` could not be read (its suite file's test says why): the cause
    /// of every case below its folder that does not load.
    BrokenSet {
        /// The suite's folder.
        folder: PathBuf,
        /// What is wrong.
        error: Box<crate::base::location::LoadError>,
    },
    /// A folder or file that could not be read (a symlink loop, no permission): a failing test.
    Unreadable {
        /// A test name for it.
        id: String,
        /// Why.
        reason: String,
    },
}

/// Why discovery could not start.
#[derive(Debug, Clone, PartialEq)]
pub struct NoCases(pub String);

/// Walks `root` in sorted order and returns its case files and unreadable places.
pub fn discover(root: &Path) -> Result<Vec<Found>, NoCases> {
    if !root.is_dir() {
        return Err(NoCases(format!(
            "the cases folder `{}` does not exist (or is not a folder)",
            root.display()
        )));
    }
    let patterns: Vec<Pattern> = CASE_PATTERNS
        .iter()
        .filter_map(|p| Pattern::new(p).ok())
        .collect();
    let mut found = Vec::new();
    // In a project, a link that leads out of it is not followed into cases: what is outside the
    // project is never read (a link to `/etc` would print its files in failure messages).
    let project = project_root(root);
    let mut outside: Vec<std::path::PathBuf> = Vec::new();
    let mut suite_files: Vec<PathBuf> = Vec::new();
    for entry in walkdir::WalkDir::new(root)
        .follow_links(true)
        .sort_by_file_name()
    {
        match entry {
            Ok(entry) => {
                if let Some(project) = &project
                    && entry.path_is_symlink()
                    && std::fs::canonicalize(entry.path())
                        .is_ok_and(|real| !real.starts_with(project))
                {
                    outside.push(entry.path().to_path_buf());
                }
                // A FIFO or a device named like a case is a case: reading it says what it is.
                if entry.file_type().is_dir() {
                    continue;
                }
                let Ok(rel) = entry.path().strip_prefix(root) else {
                    continue;
                };
                let rel_text = crate::base::fs::slashed(rel);
                let name = entry.file_name().to_string_lossy();
                if SUITE_FILES.contains(&name.as_ref()) {
                    suite_files.push(entry.path().to_path_buf());
                    continue;
                }
                if !patterns.iter().any(|p| p.matches(&rel_text)) {
                    // A case that would never run, and nothing would say so.
                    if let Some(reason) = near_miss(&name) {
                        found.push(Found::Unreadable {
                            id: rel_text.clone(),
                            reason: format!("`{}` {reason}", entry.path().display()),
                        });
                    }
                    continue;
                }
                if let Some(link) = outside.iter().find(|l| entry.path().starts_with(l)) {
                    found.push(led_out(entry.path(), rel, project.as_deref(), link));
                    continue;
                }
                found.push(Found::Case {
                    id: crate::base::fs::slashed(&rel.with_extension("")),
                    path: entry.path().to_path_buf(),
                });
            }
            Err(err) => found.push(unreadable(&err, root)),
        }
    }
    list_gold_sets(root, &suite_files, &mut found);
    merge_same_names(&mut found);
    if found.iter().all(|f| matches!(f, Found::Note(_))) {
        return Err(NoCases(format!(
            "no case files found in `{}` matching `{}`",
            root.display(),
            CASE_PATTERNS.join("` or `")
        )));
    }
    Ok(found)
}

/// The case file of the test `name` (`invoices/acme-173`, `invoices/acme-173::guided`), found
/// from the name alone: the name is the file's path under `root` without its extension. `None`
/// when the name does not lead to exactly one plain case file inside `root` (no file, both
/// `.yaml` and `.yml`, a link, a suite file): then the folder is walked, and what it finds says
/// why.
pub fn find_by_name(root: &Path, name: &str) -> Option<Vec<Found>> {
    let mut ids = vec![name];
    ids.extend(name.match_indices("::").map(|(i, _)| &name[..i]));
    let mut hits = Vec::new();
    for id in ids {
        let plain = !id.is_empty()
            && id
                .split('/')
                .all(|part| !part.is_empty() && part != "." && part != "..")
            && !id.contains('\\');
        if !plain {
            continue;
        }
        for ext in ["yaml", "yml"] {
            let path = root.join(format!("{id}.{ext}"));
            match std::fs::symlink_metadata(&path) {
                Ok(m) if m.is_file() => hits.push((id, path)),
                Ok(_) => return None,
                Err(_) => {}
            }
        }
    }
    let [(id, path)] = <[_; 1]>::try_from(hits).ok()?;
    let file_name = path.file_name()?.to_string_lossy().into_owned();
    // A case file beside a gold set's suite adds to a case of the set: the set is listed.
    if in_a_gold_set(root, &path) {
        return None;
    }
    // A folder on the way that is a link is walked: it may lead out of the project.
    let mut at = root.to_path_buf();
    for part in Path::new(id).parent()?.components() {
        at.push(part);
        if std::fs::symlink_metadata(&at)
            .ok()?
            .file_type()
            .is_symlink()
        {
            return None;
        }
    }
    if SUITE_FILES.contains(&file_name.as_str()) {
        return None;
    }
    Some(vec![
        Found::Case {
            id: id.to_owned(),
            path,
        },
        Found::Elsewhere,
    ])
}

/// Whether a suite between `root` and `case`'s folder declares `cases:`.
fn in_a_gold_set(root: &Path, case: &Path) -> bool {
    case.ancestors()
        .skip(1)
        .take_while(|dir| dir.starts_with(root))
        .any(|dir| {
            SUITE_FILES.iter().any(|n| {
                crate::base::fs::read_text(&dir.join(n))
                    .is_ok_and(|text| text.lines().any(|l| l.starts_with("cases:")))
            })
        })
}

/// A case file reached through a link that leads out of the project: a failing test, unread.
fn led_out(path: &Path, rel: &Path, project: Option<&Path>, link: &Path) -> Found {
    Found::Unreadable {
        id: crate::base::fs::slashed(&rel.with_extension("")),
        reason: format!(
            "`{}` leads out of the project `{}` through the link `{}`, and goldgate reads nothing outside it",
            path.display(),
            project.map_or(String::new(), |p| p.display().to_string()),
            link.display()
        ),
    }
}

/// A place the walk could not read (a symbolic link loop, no permission): a failing test.
fn unreadable(err: &walkdir::Error, root: &Path) -> Found {
    let place = err
        .path()
        .map(|p| p.strip_prefix(root).unwrap_or(p).to_path_buf())
        .unwrap_or_default();
    let reason = if err.loop_ancestor().is_some() {
        format!(
            "`{}` is a symbolic link loop; it was not followed",
            err.path().unwrap_or(root).display()
        )
    } else {
        format!(
            "cannot read `{}`: {}",
            err.path().unwrap_or(root).display(),
            err.io_error()
                .map_or_else(|| err.to_string(), crate::base::fs::io_reason)
        )
    };
    Found::Unreadable {
        id: crate::base::fs::slashed(&place.with_extension("")),
        reason,
    }
}

/// Why a file that looks like a case is not read as one: an extension in capitals, or a
/// suffix after it (`.yaml.bak`, `.yml~`).
fn near_miss(name: &str) -> Option<String> {
    let lower = name.to_lowercase();
    if SUITE_FILES.contains(&lower.as_str()) {
        return None;
    }
    if (lower.ends_with(".yaml") || lower.ends_with(".yml"))
        && !name.ends_with(".yaml")
        && !name.ends_with(".yml")
    {
        return Some(
            "is not read as a case: its extension must be `.yaml` or `.yml`, in lowercase".into(),
        );
    }
    let kept = [".yaml.", ".yml.", ".yaml~", ".yml~"];
    kept.iter().any(|k| lower.contains(k)).then(|| {
        "looks like a case file but is not read as one (it does not end in `.yaml` or `.yml`): rename it to run it, or move it out of the cases folder".into()
    })
}

/// `x.yaml` beside `x.yml` would make two tests of one name: they become one failing test.
/// Linear in the number of files (a map from name to first place), so large gold sets stay fast.
fn merge_same_names(found: &mut Vec<Found>) {
    let id_of = |f: &Found| match f {
        Found::Case { id, .. } | Found::Unreadable { id, .. } => id.clone(),
        Found::Listed(listed) => listed.id.clone(),
        Found::NoGold { id, pipeline, .. } => crate::model::test_name::of_case(id, Some(pipeline)),
        Found::Elsewhere | Found::Note(_) | Found::BrokenSet { .. } => String::new(),
    };
    let mut first: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut same: Vec<(usize, usize)> = Vec::new();
    for (i, f) in found.iter().enumerate() {
        if matches!(f, Found::Note(_) | Found::BrokenSet { .. }) {
            continue;
        }
        match first.entry(id_of(f)) {
            std::collections::hash_map::Entry::Occupied(o) => same.push((*o.get(), i)),
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(i);
            }
        }
    }
    if same.is_empty() {
        return;
    }
    let mut groups: std::collections::BTreeMap<usize, Vec<usize>> =
        std::collections::BTreeMap::new();
    for (keep, other) in &same {
        groups.entry(*keep).or_default().push(*other);
    }
    for (&keep, others) in &groups {
        let id = id_of(&found[keep]);
        let files: Vec<String> = std::iter::once(keep)
            .chain(others.iter().copied())
            .filter_map(|k| match &found[k] {
                Found::Case { path, .. } => Some(format!("`{}`", path.display())),
                Found::Listed(listed) => Some(format!("`{}`", listed.gold.display())),
                Found::Unreadable { .. }
                | Found::NoGold { .. }
                | Found::Elsewhere
                | Found::Note(_)
                | Found::BrokenSet { .. } => None,
            })
            .collect();
        found[keep] = Found::Unreadable {
            reason: format!(
                "{} all give the test name `{id}`; rename all but one",
                files.join(" and ")
            ),
            id,
        };
    }
    let dropped: std::collections::HashSet<usize> = same.iter().map(|(_, o)| *o).collect();
    let mut i = 0;
    found.retain(|_| {
        i += 1;
        !dropped.contains(&(i - 1))
    });
}

/// The rubric sets folder of the cases folder `cases`: the nearest `rubrics` walking up from its
/// parent as far as its suites are found (to the project root; outside a project, up through the
/// folders above that hold a suite), so that a subfolder of the cases reads the sets its whole
/// folder reads. Without one, `rubrics` beside the cases folder, where errors say to create it.
pub fn default_rubrics(cases: &Path) -> PathBuf {
    let beside = rubrics_beside(cases);
    let Ok(start) = std::fs::canonicalize(cases) else {
        return beside;
    };
    let ancestors: Vec<&Path> = start.ancestors().skip(1).collect();
    let has_suite = |dir: &Path| SUITE_FILES.iter().any(|n| dir.join(n).is_file());
    let reach = if is_project(&start) {
        0
    } else {
        match ancestors.iter().position(|a| is_project(a)) {
            Some(root) => root + 1,
            None => 1 + ancestors.iter().take_while(|a| has_suite(a)).count(),
        }
    };
    ancestors
        .iter()
        .take(reach)
        .enumerate()
        .find(|(_, a)| a.join("rubrics").is_dir())
        .map_or(beside, |(up, a)| shown_as_named(cases, up + 1, a))
}

/// `rubrics` beside the cases folder; for `.` or `..` the real parent is looked up.
fn rubrics_beside(cases: &Path) -> PathBuf {
    if cases.file_name().is_none()
        && let Some(parent) = std::fs::canonicalize(cases)
            .ok()
            .and_then(|c| c.parent().map(Path::to_path_buf))
    {
        return parent.join("rubrics");
    }
    cases.parent().unwrap_or(Path::new("")).join("rubrics")
}

/// The `rubrics` folder in `real`, the folder `up` levels above `cases`, named from `cases` as
/// the user wrote it (`cases/rubrics` rather than an absolute path) when that leads there.
fn shown_as_named(cases: &Path, up: usize, real: &Path) -> PathBuf {
    let real = real.join("rubrics");
    let mut named = cases.to_path_buf();
    for _ in 0..up {
        if !matches!(
            named.components().next_back(),
            Some(std::path::Component::Normal(_))
        ) {
            return real;
        }
        named.pop();
    }
    let named = named.join("rubrics");
    let same = std::fs::canonicalize(&named)
        .ok()
        .is_some_and(|n| std::fs::canonicalize(&real).is_ok_and(|r| r == n));
    if same { named } else { real }
}

/// Adds to `found` the cases of every gold set among `suite_files` (found under `root`): one
/// per gold file, each taking over the case YAML file of its name; a failing test per pipeline
/// output with no gold, and per gold set whose pattern matches nothing; and the notes of their
/// metadata tables.
pub(crate) fn list_gold_sets(root: &Path, suite_files: &[PathBuf], found: &mut Vec<Found>) {
    let mut suites = Suites::new(root);
    for file in suite_files {
        let Ok(text) = read_text(file) else { continue };
        if !text.lines().any(|l| l.starts_with("cases:")) {
            continue;
        }
        let folder = file.parent().unwrap_or(Path::new("")).to_path_buf();
        let (cases, golds) = match gold_files_of(file, &text, &folder) {
            Ok(Some(set)) => set,
            Ok(None) => continue,
            Err(e) => {
                // The suite's test fails with it; so does each case below that does not load,
                // instead of with its own errors, which may follow from it (an overlay then has
                // no gold).
                found.push(Found::Unreadable {
                    id: relative_to(file, root)
                        .map_or_else(|| file.display().to_string(), |r| slashed(&r)),
                    reason: e.to_string(),
                });
                found.push(Found::BrokenSet {
                    folder,
                    error: Box::new(e),
                });
                continue;
            }
        };
        let template = &cases.gold;
        let names: Vec<&str> = golds.iter().map(|(n, _)| n.as_str()).collect();
        let rel_folder = relative_to(&folder, root)
            .map(|r| slashed(&r))
            .unwrap_or_default();
        let id_of = |name: &str| {
            if rel_folder.is_empty() {
                name.to_owned()
            } else {
                format!("{rel_folder}/{name}")
            }
        };
        let (set, notes) = gold_set(file, &folder, &cases, &names, &id_of);
        let set = Arc::new(set);
        found.extend(notes.into_iter().map(Found::Note));
        let gold_paths: HashSet<&Path> = golds.iter().map(|(_, p)| p.as_path()).collect();
        let mut yaml_cases: HashMap<String, PathBuf> = HashMap::new();
        found.retain(|f| match f {
            Found::Case { path, .. } if gold_paths.contains(path.as_path()) => false,
            Found::Case { id, path } if names.iter().any(|n| id_of(n) == *id) => {
                yaml_cases.insert(id.clone(), path.clone());
                false
            }
            _ => true,
        });
        let mut case_files: HashSet<PathBuf> = HashSet::new();
        for (name, gold) in &golds {
            let id = id_of(name);
            let case_file = folder.join(format!("{name}.yaml"));
            case_files.insert(case_file.clone());
            found.push(Found::Listed(Box::new(Listed {
                overlay: yaml_cases.remove(&id),
                id,
                name: name.clone(),
                gold: gold.clone(),
                case_file,
                set: Arc::clone(&set),
            })));
        }
        found.extend(outputs_without_gold(
            &mut suites,
            &folder,
            &case_files,
            &id_of,
            &template.value,
        ));
    }
}

/// A gold set's settings and the gold files its pattern matches (`{case}`, path).
type GoldFiles = Option<(CasesSpec, Vec<(String, PathBuf)>)>;

/// The gold set a suite file declares, `None` when it declares no `cases:`; or the mistake that
/// leaves the set without cases (a suite that does not read, a pattern that matches nothing).
fn gold_files_of(file: &Path, text: &str, folder: &Path) -> Result<GoldFiles, LoadError> {
    let spec = super::parse::<SuiteFile>(file, text)?;
    let Some(cases) = spec.cases else {
        return Ok(None);
    };
    let template = &cases.value.gold;
    if template.value.matches("{case}").count() != 1 {
        return Err(LoadError::at(
            file,
            Mark::of(&template.referenced),
            "cases.gold",
            format!(
                "`{}` must hold `{{case}}` once: the part of each file's path that names its case",
                template.value
            ),
        )
        .hint(
            "write the path of the gold files with `{case}` for the name, `labels/{case}.json`",
        ));
    }
    let golds = matching(folder, &template.value);
    if golds.is_empty() {
        return Err(LoadError::at(
            file,
            Mark::of(&template.referenced),
            "cases.gold",
            format!(
                "`{}` matches no file in `{}`",
                template.value,
                folder.display()
            ),
        )
        .hint("check the path, relative to the suite's folder"));
    }
    Ok(Some((cases.value, golds)))
}

/// A failing test per pipeline output of the set's folder that no gold file matches.
fn outputs_without_gold(
    suites: &mut Suites,
    folder: &Path,
    case_files: &HashSet<PathBuf>,
    id_of: &dyn Fn(&str) -> String,
    gold_template: &str,
) -> Vec<Found> {
    let Ok(suite) = suites.for_case(&folder.join("{case}.yaml")) else {
        return Vec::new();
    };
    let Some(pipelines) = &suite.pipelines else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (pipeline, template) in &pipelines.list {
        let Some(template) = template.as_ref().filter(|t| !t.contains("{document}")) else {
            continue;
        };
        let template = template.replace("{pipeline}", pipeline);
        for (name, path) in matching(&pipelines.dir, &template) {
            let case_file = pipelines.dir.join(format!("{name}.yaml"));
            if case_files.contains(&case_file) {
                continue;
            }
            let case = relative_to(&case_file, folder)
                .map_or_else(|| name.clone(), |r| slashed(&r.with_extension("")));
            out.push(Found::NoGold {
                id: id_of(&case),
                pipeline: pipeline.clone(),
                reason: format!(
                    "`{}` is an output of the pipeline `{pipeline}` with no gold: no file `{}`",
                    path.display(),
                    folder
                        .join(gold_template.replace("{case}", &case))
                        .display()
                ),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_name_finds_its_one_case_file_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        for f in [
            "inv/acme.yaml",
            "inv/both.yaml",
            "inv/both.yml",
            "inv/suite.yaml",
        ] {
            let p = dir.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x").unwrap();
        }
        let found = |name: &str| find_by_name(dir.path(), name);
        let one = found("inv/acme::guided").unwrap();
        assert!(matches!(&one[0], Found::Case { id, .. } if id == "inv/acme"));
        assert_eq!(one[1], Found::Elsewhere);
        assert!(found("inv/acme").is_some());
        // Two files of one name, a suite file, no file, a path out: the folder is walked.
        for name in [
            "inv/both",
            "inv/suite",
            "inv/nope",
            "../inv/acme",
            "inv//acme",
            "",
        ] {
            assert_eq!(found(name), None, "{name}");
        }
    }

    #[test]
    fn the_rubric_sets_are_the_nearest_up_to_the_project_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        for d in ["cases/invoices/fr", "rubrics", "cases/receipts/rubrics"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        std::fs::write(root.join("Cargo.toml"), "").unwrap();
        let real = |p: PathBuf| std::fs::canonicalize(p).unwrap();
        let cases = root.join("cases");
        assert_eq!(
            default_rubrics(&cases),
            cases.parent().unwrap().join("rubrics")
        );
        assert_eq!(
            real(default_rubrics(&cases.join("invoices/fr"))),
            real(root.join("rubrics"))
        );
        // A nearer one wins; the project root's own parent is never reached.
        assert_eq!(
            default_rubrics(&cases.join("receipts/x")),
            cases.join("receipts/rubrics")
        );
        std::fs::create_dir(dir.path().join("rubrics")).unwrap();
        std::fs::remove_dir(root.join("rubrics")).unwrap();
        assert_eq!(
            default_rubrics(&cases.join("invoices/fr")),
            cases.join("invoices/rubrics")
        );
    }

    #[test]
    fn sorted_names_without_extension_and_no_suites() {
        let dir = tempfile::tempdir().unwrap();
        for f in [
            "b.yaml",
            "d.YAML",
            "e.yaml.bak",
            "f.json",
            "a/z.yml",
            "c.yaml",
            "c.yml",
            "a/suite.yaml",
            "a/notes.txt",
            "a/out.json",
        ] {
            let p = dir.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x").unwrap();
        }
        let ids: Vec<String> = discover(dir.path())
            .unwrap()
            .into_iter()
            .map(|f| match f {
                Found::Case { id, .. } => id,
                Found::Unreadable { id, .. } => format!("!{id}"),
                Found::Elsewhere
                | Found::Listed(_)
                | Found::NoGold { .. }
                | Found::Note(_)
                | Found::BrokenSet { .. } => "…".into(),
            })
            .collect();
        assert_eq!(ids, ["a/z", "b", "!c", "!d.YAML", "!e.yaml.bak"]);
    }

    #[test]
    fn empty_and_missing_folders_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let e = discover(dir.path()).unwrap_err();
        assert!(
            e.0.contains("no case files found in") && e.0.contains("**/*.yaml"),
            "{}",
            e.0
        );
        assert!(
            discover(&dir.path().join("nope"))
                .unwrap_err()
                .0
                .contains("does not exist")
        );
    }

    #[cfg(unix)]
    #[test]
    fn symlink_loop_is_a_found_problem_not_a_hang() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("a")).unwrap();
        std::fs::write(dir.path().join("a/c.yaml"), "x").unwrap();
        std::os::unix::fs::symlink("..", dir.path().join("a/loop")).unwrap();
        let found = discover(dir.path()).unwrap();
        assert!(
            found
                .iter()
                .any(|f| matches!(f, Found::Unreadable { reason, .. } if reason.contains("loop"))),
            "{found:?}"
        );
        assert_eq!(
            found
                .iter()
                .filter(|f| matches!(f, Found::Case { .. }))
                .count(),
            1
        );
    }
}
