//! [`Menu`]: the state of one terminal menu (a list of choices, one or several picked, one entry
//! that opens a line of free text) and what each key does to it. Pure: keys in, lines of text
//! out; drawing them and reading keys from the terminal is `terminal`'s job.
//!
//! Keys: ↑/↓ (or k/j) move, a digit picks that entry, Enter chooses (one choice) or confirms
//! (several), Space ticks (several), Esc or Ctrl-C dismisses. The text entry ("Other", "keep
//! planning") takes printable characters, Backspace, Enter to confirm and Esc to go back.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// One entry.
#[derive(Debug, Clone)]
pub struct Item {
    /// What is picked.
    pub label: String,
    /// What it means (shown after the label).
    pub detail: String,
}

/// Where a key left the menu.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Still choosing: draw again.
    Pending,
    /// Chosen: the entries picked (in order; the text entry's index when it was chosen) and the
    /// text written, if any.
    Chosen {
        /// Indices of the entries picked.
        picked: Vec<usize>,
        /// The text entry's words.
        words: Option<String>,
    },
    /// Dismissed (Esc, Ctrl-C).
    Dismissed,
}

/// A menu being answered.
#[derive(Debug)]
pub struct Menu {
    items: Vec<Item>,
    multi: bool,
    /// The entry that opens the text line, and what the line says before the text.
    words_at: Option<(usize, String)>,
    /// Whether choosing the text entry with no text is still a choice (keep planning without
    /// feedback); otherwise it goes back to the list.
    words_optional: bool,
    cursor: usize,
    ticked: Vec<bool>,
    /// The text being typed, while the text line is open.
    editing: Option<String>,
    /// The text confirmed (several choices: beside the ticks).
    words: Option<String>,
    /// A line telling what the last key could not do.
    hint: Option<String>,
}

impl Menu {
    /// A menu of `items`; `multi` lets several be ticked.
    pub fn new(items: Vec<Item>, multi: bool) -> Self {
        let ticked = vec![false; items.len()];
        Self {
            items,
            multi,
            words_at: None,
            words_optional: false,
            cursor: 0,
            ticked,
            editing: None,
            words: None,
            hint: None,
        }
    }

    /// Entry `index` opens a line of text introduced by `prompt`; `optional` makes it a choice
    /// even left empty.
    pub fn with_words(mut self, index: usize, prompt: &str, optional: bool) -> Self {
        self.words_at = Some((index, prompt.to_string()));
        self.words_optional = optional;
        self
    }

    /// Start on entry `index`.
    pub fn with_cursor(mut self, index: usize) -> Self {
        self.cursor = index.min(self.items.len().saturating_sub(1));
        self
    }

    fn is_words(&self, index: usize) -> bool {
        self.words_at.as_ref().is_some_and(|(at, _)| *at == index)
    }

    /// Act on `key`.
    pub fn key(&mut self, key: KeyEvent) -> Step {
        self.hint = None;
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            return Step::Dismissed;
        }
        if self.editing.is_some() {
            return self.edit(key);
        }
        match key.code {
            KeyCode::Up | KeyCode::Char('k') => {
                self.cursor = self.cursor.checked_sub(1).unwrap_or(self.items.len() - 1)
            }
            KeyCode::Down | KeyCode::Char('j') | KeyCode::Tab => self.cursor = (self.cursor + 1) % self.items.len(),
            KeyCode::Home => self.cursor = 0,
            KeyCode::End => self.cursor = self.items.len() - 1,
            KeyCode::Esc => return Step::Dismissed,
            KeyCode::Char(c @ '1'..='9') => {
                let index = c as usize - '1' as usize;
                if index < self.items.len() {
                    self.cursor = index;
                    return if self.multi { self.tick() } else { self.choose() };
                }
            }
            KeyCode::Char(' ') if self.multi => return self.tick(),
            KeyCode::Enter if self.multi => return self.confirm(),
            KeyCode::Enter | KeyCode::Char(' ') => return self.choose(),
            _ => {}
        }
        Step::Pending
    }

    /// One choice: the entry under the cursor.
    fn choose(&mut self) -> Step {
        if self.is_words(self.cursor) {
            self.editing = Some(self.words.clone().unwrap_or_default());
            return Step::Pending;
        }
        Step::Chosen { picked: vec![self.cursor], words: None }
    }

    /// Several choices: tick or untick the entry under the cursor.
    fn tick(&mut self) -> Step {
        let i = self.cursor;
        if self.is_words(i) && !self.ticked[i] {
            self.editing = Some(self.words.clone().unwrap_or_default());
        } else {
            self.ticked[i] = !self.ticked[i];
            if self.is_words(i) {
                self.words = None;
            }
        }
        Step::Pending
    }

    /// Several choices: done.
    fn confirm(&mut self) -> Step {
        let picked: Vec<usize> = (0..self.items.len()).filter(|i| self.ticked[*i] && !self.is_words(*i)).collect();
        if picked.is_empty() && self.words.is_none() {
            self.hint = Some("Tick at least one entry with Space (or write your own answer) first.".into());
            return Step::Pending;
        }
        Step::Chosen { picked, words: self.words.clone() }
    }

    /// A key while the text line is open.
    fn edit(&mut self, key: KeyEvent) -> Step {
        let Some(text) = self.editing.as_mut() else { return Step::Pending };
        match key.code {
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => text.push(c),
            KeyCode::Backspace => {
                text.pop();
            }
            KeyCode::Esc => self.editing = None,
            KeyCode::Enter => {
                let text = self.editing.take().unwrap_or_default().trim().to_string();
                let index = self.cursor;
                if self.multi {
                    self.ticked[index] = !text.is_empty();
                    self.words = (!text.is_empty()).then_some(text);
                } else if !text.is_empty() || self.words_optional {
                    return Step::Chosen { picked: vec![index], words: (!text.is_empty()).then_some(text) };
                }
            }
            _ => {}
        }
        Step::Pending
    }

    /// The menu as lines of at most `width` characters (each fits one terminal row).
    pub fn lines(&self, width: usize) -> Vec<String> {
        let fit = |line: String| -> String {
            if line.chars().count() <= width { line } else { line.chars().take(width.saturating_sub(1)).collect() }
        };
        let mut lines = Vec::new();
        let label_width = self.items.iter().map(|i| i.label.chars().count()).max().unwrap_or(0);
        for (i, item) in self.items.iter().enumerate() {
            let pointer = if i == self.cursor { '>' } else { ' ' };
            let tick = match (self.multi, self.ticked[i]) {
                (false, _) => "",
                (true, true) => "[x] ",
                (true, false) => "[ ] ",
            };
            let mut detail = item.detail.clone();
            if self.is_words(i) {
                if let Some(words) = &self.words {
                    detail = format!("\"{words}\"");
                }
            }
            let label = format!("{:<label_width$}", item.label);
            lines.push(fit(format!(" {pointer} {tick}{}. {label}  {detail}", i + 1).trim_end().to_string()));
        }
        if let (Some(text), Some((_, prompt))) = (&self.editing, &self.words_at) {
            lines.push(fit(format!("   {prompt}{text}_")));
            lines.push(fit("   Enter to confirm, Esc to go back to the list".into()));
        } else if let Some(hint) = &self.hint {
            lines.push(fit(format!("   {hint}")));
        } else if self.multi {
            lines.push(fit("   Up/Down move, Space or a number ticks, Enter when done, Esc dismisses".into()));
        } else {
            lines.push(fit("   Up/Down move, Enter or a number chooses, Esc dismisses".into()));
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn items(labels: &[&str]) -> Vec<Item> {
        labels.iter().map(|l| Item { label: (*l).into(), detail: format!("about {l}") }).collect()
    }

    fn typed(menu: &mut Menu, text: &str) -> Step {
        let mut step = Step::Pending;
        for c in text.chars() {
            step = menu.key(key(KeyCode::Char(c)));
        }
        step
    }

    #[test]
    fn one_choice_by_arrows_or_number() {
        let mut menu = Menu::new(items(&["A", "B", "C"]), false);
        assert_eq!(menu.key(key(KeyCode::Down)), Step::Pending);
        assert_eq!(menu.key(key(KeyCode::Enter)), Step::Chosen { picked: vec![1], words: None });
        let mut menu = Menu::new(items(&["A", "B", "C"]), false);
        assert_eq!(menu.key(key(KeyCode::Up)), Step::Pending, "wraps to the last");
        assert!(menu.lines(80)[2].starts_with(" > 3. C"), "{:?}", menu.lines(80));
        assert_eq!(menu.key(key(KeyCode::Char('1'))), Step::Chosen { picked: vec![0], words: None });
        assert_eq!(Menu::new(items(&["A"]), false).key(key(KeyCode::Esc)), Step::Dismissed);
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(Menu::new(items(&["A"]), false).key(ctrl_c), Step::Dismissed);
    }

    #[test]
    fn the_text_entry_takes_words_and_goes_back_on_esc_or_empty() {
        let mut menu = Menu::new(items(&["A", "Other"]), false).with_words(1, "Your answer: ", false);
        menu.key(key(KeyCode::Char('2')));
        typed(&mut menu, "Mine");
        menu.key(key(KeyCode::Backspace));
        assert!(menu.lines(80).iter().any(|l| l == "   Your answer: Min_"), "{:?}", menu.lines(80));
        assert_eq!(menu.key(key(KeyCode::Esc)), Step::Pending, "Esc leaves the text, not the menu");
        menu.key(key(KeyCode::Enter));
        assert_eq!(menu.key(key(KeyCode::Enter)), Step::Pending, "an empty answer is no answer");
        menu.key(key(KeyCode::Enter));
        typed(&mut menu, " MySQL ");
        assert_eq!(menu.key(key(KeyCode::Enter)), Step::Chosen { picked: vec![1], words: Some("MySQL".into()) });

        let mut plan = Menu::new(items(&["Yes", "No"]), false).with_words(1, "What should change? ", true);
        plan.key(key(KeyCode::Char('2')));
        assert_eq!(plan.key(key(KeyCode::Enter)), Step::Chosen { picked: vec![1], words: None }, "optional words");
    }

    #[test]
    fn several_choices_tick_and_confirm() {
        let mut menu = Menu::new(items(&["A", "B", "C", "Other"]), true).with_words(3, "Your answer: ", false);
        assert_eq!(menu.key(key(KeyCode::Enter)), Step::Pending, "nothing ticked yet");
        assert!(menu.lines(80).last().unwrap().contains("Tick at least one"));
        menu.key(key(KeyCode::Char(' ')));
        menu.key(key(KeyCode::Char('3')));
        menu.key(key(KeyCode::Char('1')));
        menu.key(key(KeyCode::Char('1')));
        assert_eq!(menu.lines(80)[0], " > [x] 1. A      about A");
        menu.key(key(KeyCode::Char('4')));
        typed(&mut menu, "rate limits");
        menu.key(key(KeyCode::Enter));
        assert!(menu.lines(80)[3].ends_with("\"rate limits\""), "{:?}", menu.lines(80));
        assert_eq!(
            menu.key(key(KeyCode::Enter)),
            Step::Chosen { picked: vec![0, 2], words: Some("rate limits".into()) }
        );
    }

    #[test]
    fn lines_fit_the_width() {
        let menu = Menu::new(items(&["A long label", "B"]), false);
        assert!(menu.lines(10).iter().all(|l| l.chars().count() <= 10), "{:?}", menu.lines(10));
    }
}
