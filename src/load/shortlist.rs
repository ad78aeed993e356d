//! `kieval: { keys }` read: the keys KIEval scores, named (`cord`), written out, or in a file of
//! keys, one a line.

use std::path::Path;

use crate::base::spanned::Spanned;

use crate::base::location::{LoadError, Mark};
use crate::load::in_file::InFile;
use crate::metrics::kieval::Shortlist;
use crate::spec::{KievalSpec, NodeKind};

/// The name of CORD's shortlist.
const CORD: &str = "cord";

/// The shortlist a suite's `kieval:` gives; a file it names is relative to `dir`.
pub(crate) fn shortlist(
    here: &InFile,
    spec: &Spanned<KievalSpec>,
    dir: &Path,
) -> Result<Shortlist, LoadError> {
    let keys = &spec.value.keys;
    let shortlist = match &keys.kind {
        NodeKind::Text(name) if name == CORD => return Ok(Shortlist::cord()),
        NodeKind::Text(file) => from_file(here, keys.mark, file, dir)?,
        NodeKind::List(items) => {
            let mut keys = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                match &item.kind {
                    NodeKind::Text(key) => keys.push(key.clone()),
                    _ => {
                        return Err(here
                            .err(item.mark, &format!("kieval.keys[{i}]"), "a key is a text")
                            .hint("write each key as KIEval's files name it, such as `menu.nm`"));
                    }
                }
            }
            Shortlist::of(keys)
        }
        _ => {
            return Err(here
                .err(
                    keys.mark,
                    "kieval.keys",
                    "`keys` is `cord`, a file of keys or a list of keys",
                )
                .hint(
                    "write `keys: cord` for CORD's 30 classes, as KIEval's CORD run scores them",
                ));
        }
    };
    if shortlist.is_empty() {
        return Err(here
            .err(
                keys.mark,
                "kieval.keys",
                "`keys` gives no key: nothing would be scored",
            )
            .hint("list the keys KIEval scores, such as `menu.nm`, or write `keys: cord`"));
    }
    Ok(shortlist)
}

/// The keys of the file `written` (relative to `dir`): one a line, blank lines and lines that
/// start with `#` skipped, spaces around a key not part of it.
fn from_file(here: &InFile, at: Mark, written: &str, dir: &Path) -> Result<Shortlist, LoadError> {
    let path = dir.join(written);
    crate::base::fs::inside_the_project(&path, "file of keys", (here.file, at, "kieval.keys"))?;
    if !path.is_file() {
        return Err(here
            .err(
                at,
                "kieval.keys",
                format!(
                    "`{written}` is not `{CORD}`, and no file of keys `{}` exists",
                    path.display()
                ),
            )
            .hint("write `keys: cord` for CORD's keys, a list of keys, or the path of a file of keys (one a line), relative to this suite's folder"));
    }
    let text = crate::base::fs::read_text(&path)?;
    Ok(Shortlist::of(
        text.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_owned),
    ))
}
