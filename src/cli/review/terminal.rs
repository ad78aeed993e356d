//! The review on a terminal: one item a screen, one key a decision (`console` reads the keys
//! without a full-screen library: the screen is plain text, redrawn whole).

use std::io::Write;

use console::{Key, Term};

use super::apply::Action;
use crate::review::Item;

/// Asks a decision for each item, in order; `None` when there is nothing to review. The
/// decisions so far when the reviewer quits.
pub(super) fn session(items: &[Item]) -> Result<Option<Vec<(usize, Action)>>, String> {
    if items.is_empty() {
        print!("{}", crate::render::queue_lines(items));
        return Ok(None);
    }
    let term = Term::stdout();
    if !term.is_term() {
        return Err("the review takes keys on a terminal: without one, list the queue with `--list` and act with `--accept ID`, `--variant ID` or `--bless ID`".to_owned());
    }
    let cannot = |e: std::io::Error| format!("cannot use the terminal: {e}");
    let show = |screen: &str| -> Result<(), String> {
        term.clear_screen().map_err(cannot)?;
        // Through anstream, so that `NO_COLOR` gets plain text.
        let mut out = anstream::stdout();
        write!(out, "{}", crate::render::inert(screen)).map_err(cannot)?;
        out.flush().map_err(cannot)
    };
    // Each step is one key's decisions: one item's, or every remaining item's (`A`, `B`, `S`),
    // so that `u` undoes what one key did.
    let mut steps: Vec<Vec<(usize, Action)>> = Vec::new();
    let mut note = String::new();
    let mut i = 0;
    loop {
        let undo =
            |steps: &mut Vec<Vec<(usize, Action)>>, i: &mut usize, note: &mut String| match steps
                .pop()
            {
                Some(step) => {
                    let (j, action) = step[0];
                    *note = if step.len() == 1 {
                        format!("undone: {} of {}", action.flag(), items[j].id)
                    } else {
                        format!(
                            "undone: {} of the {} items from {}",
                            action.flag(),
                            step.len(),
                            items[j].id
                        )
                    };
                    *i = j;
                }
                None => *note = "nothing to undo".to_owned(),
            };
        if i == items.len() {
            // Every item decided: nothing is written before the reviewer says so.
            let decided: Vec<(usize, Action)> = steps.iter().flatten().copied().collect();
            show(&format!(
                "{}\n\n  Enter or q writes them, u undoes the last, Ctrl-C leaves without writing anything\n",
                crate::render::session_line(decided.len(), items.len(), &counts(&decided))
            ))?;
            match term.read_key().map_err(cannot)? {
                Key::Enter | Key::Char('q') => break,
                Key::Char('u') => undo(&mut steps, &mut i, &mut note),
                Key::CtrlC => return Ok(abandoned(&term)),
                _ => {}
            }
            continue;
        }
        let item = &items[i];
        let mut screen = crate::render::item_screen(item, i + 1, items.len());
        if !note.is_empty() {
            screen.push_str(&format!("\n  {note}\n"));
        }
        show(&screen)?;
        note.clear();
        let field = item.field.is_some();
        let one = match term.read_key().map_err(cannot)? {
            Key::Char('a') if field => Action::Accept,
            Key::Char('v') if field => Action::Variant,
            Key::Char('b') if item.baseline => Action::Bless,
            Key::Char('b') => {
                note = "no baseline to bless: the suite names no `baseline:` file".to_owned();
                continue;
            }
            Key::Char('s') => Action::Skip,
            Key::Char('u') => {
                undo(&mut steps, &mut i, &mut note);
                continue;
            }
            Key::Char('q') | Key::Escape => break,
            // Ctrl-C abandons the session: nothing decided is carried out.
            Key::CtrlC => return Ok(abandoned(&term)),
            Key::Char(all @ ('A' | 'B' | 'S')) => {
                let action = match all {
                    'A' => Action::Accept,
                    'B' => Action::Bless,
                    _ => Action::Skip,
                };
                let step = (i..items.len())
                    .map(|j| match action {
                        Action::Accept if items[j].field.is_none() => (j, Action::Skip),
                        a => (j, a),
                    })
                    .collect();
                steps.push(step);
                i = items.len();
                continue;
            }
            _ => {
                note = if field {
                    "keys: a v b s u q, or A B S".to_owned()
                } else {
                    "a test, not a field: b bless, s skip, u undo, q quit".to_owned()
                };
                continue;
            }
        };
        steps.push(vec![(i, one)]);
        i += 1;
    }
    term.clear_screen().map_err(cannot)?;
    let decisions: Vec<(usize, Action)> = steps.into_iter().flatten().collect();
    println!(
        "{}",
        crate::render::session_line(decisions.len(), items.len(), &counts(&decisions))
    );
    Ok(Some(decisions))
}

/// How many decisions of each kind.
fn counts(decisions: &[(usize, Action)]) -> [(&'static str, usize); 4] {
    [Action::Accept, Action::Variant, Action::Bless, Action::Skip]
        .map(|a| (a.flag(), decisions.iter().filter(|(_, d)| *d == a).count()))
}

/// Leaves the session with nothing written.
fn abandoned(term: &Term) -> Option<Vec<(usize, Action)>> {
    let _ = term.clear_screen();
    println!("review interrupted: nothing written");
    None
}
