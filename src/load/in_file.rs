//! One file's YAML nodes read into typed values (gold, places, critical fields, normalization,
//! bounds, a prediction), each mistake located in the file with its fix.

use crate::base::budget::{OVERSIZED_HINT, oversized};
use crate::base::location::Mark;
use crate::base::location::{LoadError, closest};
use crate::base::normalize::Normalize;
use crate::base::spanned::Spanned;
use crate::base::value::Value;
use crate::model::case::{
    BoxUnits, FieldRule, GoldField, Grounding, PredictionSource, Profile, Scoring, WrittenIn,
};
use crate::model::metric::{DEFAULT_ECE_BINS, Direction, Metric, Range, Threshold};
use crate::model::place::Place;
use crate::spec::{CaseFile, Node, NodeKind};
use std::path::Path;

/// Checks over one file's nodes.
pub(crate) struct InFile<'a> {
    pub(crate) file: &'a Path,
}

impl InFile<'_> {
    pub(crate) fn err(&self, mark: Mark, path: &str, message: impl Into<String>) -> LoadError {
        LoadError::at(self.file, mark, path, message)
    }

    /// A scoring name.
    pub(crate) fn scoring(&self, name: &Spanned<String>) -> Result<Scoring, LoadError> {
        let otherwise = "the scorings are `penalty` (the default) and `fraction`";
        self.named(
            name,
            "scoring",
            Scoring::from_name,
            &Scoring::NAMES,
            otherwise,
        )
    }

    /// A profile name.
    pub(crate) fn profile(&self, name: &Spanned<String>) -> Result<Profile, LoadError> {
        let otherwise = "the profiles are `dream` (the default) and `anls_star`";
        self.named(
            name,
            "profile",
            Profile::from_name,
            &Profile::NAMES,
            otherwise,
        )
    }

    /// One of a kind's `names` under `key`, else an error that names the closest, or says them.
    fn named<T>(
        &self,
        name: &Spanned<String>,
        key: &str,
        from_name: impl Fn(&str) -> Option<T>,
        names: &[&str],
        otherwise: &str,
    ) -> Result<T, LoadError> {
        from_name(&name.value).ok_or_else(|| {
            let e = self.err(
                Mark::of(&name.referenced),
                key,
                format!("unknown {key} `{}`", name.value),
            );
            match closest(&name.value, names.iter().copied()) {
                Some(best) => e.hint(format!("did you mean `{best}`?")),
                None => e.hint(otherwise),
            }
        })
    }

    /// `skip:` takes a reason; `false`, `no` or an empty value would hide the case silently.
    pub(super) fn skip_reason(&self, skip: &Spanned<String>) -> Result<String, LoadError> {
        let text = skip.value.trim();
        let looks_boolean = [
            "true", "false", "yes", "no", "on", "off", "y", "n", "0", "1",
        ]
        .contains(&text.to_lowercase().as_str());
        if text.is_empty() || looks_boolean {
            return Err(self.err(Mark::of(&skip.referenced), "skip", format!("`skip` takes the reason the case is skipped, not `{text}`"))
                .hint("to run the case, remove `skip`; to skip it, write why: `skip: vendor export is broken`"));
        }
        Ok(skip.value.clone())
    }

    pub(super) fn gold(
        &self,
        node: &Node,
        grounding: &Grounding,
    ) -> Result<Vec<GoldField>, LoadError> {
        let entries = node.as_map().ok_or_else(|| {
            self.err(
                node.mark,
                "gold",
                format!(
                    "`gold` must be a mapping of field names to values, found {}",
                    node.kind_name()
                ),
            )
            .hint("write one `field: value` per line under `gold:`")
        })?;
        entries
            .iter()
            .map(|(name, written)| {
                let path = format!("gold.{name}");
                self.misspelt_place(written, &path)?;
                let (value, place) = match grounded_value(written) {
                    Some((value, page, bbox)) => {
                        (value, Some(self.place(page, bbox, &path, grounding)?))
                    }
                    None => (written, None),
                };
                let variants = match value.as_map() {
                    Some(m) if m.iter().any(|(k, _)| k == "any_of") => {
                        self.any_of(value, m, &path)?
                    }
                    _ => vec![self.gold_value(value, &path)?],
                };
                if let Some((below, why)) = variants.iter().find_map(oversized) {
                    return Err(self
                        .err(value.mark, &path, format!("`{name}{below}` is {why}"))
                        .hint(OVERSIZED_HINT));
                }
                Ok(GoldField {
                    name: name.clone(),
                    variants,
                    line: value.mark.line,
                    rule: FieldRule::default(),
                    path_rules: Vec::new(),
                    place,
                })
            })
            .collect()
    }

    /// A gold mapping with `value` whose other keys are `page`, `bbox` or one edit from them
    /// (`pag`) means a grounded value: the misspelt key would make it a tree, compared whole and
    /// never matched.
    pub(super) fn misspelt_place(&self, node: &Node, path: &str) -> Result<(), LoadError> {
        let Some(entries) = node.as_map() else {
            return Ok(());
        };
        if !entries.iter().any(|(k, _)| k == "value") {
            return Ok(());
        }
        let near = |k: &str| crate::base::location::closest_within(k, ["page", "bbox"], |_| 1);
        let others: Vec<&(String, Node)> = entries
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "value" | "page" | "bbox"))
            .collect();
        if others.is_empty() || !others.iter().all(|(k, _)| near(k).is_some()) {
            return Ok(());
        }
        let (key, at) = others[0];
        let meant = near(key).unwrap_or("page");
        Err(self
            .err(
                key_mark(self.file, at.mark, key),
                &format!("{path}.{key}"),
                format!("unknown key `{key}` in a grounded value: did you mean `{meant}`?"),
            )
            .hint("a grounded value holds `value`, `page` and `bbox`; with any other key the mapping is a tree, compared whole"))
    }

    /// A grounded value's `page` and `bbox`, checked: a page from 1, a box of four numbers
    /// with its edges in order, on the page (0 to 1, or within `page_size` in pixels).
    pub(super) fn place(
        &self,
        page: Option<&Node>,
        bbox: Option<&Node>,
        path: &str,
        grounding: &Grounding,
    ) -> Result<Place, LoadError> {
        let text = |n: &Node| match &n.kind {
            NodeKind::Text(t) => t.clone(),
            _ => n.kind_name().to_owned(),
        };
        let mistake = |n: &Node, key: &str, (message, hint): super::place::Mistake| {
            self.err(n.mark, &format!("{path}.{key}"), message)
                .hint(hint)
        };
        let page_node = page;
        let page = page
            .map(|n| super::place::page(&text(n)).map_err(|e| mistake(n, "page", e)))
            .transpose()?;
        let normalized = grounding.units == BoxUnits::Normalized;
        let bbox = match bbox {
            None => None,
            Some(n) => {
                let NodeKind::List(items) = &n.kind else {
                    return Err(mistake(
                        n,
                        "bbox",
                        (
                            format!(
                                "`bbox` must be a list of four numbers, found {}",
                                n.kind_name()
                            ),
                            "write the box as `[x0, y0, x1, y1]`: left, top, right, bottom"
                                .to_owned(),
                        ),
                    ));
                };
                let texts: Vec<String> = items.iter().map(text).collect();
                let b =
                    super::place::bbox(&texts, normalized).map_err(|e| mistake(n, "bbox", e))?;
                super::place::has_area(b).map_err(|e| mistake(n, "bbox", e))?;
                match (grounding.units, grounding.page_size) {
                    (BoxUnits::Pixels, Some(size)) => {
                        super::place::on_page(b, size).map_err(|e| mistake(n, "bbox", e))?;
                    }
                    (BoxUnits::Pixels, None) => {
                        return Err(mistake(
                            n,
                            "bbox",
                            (
                                "this box is in pixels (`bbox_units: pixels`), but the case gives no `page_size`".to_owned(),
                                "give the page's size in pixels: `page_size: { width: 1240, height: 1754 }` (in the case or the suite's `defaults`)".to_owned(),
                            ),
                        ));
                    }
                    (BoxUnits::Points, _) => {
                        if let Some(extent) = grounding.page_extent(page) {
                            super::place::on_pdf_page(b, page.unwrap_or(1), extent)
                                .map_err(|e| mistake(n, "bbox", e))?;
                        }
                    }
                    (BoxUnits::Normalized, _) => {}
                }
                Some(b)
            }
        };
        if let (Some(p), Some(pages), Some(n)) = (page, &grounding.pdf_pages, page_node) {
            super::place::within_the_document(p, pages.len()).map_err(|e| mistake(n, "page", e))?;
        }
        Ok(Place { page, bbox })
    }

    pub(super) fn any_of(
        &self,
        node: &Node,
        entries: &[(String, Node)],
        path: &str,
    ) -> Result<Vec<Value>, LoadError> {
        if entries.len() != 1 {
            return Err(self
                .err(
                    node.mark,
                    path,
                    "`any_of` must be the only key of its mapping",
                )
                .hint("move the other keys out, or write the variants as `{ any_of: [a, b] }`"));
        }
        let list = &entries[0].1;
        let path = format!("{path}.any_of");
        match &list.kind {
            NodeKind::List(items) if !items.is_empty() => items
                .iter()
                .enumerate()
                .map(|(i, item)| self.gold_value(item, &format!("{path}[{i}]")))
                .collect(),
            NodeKind::List(_) => Err(self
                .err(list.mark, &path, "`any_of` is empty")
                .hint("give at least one accepted variant")),
            _ => Err(self
                .err(
                    list.mark,
                    &path,
                    format!(
                        "`any_of` must be a list of variants, found {}",
                        list.kind_name()
                    ),
                )
                .hint("write `any_of: [variant1, variant2]`")),
        }
    }

    /// A gold value; `any_of` is only allowed directly under a field.
    pub(super) fn gold_value(&self, node: &Node, path: &str) -> Result<Value, LoadError> {
        match &node.kind {
            NodeKind::Map(entries) => {
                // Alternatives inside a value (`{ city: { any_of: [Paris, PARIS] } }`) are
                // checked like a field's and kept in the tree, where ANLS* reads them.
                if entries.iter().any(|(k, _)| k == "any_of") {
                    self.any_of(node, entries, path)?;
                    return Ok(node.to_value());
                }
                for (k, v) in entries {
                    self.gold_value(v, &format!("{path}.{k}"))?;
                }
            }
            NodeKind::List(items) => {
                for (i, item) in items.iter().enumerate() {
                    self.gold_value(item, &format!("{path}[{i}]"))?;
                }
            }
            _ => {}
        }
        Ok(node.to_value())
    }

    pub(super) fn critical(
        &self,
        names: &[Spanned<String>],
        gold: Option<&[GoldField]>,
    ) -> Result<Vec<String>, LoadError> {
        names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let fields: Vec<&str> = gold
                    .unwrap_or(&[])
                    .iter()
                    .map(|f| f.name.as_str())
                    .collect();
                if fields.contains(&name.value.as_str()) {
                    return Ok(name.value.clone());
                }
                let e = self.err(
                    Mark::of(&name.referenced),
                    &format!("critical[{i}]"),
                    format!("critical field `{}` is not in `gold`", name.value),
                );
                Err(match closest(&name.value, fields.iter().copied()) {
                    Some(best) => e.hint(format!("did you mean `{best}`?")),
                    None => e.hint("a critical field must have a gold value; add it under `gold:`"),
                })
            })
            .collect()
    }

    pub(super) fn normalize(&self, node: &Node, path: &str) -> Result<Normalize, LoadError> {
        match &node.kind {
            NodeKind::Text(_) => Ok(if self.boolean(node, path)? {
                Normalize::ALL
            } else {
                Normalize::NONE
            }),
            NodeKind::Map(entries) => {
                let mut n = Normalize::ALL;
                const KEYS: [&str; 3] = ["lowercase", "strip_accents", "collapse_whitespace"];
                for (key, value) in entries {
                    let step_path = format!("{path}.{key}");
                    let on = match key.as_str() {
                        "lowercase" | "strip_accents" | "collapse_whitespace" => {
                            self.boolean(value, &step_path)?
                        }
                        _ => {
                            let e = self.err(
                                value.mark,
                                &step_path,
                                format!("unknown normalization step `{key}`"),
                            );
                            return Err(match closest(key, KEYS) {
                                Some(best) => e.hint(format!("did you mean `{best}`?")),
                                None => e.hint("the steps are `lowercase`, `strip_accents`, `collapse_whitespace`"),
                            });
                        }
                    };
                    match key.as_str() {
                        "lowercase" => n.lowercase = on,
                        "strip_accents" => n.strip_accents = on,
                        _ => n.collapse_whitespace = on,
                    }
                }
                Ok(n)
            }
            _ => Err(self
                .err(
                    node.mark,
                    path,
                    format!(
                        "`normalize` must be `true`, `false` or a mapping of steps, found {}",
                        node.kind_name()
                    ),
                )
                .hint("for example `normalize: { lowercase: true, strip_accents: false }`")),
        }
    }

    pub(super) fn boolean(&self, node: &Node, path: &str) -> Result<bool, LoadError> {
        match &node.kind {
            NodeKind::Text(t) if matches!(t.as_str(), "true" | "True" | "TRUE") => Ok(true),
            NodeKind::Text(t) if matches!(t.as_str(), "false" | "False" | "FALSE") => Ok(false),
            _ => Err(self.err(node.mark, path, "expected `true` or `false`")),
        }
    }

    pub(super) fn ece_bins(&self, bins: Option<&Spanned<u32>>) -> Result<u32, LoadError> {
        match bins {
            Some(b) if b.value == 0 => Err(self
                .err(
                    Mark::of(&b.referenced),
                    "ece_bins",
                    "`ece_bins` must be at least 1",
                )
                .hint("the default is 5")),
            Some(b) => Ok(b.value),
            None => Ok(DEFAULT_ECE_BINS),
        }
    }

    /// Checks bounds on metrics: in [0, 1], a count, or (latency, cost) at least 0. `critical` is
    /// the case's critical fields, `None` for a suite's aggregate. The first mistake, in line
    /// order; [`InFile::every_bound`] gives them all.
    pub(crate) fn bounds<'s>(
        &self,
        section: &str,
        bound: impl Fn(&str) -> Option<&'s Spanned<f64>>,
        critical: Option<&[String]>,
    ) -> Result<Vec<Threshold>, LoadError> {
        self.every_bound(section, bound, critical)
            .map_err(|mut all| all.remove(0))
    }

    /// As [`InFile::bounds`], with every bound out of its metric's range (never none), in line order.
    pub(crate) fn every_bound<'s>(
        &self,
        section: &str,
        bound: impl Fn(&str) -> Option<&'s Spanned<f64>>,
        critical: Option<&[String]>,
    ) -> Result<Vec<Threshold>, Vec<LoadError>> {
        let mut out = Vec::new();
        let mut errors = Vec::new();
        for metric in Metric::ALL
            .into_iter()
            .filter(|m| m.bounds_in(critical.is_none()))
        {
            let name = metric.threshold_key();
            let Some(value) = bound(name) else { continue };
            let mark = Mark::of(&value.referenced);
            let path = format!("{section}.{name}");
            let v = value.value;
            let range = metric.about().range;
            if !range.holds(v) {
                errors.push(match range {
                    Range::Unit => self
                        .err(mark, &path, format!("`{name}` is {v}, outside [0, 1]"))
                        .hint("metrics and the score lie between 0 and 1"),
                    Range::Count => self
                        .err(mark, &path, format!("`{name}` is {v}, not a count"))
                        .hint("write a whole number such as 0"),
                    Range::NonNegative => self.err(
                        mark,
                        &path,
                        format!("`{name}` is {v}; it must be 0 or more"),
                    ),
                });
                continue;
            }
            if matches!(metric, Metric::ExactCritical | Metric::AnlsCritical)
                && critical.is_some_and(<[String]>::is_empty)
            {
                errors.push(self
                    .err(mark, &path, format!("`{name}` bounds the critical fields, but `critical` is empty"))
                    .hint("list the critical fields with `critical: [field, ...]`, or remove this threshold"));
                continue;
            }
            out.push(Threshold {
                is_max: metric.about().direction == Direction::Lower,
                name: name.to_owned(),
                metric,
                limit: v,
                file: self.file.to_path_buf(),
                line: mark.line,
                column: mark.column,
            });
        }
        if errors.is_empty() {
            return Ok(out);
        }
        errors.sort_by_key(|e| (e.line, e.column));
        Err(errors)
    }

    /// The prediction `spec` gives, `written_in` the case file or a suite's `defaults`.
    pub(super) fn prediction(
        &self,
        spec: &CaseFile,
        written_in: WrittenIn,
    ) -> Result<PredictionSource, LoadError> {
        match (&spec.prediction, &spec.prediction_text) {
            (Some(node), Some(_)) => Err(self.err(node.mark, "prediction", "give either `prediction` or `prediction_text`, not both")),
            (None, Some(text)) => Ok(PredictionSource::Text(text.value.clone())),
            (None, None) => Err(self.err(Mark { line: 1, column: 1 }, "", "this case has no prediction")
                .hint("add `prediction: outputs/NAME.json`, a path relative to this file, or an inline mapping, or `prediction_text:`")),
            (Some(node), None) => match &node.kind {
                NodeKind::Text(path) => {
                    let ext = Path::new(path).extension().and_then(|e| e.to_str()).unwrap_or("");
                    if !matches!(ext, "json" | "yaml" | "yml" | "txt") {
                        return Err(self.err(node.mark, "prediction", format!("prediction file `{path}` must end in .json, .yaml, .yml or .txt"))
                            .hint("a string under `prediction:` is always a path; for inline text use `prediction_text:`"));
                    }
                    let base = self.file.parent().unwrap_or(Path::new("."));
                    Ok(PredictionSource::File { path: base.join(path), at: node.mark, written_in, format: None })
                }
                NodeKind::Map(_) => Ok(PredictionSource::Inline(node.clone(), written_in)),
                _ => Err(self.err(node.mark, "prediction", format!("`prediction` must be a file path or a mapping, found {}", node.kind_name()))),
            },
        }
    }
}

/// Where a mapping's key is written, from its value's mark: the key before the value on its
/// line (a node keeps no mark of its key), else the value's own.
pub(super) fn key_mark(file: &Path, value: Mark, key: &str) -> Mark {
    let column = std::fs::read_to_string(file).ok().and_then(|text| {
        let line = text
            .lines()
            .nth(usize::try_from(value.line).ok()?.checked_sub(1)?)?;
        let before: String = line
            .chars()
            .take(usize::try_from(value.column).ok()?.saturating_sub(1))
            .collect();
        let at = before.rfind(key)?;
        Some(before[..at].chars().count() as u64 + 1)
    });
    column.map_or(value, |column| Mark {
        line: value.line,
        column,
    })
}

/// A gold value that says where it is on the document: a mapping whose keys are `value` and
/// only `page` and/or `bbox` (any other key makes it a tree, compared whole). Its value node,
/// page and box.
pub(super) fn grounded_value(node: &Node) -> Option<(&Node, Option<&Node>, Option<&Node>)> {
    let entries = node.as_map()?;
    let get = |key: &str| entries.iter().find(|(k, _)| k == key).map(|(_, v)| v);
    let only_place = entries
        .iter()
        .all(|(k, _)| matches!(k.as_str(), "value" | "page" | "bbox"));
    let (value, page, bbox) = (get("value")?, get("page"), get("bbox"));
    (only_place && (page.is_some() || bbox.is_some())).then_some((value, page, bbox))
}
