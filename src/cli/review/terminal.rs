//! The review on a terminal: one item a screen, one key a decision (`console` reads the keys
//! without a full-screen library: the screen is plain text, redrawn whole).

use std::io::Write;

use console::{Key, Term};

use super::apply::Action;
use crate::review::Item;

/// Asks a decision for each item, in order; `None` when there is nothing to review. The
/// decisions so far when the reviewer quits.
pub(super) fn session(items: &[Item]) -> Result<Option<Vec<(usize, Action)>>, TerminalError> {
    if items.is_empty() {
        print!("{}", crate::render::queue_lines(items));
        return Ok(None);
    }
    let term = Term::stdout();
    if !term.is_term() {
        return Err(TerminalError::NotATerminal);
    }
    let mut review = Review {
        items,
        term,
        steps: Vec::new(),
        note: String::new(),
        i: 0,
    };
    loop {
        let next = if review.i == items.len() {
            review.confirm()?
        } else {
            review.decide()?
        };
        match next {
            Next::Key => {}
            Next::Write => break,
            // Ctrl-C abandons the session: nothing decided is carried out.
            Next::Abandon => return Ok(abandoned(&review.term)),
        }
    }
    review.term.clear_screen().map_err(TerminalError::Io)?;
    let decisions: Vec<(usize, Action)> = review.steps.into_iter().flatten().collect();
    println!(
        "{}",
        crate::render::session_line(decisions.len(), items.len(), &counts(&decisions))
    );
    Ok(Some(decisions))
}

/// A review under way on the terminal.
struct Review<'a> {
    items: &'a [Item],
    term: Term,
    /// Each step is one key's decisions: one item's, or every remaining item's (`A`, `B`, `S`),
    /// so that `u` undoes what one key did.
    steps: Vec<Vec<(usize, Action)>>,
    /// What the last key did not do, or undid, shown under the next screen.
    note: String,
    /// The item on the screen; every item decided at `items.len()`.
    i: usize,
}

/// What the session does after a key.
enum Next {
    /// Reads the next key.
    Key,
    /// Ends, to write the decisions.
    Write,
    /// Ends with nothing written.
    Abandon,
}

/// Why the review cannot go on on the terminal.
#[derive(Debug)]
pub(crate) enum TerminalError {
    /// Standard output is not a terminal.
    NotATerminal,
    /// The terminal failed.
    Io(std::io::Error),
}

impl std::fmt::Display for TerminalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TerminalError::NotATerminal => f.write_str(
                "the review takes keys on a terminal: without one, list the queue with `--list` and act with `--accept ID`, `--variant ID` or `--bless ID`",
            ),
            TerminalError::Io(e) => write!(f, "cannot use the terminal: {e}"),
        }
    }
}

impl std::error::Error for TerminalError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TerminalError::NotATerminal => None,
            TerminalError::Io(e) => Some(e),
        }
    }
}

impl Review<'_> {
    fn show(&self, screen: &str) -> Result<(), TerminalError> {
        self.term.clear_screen().map_err(TerminalError::Io)?;
        // Through anstream, so that `NO_COLOR` gets plain text.
        let mut out = anstream::stdout();
        write!(out, "{}", crate::render::inert(screen)).map_err(TerminalError::Io)?;
        out.flush().map_err(TerminalError::Io)
    }

    /// Every item decided: nothing is written before the reviewer says so.
    fn confirm(&mut self) -> Result<Next, TerminalError> {
        let decided: Vec<(usize, Action)> = self.steps.iter().flatten().copied().collect();
        self.show(&format!(
            "{}\n\n  Enter or q writes them, u undoes the last, Ctrl-C leaves without writing anything\n",
            crate::render::session_line(decided.len(), self.items.len(), &counts(&decided))
        ))?;
        match self.term.read_key().map_err(TerminalError::Io)? {
            Key::Enter | Key::Char('q') => return Ok(Next::Write),
            Key::Char('u') => self.undo(),
            Key::CtrlC => return Ok(Next::Abandon),
            _ => {}
        }
        Ok(Next::Key)
    }

    /// The item on the screen, and the key that decides it.
    fn decide(&mut self) -> Result<Next, TerminalError> {
        let items = self.items;
        let item = &items[self.i];
        let mut screen = crate::render::item_screen(item, self.i + 1, items.len());
        if !self.note.is_empty() {
            screen.push_str(&format!("\n  {}\n", self.note));
        }
        self.show(&screen)?;
        self.note.clear();
        let field = item.field.is_some();
        let one = match self.term.read_key().map_err(TerminalError::Io)? {
            Key::Char('a') if field => Action::Accept,
            Key::Char('v') if field => Action::Variant,
            Key::Char('b') if item.baseline => Action::Bless,
            Key::Char('b') => {
                self.note = "no baseline to bless: the suite names no `baseline:` file".to_owned();
                return Ok(Next::Key);
            }
            Key::Char('s') => Action::Skip,
            Key::Char('u') => {
                self.undo();
                return Ok(Next::Key);
            }
            Key::Char('q') | Key::Escape => return Ok(Next::Write),
            Key::CtrlC => return Ok(Next::Abandon),
            Key::Char(all @ ('A' | 'B' | 'S')) => {
                self.every_remaining(all);
                return Ok(Next::Key);
            }
            _ => {
                self.note = if field {
                    "keys: a v b s u q, or A B S".to_owned()
                } else {
                    "a test, not a field: b bless, s skip, u undo, q quit".to_owned()
                };
                return Ok(Next::Key);
            }
        };
        self.steps.push(vec![(self.i, one)]);
        self.i += 1;
        Ok(Next::Key)
    }

    /// `A`, `B` or `S`: one decision for every item from this one on, as one step (an accept
    /// skips the items that are tests, not fields).
    fn every_remaining(&mut self, key: char) {
        let action = match key {
            'A' => Action::Accept,
            'B' => Action::Bless,
            _ => Action::Skip,
        };
        let step = (self.i..self.items.len())
            .map(|j| match action {
                Action::Accept if self.items[j].field.is_none() => (j, Action::Skip),
                a => (j, a),
            })
            .collect();
        self.steps.push(step);
        self.i = self.items.len();
    }

    /// `u`: undoes the last step, back to its first item.
    fn undo(&mut self) {
        match self.steps.pop() {
            Some(step) => {
                let (j, action) = step[0];
                self.note = if step.len() == 1 {
                    format!("undone: {} of {}", action.flag(), self.items[j].id)
                } else {
                    format!(
                        "undone: {} of the {} items from {}",
                        action.flag(),
                        step.len(),
                        self.items[j].id
                    )
                };
                self.i = j;
            }
            None => self.note = "nothing to undo".to_owned(),
        }
    }
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
