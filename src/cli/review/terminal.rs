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
    let mut decisions: Vec<(usize, Action)> = Vec::new();
    let mut note = String::new();
    let mut i = 0;
    while i < items.len() {
        let item = &items[i];
        term.clear_screen().map_err(cannot)?;
        let mut screen = crate::render::item_screen(item, i + 1, items.len());
        if !note.is_empty() {
            screen.push_str(&format!("\n  {note}\n"));
        }
        // Through anstream, so that `NO_COLOR` gets plain text.
        let mut out = anstream::stdout();
        write!(out, "{}", crate::render::inert(&screen)).map_err(cannot)?;
        out.flush().map_err(cannot)?;
        note.clear();
        let field = item.field.is_some();
        match term.read_key().map_err(cannot)? {
            Key::Char('a') if field => decisions.push((i, Action::Accept)),
            Key::Char('v') if field => decisions.push((i, Action::Variant)),
            Key::Char('b') => decisions.push((i, Action::Bless)),
            Key::Char('s') => decisions.push((i, Action::Skip)),
            Key::Char('u') => {
                match decisions.pop() {
                    Some((j, action)) => {
                        note = format!("undone: {} of {}", action.flag(), items[j].id);
                        i = j;
                    }
                    None => note = "nothing to undo".to_owned(),
                }
                continue;
            }
            Key::Char('q') | Key::Escape => break,
            // Ctrl-C abandons the session: nothing decided is carried out.
            Key::CtrlC => {
                term.clear_screen().map_err(cannot)?;
                println!("review interrupted: nothing written");
                return Ok(None);
            }
            Key::Char(all @ ('A' | 'B' | 'S')) => {
                let action = match all {
                    'A' => Action::Accept,
                    'B' => Action::Bless,
                    _ => Action::Skip,
                };
                for (j, rest) in items.iter().enumerate().skip(i) {
                    let action = match action {
                        Action::Accept if rest.field.is_none() => Action::Skip,
                        a => a,
                    };
                    decisions.push((j, action));
                }
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
        }
        i += 1;
    }
    term.clear_screen().map_err(cannot)?;
    let counts = [Action::Accept, Action::Variant, Action::Bless, Action::Skip]
        .map(|a| (a.flag(), decisions.iter().filter(|(_, d)| *d == a).count()));
    println!(
        "{}",
        crate::render::session_line(decisions.len(), items.len(), &counts)
    );
    Ok(Some(decisions))
}
