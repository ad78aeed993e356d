//! Properties of the metrics over generated inputs (proptest): ANLS stays in [0, 1], ANLS* of a
//! tree against itself is 1 and of any pair is in [0, 1], in both profiles.

use goldgate::Normalize;
use goldgate::metrics::anls;
use goldgate::metrics::anls_star::{Rules, Tree, score_with};
use proptest::prelude::*;

/// Short texts over a small alphabet, so that near misses, ties and empty texts are common;
/// accents, case and spaces, which normalization folds.
fn text() -> impl Strategy<Value = String> {
    proptest::string::string_regex("[abAB é\u{0301} 1.,]{0,8}").unwrap()
}

/// Trees of texts, nulls, lists and maps, up to four levels deep. No `AnyOf`: alternatives are a
/// gold-only construct (in a prediction they read as a list), so a tree with them is not its
/// own prediction.
fn tree() -> impl Strategy<Value = Tree> {
    let leaf = prop_oneof![Just(Tree::Null), text().prop_map(Tree::Text)];
    leaf.prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Tree::List),
            prop::collection::vec(("[abc]{1,2}", inner), 0..4).prop_map(Tree::Map),
        ]
    })
}

fn profiles() -> [Rules; 2] {
    [Rules::REFERENCE, Rules::dream(Normalize::ALL)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn anls_is_in_the_unit_interval(gold in text(), pred in text()) {
        let score = anls(&gold, &pred, Normalize::ALL);
        prop_assert!((0.0..=1.0).contains(&score), "{score}");
        prop_assert_eq!(anls(&gold, &gold, Normalize::ALL), 1.0);
    }

    #[test]
    fn anls_star_of_a_tree_against_itself_is_one(t in tree()) {
        for rules in profiles() {
            prop_assert_eq!(score_with(&t, &t, rules), 1.0, "{:?}", rules);
        }
    }

    #[test]
    fn anls_star_is_in_the_unit_interval(gold in tree(), pred in tree()) {
        for rules in profiles() {
            let score = score_with(&gold, &pred, rules);
            prop_assert!((0.0..=1.0).contains(&score), "{score} under {:?}", rules);
        }
    }
}
