//! The field × pipeline table in the order a reader looks for: the fields exact for every
//! pipeline counted on one line, the others worst first (by the lowest EM or ANLS any pipeline
//! has for them, then by their mean over the pipelines). The HTML page and the step summary
//! share it.

use std::collections::BTreeMap;

use crate::evaluate::aggregate::FieldStat;

/// The fields of a run, perfect ones apart.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FieldRows<'a> {
    /// The fields exact (EM and ANLS 1) for every pipeline that has them, by name.
    pub perfect: Vec<&'a str>,
    /// The other fields, worst first: each with its numbers per pipeline, in the order of the
    /// pipelines given (`None` where a pipeline has no case with the field).
    pub rows: Vec<(&'a str, Vec<Option<&'a FieldStat>>)>,
}

/// The fields of `fields` for `pipelines`, perfect ones apart and the others worst first (ties
/// by the mean of their EM and ANLS over the pipelines, then by name).
pub(crate) fn field_rows<'a>(fields: &'a [FieldStat], pipelines: &[&str]) -> FieldRows<'a> {
    let mut by_field: BTreeMap<&str, Vec<Option<&FieldStat>>> = BTreeMap::new();
    for f in fields {
        let Some(at) = pipelines.iter().position(|p| *p == f.pipeline) else {
            continue;
        };
        by_field
            .entry(f.field.as_str())
            .or_insert_with(|| vec![None; pipelines.len()])[at] = Some(f);
    }
    let worst = |stats: &[Option<&FieldStat>]| {
        stats
            .iter()
            .flatten()
            .map(|s| s.em.min(s.anls))
            .fold(f64::INFINITY, f64::min)
    };
    let mut perfect = Vec::new();
    let mut rows = Vec::new();
    for (field, stats) in by_field {
        if worst(&stats) >= 1.0 {
            perfect.push(field);
        } else {
            rows.push((field, stats));
        }
    }
    let mean = |stats: &[Option<&FieldStat>]| {
        let values: Vec<f64> = stats
            .iter()
            .flatten()
            .flat_map(|s| [s.em, s.anls])
            .collect();
        values.iter().sum::<f64>() / values.len().max(1) as f64
    };
    rows.sort_by(|(a, x), (b, y)| {
        (worst(x).total_cmp(&worst(y)))
            .then(mean(x).total_cmp(&mean(y)))
            .then(a.cmp(b))
    });
    FieldRows { perfect, rows }
}

/// `412 fields are exact for every pipeline`, or `None` when no field is.
pub(crate) fn perfect_line(perfect: &[&str], pipelines: usize) -> Option<String> {
    let every = if pipelines == 1 {
        "for the pipeline"
    } else {
        "for every pipeline"
    };
    match perfect.len() {
        0 => None,
        1 => Some(format!("1 field is exact {every}")),
        n => Some(format!("{n} fields are exact {every}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stat(field: &str, pipeline: &str, em: f64, anls: f64) -> FieldStat {
        FieldStat {
            field: field.into(),
            pipeline: pipeline.into(),
            cases: 1,
            em,
            anls,
        }
    }

    #[test]
    fn perfect_fields_are_apart_and_the_others_worst_first() {
        let fields = [
            stat("a", "x", 1.0, 1.0),
            stat("a", "y", 1.0, 1.0),
            stat("b", "x", 1.0, 1.0),
            stat("b", "y", 0.5, 0.9),
            stat("c", "x", 0.8, 0.7),
            stat("d", "y", 1.0, 1.0),
            stat("e", "x", 0.9, 0.95),
            stat("e", "y", 0.5, 0.6),
        ];
        let rows = field_rows(&fields, &["x", "y"]);
        assert_eq!(rows.perfect, ["a", "d"]);
        let order: Vec<&str> = rows.rows.iter().map(|(f, _)| *f).collect();
        // b's worst is 0.5, e's 0.5 (a tie: e's mean is the lower), c's 0.7.
        assert_eq!(order, ["e", "b", "c"]);
        assert_eq!(rows.rows[2].1[1], None);
        assert_eq!(
            perfect_line(&rows.perfect, 2).as_deref(),
            Some("2 fields are exact for every pipeline")
        );
        assert_eq!(perfect_line(&[], 2), None);
    }
}
