//! Token usage in each provider's own names, read with no configuration into what the provider
//! bills ([`Usage`]):
//!
//! | provider | input | output | total | cached input | reasoning |
//! |---|---|---|---|---|---|
//! | OpenAI Chat Completions, Mistral and the others that follow it | `prompt_tokens` | `completion_tokens` (reasoning included) | `total_tokens` | `prompt_tokens_details.cached_tokens` | `completion_tokens_details.reasoning_tokens` |
//! | OpenAI Responses | `input_tokens` | `output_tokens` (reasoning included) | `total_tokens` | `input_tokens_details.cached_tokens` | `output_tokens_details.reasoning_tokens` |
//! | Anthropic | `input_tokens` + `cache_creation_input_tokens` + `cache_read_input_tokens` | `output_tokens` | — | `cache_read_input_tokens` | — |
//! | Gemini | `promptTokenCount` + `toolUsePromptTokenCount` | `candidatesTokenCount` + `thoughtsTokenCount` | `totalTokenCount` | `cachedContentTokenCount` | `thoughtsTokenCount` |
//!
//! Anthropic's cache reads and writes and Gemini's thinking are written beside the counts they
//! belong to, not inside them, so they are added in; OpenAI's cached and reasoning tokens are
//! already inside theirs and are not counted twice. Other keys (`service_tier`, per-modality
//! details) are not token counts to bill and are passed over.

use crate::base::json::Json;
use crate::model::prediction::Usage;

/// Where in the usage a mistake is (its keys from the envelope down), the message and a hint.
pub(crate) type UsageError = (Vec<String>, String, Option<String>);

/// The counts as written, before they are summed into what is billed.
#[derive(Default)]
struct Written<'a> {
    input: Option<(&'a str, f64)>,
    output: Option<(&'a str, f64)>,
    total: Option<(&'a str, f64)>,
    cache_read: Option<f64>,
    cache_write: Option<f64>,
    cached_inside: Option<f64>,
    reasoning_inside: Option<f64>,
    thinking_beside: Option<f64>,
    tool_prompt: Option<f64>,
}

/// Reads a usage mapping; `at` is its place in the prediction (`usage`, `meta.usage`).
pub(crate) fn read(entries: &[(String, Json)], at: &[String]) -> Result<Usage, UsageError> {
    let mut w = Written::default();
    for (key, value) in entries {
        let here = || {
            let mut p = at.to_vec();
            p.push(key.clone());
            p
        };
        let main = match key.as_str() {
            "prompt_tokens" | "input_tokens" | "promptTokenCount" => Some(&mut w.input),
            "completion_tokens" | "output_tokens" | "candidatesTokenCount" => Some(&mut w.output),
            "total_tokens" | "totalTokenCount" => Some(&mut w.total),
            _ => None,
        };
        if let Some(slot) = main {
            // `null` is a count not reported.
            let Some(n) = count(value, here(), key)? else {
                continue;
            };
            if let Some((first, _)) = slot {
                return Err((
                    here(),
                    format!("`{key}` and `{first}` name the same count"),
                    Some(format!("keep one of them: `{first}` or `{key}`")),
                ));
            }
            *slot = Some((key.as_str(), n));
            continue;
        }
        match key.as_str() {
            "cache_read_input_tokens" => w.cache_read = count(value, here(), key)?,
            "cache_creation_input_tokens" => w.cache_write = count(value, here(), key)?,
            "cachedContentTokenCount" => w.cached_inside = count(value, here(), key)?,
            "thoughtsTokenCount" => w.thinking_beside = count(value, here(), key)?,
            "toolUsePromptTokenCount" => w.tool_prompt = count(value, here(), key)?,
            "prompt_tokens_details" | "input_tokens_details" => {
                if let Some(n) = detail(value, here(), "cached_tokens")? {
                    w.cached_inside = Some(n);
                }
            }
            "completion_tokens_details" | "output_tokens_details" => {
                if let Some(n) = detail(value, here(), "reasoning_tokens")? {
                    w.reasoning_inside = Some(n);
                }
            }
            _ => {}
        }
    }
    Ok(billed(&w))
}

/// What the provider bills, from what it wrote.
fn billed(w: &Written<'_>) -> Usage {
    let sum = |parts: &[Option<f64>]| -> Option<f64> {
        parts.iter().flatten().copied().reduce(|a, b| a + b)
    };
    let input = sum(&[
        w.input.map(|(_, n)| n),
        w.cache_read,
        w.cache_write,
        w.tool_prompt,
    ]);
    let output = sum(&[w.output.map(|(_, n)| n), w.thinking_beside]);
    Usage {
        input_tokens: input,
        output_tokens: output,
        total_tokens: w.total.map(|(_, n)| n),
        cached_input_tokens: w.cache_read.or(w.cached_inside),
        cache_write_tokens: w.cache_write,
        reasoning_tokens: w.thinking_beside.or(w.reasoning_inside),
    }
}

/// A token count: a whole number ≥ 0 (written as a JSON number or its text); `null` is a
/// count not reported.
fn count(value: &Json, at: Vec<String>, key: &str) -> Result<Option<f64>, UsageError> {
    let n = match value {
        Json::Null => return Ok(None),
        Json::Number(n) => n.as_f64(),
        Json::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    };
    match n {
        Some(n) if n.is_finite() && n >= 0.0 => Ok(Some(n)),
        Some(n) => Err((
            at,
            format!("`{key}` is {n}: a token count is a number of 0 or more"),
            None,
        )),
        None => Err((
            at,
            format!(
                "`{key}` must be a token count (a number), found {}",
                value.kind()
            ),
            None,
        )),
    }
}

/// `cached_tokens` or `reasoning_tokens` inside a `…_details` mapping.
fn detail(value: &Json, at: Vec<String>, key: &str) -> Result<Option<f64>, UsageError> {
    match value {
        Json::Null => Ok(None),
        Json::Object(entries) => match entries.iter().find(|(k, _)| k == key) {
            Some((_, v)) => {
                let mut here = at;
                here.push(key.to_owned());
                count(v, here, key)
            }
            None => Ok(None),
        },
        _ => Err((
            at,
            format!(
                "a usage's details must be a mapping, found {}",
                value.kind()
            ),
            None,
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(text: &str) -> Usage {
        let Json::Object(entries) = crate::base::json::prediction_tree(text).unwrap() else {
            panic!("not a mapping")
        };
        read(&entries, &["usage".to_owned()]).unwrap()
    }

    /// DocuBench's Gemini recording: thinking is billed as output, beside the candidates.
    #[test]
    fn gemini_thinking_is_output() {
        let u = usage(
            r#"{"promptTokenCount": 574, "candidatesTokenCount": 388, "totalTokenCount": 1923,
                "promptTokensDetails": [{"modality": "IMAGE", "tokenCount": 520}],
                "thoughtsTokenCount": 961, "serviceTier": "standard"}"#,
        );
        assert_eq!(u.input_tokens, Some(574.0));
        assert_eq!(u.output_tokens, Some(388.0 + 961.0));
        assert_eq!(u.reasoning_tokens, Some(961.0));
        assert_eq!(u.unaccounted(), None);
    }

    /// OpenAI Responses: reasoning and cached tokens are inside the counts already.
    #[test]
    fn openai_reasoning_is_not_counted_twice() {
        let u = usage(
            r#"{"input_tokens": 1954, "input_tokens_details": {"cached_tokens": 1024},
                "output_tokens": 388, "output_tokens_details": {"reasoning_tokens": 174},
                "total_tokens": 2342}"#,
        );
        assert_eq!(
            (
                u.input_tokens,
                u.output_tokens,
                u.cached_input_tokens,
                u.reasoning_tokens
            ),
            (Some(1954.0), Some(388.0), Some(1024.0), Some(174.0))
        );
        assert_eq!(u.unaccounted(), None);
        let chat = usage(
            r#"{"prompt_tokens": 100, "completion_tokens": 50, "total_tokens": 150,
                "prompt_tokens_details": {"cached_tokens": null, "audio_tokens": 0},
                "completion_tokens_details": {"reasoning_tokens": 20}}"#,
        );
        assert_eq!(
            (
                chat.input_tokens,
                chat.output_tokens,
                chat.cached_input_tokens
            ),
            (Some(100.0), Some(50.0), None)
        );
    }

    /// Anthropic: cache reads and writes are input, written beside `input_tokens`.
    #[test]
    fn anthropic_cache_tokens_are_input() {
        let u = usage(
            r#"{"input_tokens": 3272, "cache_creation_input_tokens": 100,
                "cache_read_input_tokens": 2000, "cache_creation": {"ephemeral_5m_input_tokens": 100},
                "output_tokens": 230, "service_tier": "standard"}"#,
        );
        assert_eq!(u.input_tokens, Some(5372.0));
        assert_eq!(u.cached_input_tokens, Some(2000.0));
        assert_eq!(u.cache_write_tokens, Some(100.0));
        assert_eq!(u.total_tokens, None);
    }

    #[test]
    fn a_total_the_parts_do_not_make_is_found() {
        let u = usage(r#"{"prompt_tokens": 100, "completion_tokens": 50, "total_tokens": 170}"#);
        assert_eq!(u.unaccounted(), Some((170.0, 150.0)));
    }

    #[test]
    fn two_names_of_one_count_and_a_negative_count_are_refused() {
        let Json::Object(entries) =
            crate::base::json::prediction_tree(r#"{"prompt_tokens": 10, "input_tokens": 12}"#)
                .unwrap()
        else {
            panic!()
        };
        let (at, message, hint) = read(&entries, &["usage".to_owned()]).unwrap_err();
        assert_eq!(at, ["usage", "input_tokens"]);
        assert_eq!(
            message,
            "`input_tokens` and `prompt_tokens` name the same count"
        );
        assert_eq!(
            hint.as_deref(),
            Some("keep one of them: `prompt_tokens` or `input_tokens`")
        );
        let Json::Object(entries) =
            crate::base::json::prediction_tree(r#"{"thoughtsTokenCount": -3}"#).unwrap()
        else {
            panic!()
        };
        let (_, message, _) = read(&entries, &[]).unwrap_err();
        assert_eq!(
            message,
            "`thoughtsTokenCount` is -3: a token count is a number of 0 or more"
        );
    }
}
