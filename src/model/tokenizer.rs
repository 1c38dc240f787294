//! Splitting a sentence into the tokens the heatmap labels.
//!
//! Rule: words are separated by white space (and by control characters, which are invisible and
//! would otherwise glue words together); punctuation is split off into tokens of its own, one
//! character each, so "mat." becomes "mat", ".". An apostrophe or hyphen *between* two letters
//! stays inside the word ("don't", "well-known"). Case is kept for display.

/// The most tokens one view shows: every row and column must stay readable and clickable.
pub const MAX_TOKENS: usize = 64;
/// The longest sentence accepted, in characters (checked before tokenizing, so it bounds the work).
pub const MAX_SENTENCE_CHARS: usize = 1_000;

/// Why a sentence was refused; `message()` is the text shown in the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SentenceError {
    Empty,
    TooLong { chars: usize, limit: usize },
    TooManyTokens { count: usize, limit: usize },
}

impl SentenceError {
    pub fn message(&self) -> String {
        match self {
            Self::Empty => "The sentence is empty: type at least one word.".to_string(),
            Self::TooLong { chars, limit } => format!(
                "That sentence has {chars} characters; the limit is {limit}. Shorten it and apply again."
            ),
            Self::TooManyTokens { count, limit } => format!(
                "That sentence has {count} tokens; the limit is {limit}. Shorten it and apply again."
            ),
        }
    }
}

fn is_separator(c: char) -> bool {
    c.is_whitespace() || c.is_control()
}

/// Punctuation as a reader sees it: ASCII punctuation plus the common Unicode marks.
pub fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation()
        || matches!(
            c,
            '¡' | '¿'
                | '«'
                | '»'
                | '‘'
                | '’'
                | '‚'
                | '“'
                | '”'
                | '„'
                | '…'
                | '–'
                | '—'
                | '·'
                | '、'
                | '。'
                | '，'
                | '！'
                | '？'
                | '：'
                | '；'
                | '「'
                | '」'
                | '『'
                | '』'
                | '（'
                | '）'
                | '؟'
                | '،'
                | '؛'
                | '।'
        )
}

fn joins_word(c: char) -> bool {
    matches!(c, '\'' | '’' | '-')
}

/// Tokens of `sentence` (see the module doc for the rule). Never panics; may return no tokens.
pub fn tokenize(sentence: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    for word in sentence.split(is_separator).filter(|w| !w.is_empty()) {
        let chars: Vec<char> = word.chars().collect();
        let mut current = String::new();
        for (i, &c) in chars.iter().enumerate() {
            let inside_word = joins_word(c)
                && i > 0
                && chars[i - 1].is_alphanumeric()
                && chars.get(i + 1).is_some_and(|n| n.is_alphanumeric());
            if is_punctuation(c) && !inside_word {
                if !current.is_empty() {
                    tokens.push(std::mem::take(&mut current));
                }
                tokens.push(c.to_string());
            } else {
                current.push(c);
            }
        }
        if !current.is_empty() {
            tokens.push(current);
        }
    }
    tokens
}

/// The one gate every sentence passes (text box, link, model): length, emptiness, token count.
pub fn checked_tokens(sentence: &str, max_tokens: usize) -> Result<Vec<String>, SentenceError> {
    let chars = sentence.chars().count();
    if chars > MAX_SENTENCE_CHARS {
        return Err(SentenceError::TooLong {
            chars,
            limit: MAX_SENTENCE_CHARS,
        });
    }
    let tokens = tokenize(sentence);
    if tokens.is_empty() {
        return Err(SentenceError::Empty);
    }
    if tokens.len() > max_tokens {
        return Err(SentenceError::TooManyTokens {
            count: tokens.len(),
            limit: max_tokens,
        });
    }
    Ok(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<String> {
        tokenize(s)
    }

    #[test]
    fn default_sentence_gives_seven_tokens() {
        assert_eq!(
            toks("The cat sat on the mat ."),
            ["The", "cat", "sat", "on", "the", "mat", "."]
        );
        assert_eq!(
            toks("The cat sat on the mat."),
            ["The", "cat", "sat", "on", "the", "mat", "."]
        );
    }

    #[test]
    fn punctuation_is_split_off_but_inner_apostrophes_stay() {
        assert_eq!(toks("Hello, world!"), ["Hello", ",", "world", "!"]);
        assert_eq!(
            toks("(don't) well-known"),
            ["(", "don't", ")", "well-known"]
        );
        assert_eq!(toks("'quoted'"), ["'", "quoted", "'"]);
        assert_eq!(toks("..."), [".", ".", "."]);
        assert_eq!(toks("¿Qué?"), ["¿", "Qué", "?"]);
    }

    #[test]
    fn whitespace_and_controls_separate_words() {
        assert_eq!(toks("  a\tb\nc\u{0}d\u{7}e  "), ["a", "b", "c", "d", "e"]);
        assert!(toks(" \t\n ").is_empty());
        assert!(toks("").is_empty());
    }

    #[test]
    fn unicode_words_survive_intact() {
        assert_eq!(
            toks("猫が 座った 🐈‍⬛ café"),
            ["猫が", "座った", "🐈‍⬛", "café"]
        );
        assert_eq!(toks("שלום עולם"), ["שלום", "עולם"]);
        // A combining acute accent stays on its letter.
        assert_eq!(toks("cafe\u{301}"), ["cafe\u{301}"]);
        assert_eq!(toks("<img src=x>"), ["<", "img", "src", "=", "x", ">"]);
    }

    #[test]
    fn the_gate_reports_each_refusal() {
        assert_eq!(checked_tokens("   ", MAX_TOKENS), Err(SentenceError::Empty));
        let sixty_five = vec!["w"; 65].join(" ");
        assert_eq!(
            checked_tokens(&sixty_five, MAX_TOKENS),
            Err(SentenceError::TooManyTokens {
                count: 65,
                limit: 64
            })
        );
        assert_eq!(
            checked_tokens(&vec!["w"; 64].join(" "), MAX_TOKENS).map(|t| t.len()),
            Ok(64)
        );
        let long = "a".repeat(MAX_SENTENCE_CHARS + 1);
        assert!(matches!(
            checked_tokens(&long, MAX_TOKENS),
            Err(SentenceError::TooLong { .. })
        ));
        assert!(SentenceError::TooManyTokens {
            count: 65,
            limit: 64
        }
        .message()
        .contains("64"));
    }
}
