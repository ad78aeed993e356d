//! `pipelines:` as written: names mapped to prediction paths, or to a mapping that also gives the
//! pipeline its own aggregate bounds and prediction format; or a list of names, when `run`
//! produces the predictions.

use crate::base::spanned::Spanned;
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};

use super::case::PipelineAggregateSpec;

/// A suite's `pipelines:`, in the order written (the first is the reference).
#[derive(Debug, Clone)]
pub enum PipelinesSpec {
    /// `name: path` or `name: { prediction: path, aggregate: {...}, prediction_format: {...} }`.
    Map(Vec<(String, Spanned<PipelineValue>)>),
    /// `[name, ...]`.
    List(Vec<Spanned<PipelineName>>),
    /// Anything else, which the loader refuses with the form to write.
    Other,
}

/// One pipeline's value (or, in a list, its name).
#[derive(Debug, Clone)]
pub enum PipelineValue {
    /// A text: a prediction path, or a name in a list.
    Text(String),
    /// A mapping of the pipeline's keys.
    Entry(Box<PipelineSpec>),
    /// Anything else (a number, a list, null), named for the message.
    Other(&'static str),
}

/// An item of a list of pipelines: a name, or anything else, named for the message.
#[derive(Debug, Clone)]
pub enum PipelineName {
    /// A name.
    Text(String),
    /// Not a text (a mapping, a number...).
    Other(&'static str),
}

/// A pipeline written as a mapping.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PipelineSpec {
    /// The prediction path, relative to the suite's folder, with `{case}`, `{pipeline}`,
    /// `{document}`; left out when `run` produces the predictions.
    #[schemars(with = "Option<String>")]
    pub prediction: Option<Spanned<String>>,
    /// This pipeline's own aggregate bounds: each key replaces the suite's `aggregate` key for
    /// this pipeline's aggregate test, and `null` removes the suite's bound.
    #[schemars(with = "Option<PipelineAggregateSpec>")]
    pub aggregate: Option<Spanned<PipelineAggregateSpec>>,
    /// Where the parts of a prediction are in this pipeline's own documents: replaces the
    /// suite's `prediction_format` for this pipeline's predictions (a case's own still wins).
    pub prediction_format: Option<super::PredictionFormatSpec>,
}

impl<'de> Deserialize<'de> for PipelinesSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(PipelinesVisitor)
    }
}

impl<'de> Deserialize<'de> for PipelineValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValueVisitor { in_a_list: false })
    }
}

impl<'de> Deserialize<'de> for PipelineName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match d.deserialize_any(ValueVisitor { in_a_list: true })? {
            PipelineValue::Text(t) => Ok(PipelineName::Text(t)),
            PipelineValue::Entry(_) => Ok(PipelineName::Other("a mapping")),
            PipelineValue::Other(kind) => Ok(PipelineName::Other(kind)),
        }
    }
}

struct PipelinesVisitor;

impl<'de> Visitor<'de> for PipelinesVisitor {
    type Value = PipelinesSpec;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a mapping of pipeline names, or a list of them")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<PipelinesSpec, A::Error> {
        let mut entries = Vec::new();
        while let Some(name) = map.next_key::<String>()? {
            entries.push((name, map.next_value::<Spanned<PipelineValue>>()?));
        }
        Ok(PipelinesSpec::Map(entries))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<PipelinesSpec, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Spanned<PipelineName>>()? {
            items.push(item);
        }
        Ok(PipelinesSpec::List(items))
    }
    fn visit_str<E>(self, _: &str) -> Result<PipelinesSpec, E> {
        Ok(PipelinesSpec::Other)
    }
    fn visit_bool<E>(self, _: bool) -> Result<PipelinesSpec, E> {
        Ok(PipelinesSpec::Other)
    }
    fn visit_i64<E>(self, _: i64) -> Result<PipelinesSpec, E> {
        Ok(PipelinesSpec::Other)
    }
    fn visit_u64<E>(self, _: u64) -> Result<PipelinesSpec, E> {
        Ok(PipelinesSpec::Other)
    }
    fn visit_f64<E>(self, _: f64) -> Result<PipelinesSpec, E> {
        Ok(PipelinesSpec::Other)
    }
    fn visit_unit<E>(self) -> Result<PipelinesSpec, E> {
        Ok(PipelinesSpec::Other)
    }
    fn visit_none<E>(self) -> Result<PipelinesSpec, E> {
        Ok(PipelinesSpec::Other)
    }
}

/// In a list, a mapping is not read: a list holds names alone, and the loader says so.
struct ValueVisitor {
    in_a_list: bool,
}

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = PipelineValue;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(
            "a prediction path, or a mapping of `prediction`, `aggregate` and `prediction_format`",
        )
    }
    fn visit_str<E>(self, v: &str) -> Result<PipelineValue, E> {
        Ok(PipelineValue::Text(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<PipelineValue, E> {
        Ok(PipelineValue::Text(v))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<PipelineValue, A::Error> {
        if self.in_a_list {
            while map
                .next_entry::<de::IgnoredAny, de::IgnoredAny>()?
                .is_some()
            {}
            return Ok(PipelineValue::Other("a mapping"));
        }
        PipelineSpec::deserialize(MapAccessDeserializer::new(map))
            .map(|p| PipelineValue::Entry(Box::new(p)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<PipelineValue, A::Error> {
        while seq.next_element::<de::IgnoredAny>()?.is_some() {}
        Ok(PipelineValue::Other("a list"))
    }
    fn visit_bool<E>(self, _: bool) -> Result<PipelineValue, E> {
        Ok(PipelineValue::Other("a boolean"))
    }
    fn visit_i64<E>(self, _: i64) -> Result<PipelineValue, E> {
        Ok(PipelineValue::Other("a number"))
    }
    fn visit_u64<E>(self, _: u64) -> Result<PipelineValue, E> {
        Ok(PipelineValue::Other("a number"))
    }
    fn visit_f64<E>(self, _: f64) -> Result<PipelineValue, E> {
        Ok(PipelineValue::Other("a number"))
    }
    fn visit_unit<E>(self) -> Result<PipelineValue, E> {
        Ok(PipelineValue::Other("null"))
    }
    fn visit_none<E>(self) -> Result<PipelineValue, E> {
        Ok(PipelineValue::Other("null"))
    }
}
