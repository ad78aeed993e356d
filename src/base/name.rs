//! Names a run repeats in every case it keeps — field names, suite folders, pipelines — held
//! once per process and passed around as four bytes.
//!
//! A run of 100,000 cases of 20 fields keeps each case's numbers to the end (aggregates and the
//! summary read them): as owned strings its field names alone are two million allocations.
//! Interned, they are the 20 distinct names. Interned names live as long as the process,
//! which is what a run's names do anyway; a process only ever holds the distinct names of the
//! gold sets it read.

use std::collections::HashMap;
use std::sync::{OnceLock, RwLock};

/// An interned name: equal names are the same `Name`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Name(u32);

/// Every name interned in this process, by index, and the index of each.
#[derive(Default)]
struct Names {
    by_index: Vec<&'static str>,
    index: HashMap<&'static str, u32>,
}

fn names() -> &'static RwLock<Names> {
    static NAMES: OnceLock<RwLock<Names>> = OnceLock::new();
    NAMES.get_or_init(RwLock::default)
}

impl Name {
    /// The name of `text`, interned on first sight.
    pub fn of(text: &str) -> Name {
        let lock = names();
        if let Some(&i) = lock
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .index
            .get(text)
        {
            return Name(i);
        }
        let mut names = lock.write().unwrap_or_else(|e| e.into_inner());
        if let Some(&i) = names.index.get(text) {
            return Name(i);
        }
        let i = u32::try_from(names.by_index.len()).expect("fewer than 2^32 distinct names");
        let leaked: &'static str = Box::leak(text.to_owned().into_boxed_str());
        names.by_index.push(leaked);
        names.index.insert(leaked, i);
        Name(i)
    }

    /// The text of the name.
    pub fn as_str(self) -> &'static str {
        names().read().unwrap_or_else(|e| e.into_inner()).by_index[self.0 as usize]
    }
}

impl std::ops::Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl std::fmt::Debug for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialOrd for Name {
    fn partial_cmp(&self, other: &Name) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// By text, as the names' tables are ordered.
impl Ord for Name {
    fn cmp(&self, other: &Name) -> std::cmp::Ordering {
        if self == other {
            return std::cmp::Ordering::Equal;
        }
        self.as_str().cmp(other.as_str())
    }
}

impl From<&str> for Name {
    fn from(text: &str) -> Name {
        Name::of(text)
    }
}

#[cfg(test)]
mod tests {
    use super::Name;

    #[test]
    fn equal_texts_are_one_name_and_read_back() {
        let a = Name::of("field_07");
        let b = Name::of(&String::from("field_07"));
        assert_eq!(a, b);
        assert_ne!(a, Name::of("field_08"));
        assert_eq!(a.as_str(), "field_07");
        assert!(Name::of("a") < Name::of("b") && Name::of("é") > Name::of("z"));
        assert_eq!(format!("{a} {a:?}"), "field_07 \"field_07\"");
    }

    #[test]
    fn names_interned_from_many_threads_agree() {
        let names: Vec<Vec<Name>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|_| s.spawn(|| (0..200).map(|i| Name::of(&format!("t{i}"))).collect()))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(names.windows(2).all(|w| w[0] == w[1]));
        assert_eq!(names[0][199].as_str(), "t199");
    }
}
