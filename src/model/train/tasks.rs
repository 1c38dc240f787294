//! The two built-in training tasks, generated in code from a seed (nothing is downloaded).
//!
//! **Repeat a random sequence** ([`RepeatTask`]): `seq_len` uniform random tokens in which a random
//! segment of `min_segment..=max_segment` tokens appears twice, back to back, after a random
//! prefix of random length. The segment length and the prefix both vary, so the second copy
//! starts at a different place and a different distance from the first in every sequence: no
//! head can predict the repeat from positions alone; it has to find the earlier occurrence of
//! the current token and copy what followed it (an induction head, fed by a previous-token head).
//!
//! **Tiny grammar** ([`Grammar`]): sentences of two templates, chosen with equal probability and
//! every slot filled uniformly:
//! - `DET NOUN VERB PREP DET NOUN .` — "the cat sat on the mat ." (past-tense verbs: no agreement);
//! - `DET NOUN₁ PREP DET NOUN₂ COPULA ADJ .` — "the key to the cabinets is rusted .": the copula
//!   agrees with NOUN₁ (is/are), not with the nearer NOUN₂, the `NumPy` article's motivating case.
//!
//! A training sequence is sentences placed one after another from position 0, cut at `seq_len`.
//! One sentence in five is held out (decided by a hash of its tokens), never trained on, and used
//! for evaluation — so the agreement accuracy is measured on sentences the model has not seen.
//! [`Grammar::minimum_loss`] computes the loss a perfect predictor of the training distribution
//! would reach, exactly, by enumerating every sentence.
//!
//! [`Task`] is the one a run trains on; it also says how the page names each token.
use crate::model::host::lowercase;
use crate::model::rng::{fnv1a64, SeededRng};
use crate::model::tokenizer::tokenize;
use std::collections::BTreeMap;

/// Where the repeated segment sits: tokens `first..first + len` reappear at `second()..`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Repeat {
    pub first: usize,
    pub len: usize,
}

impl Repeat {
    pub fn second(&self) -> usize {
        self.first + self.len
    }

    /// Loss indices (row i predicts token i + 1) of the predictable part of each copy: tokens
    /// 2…len of the copy. (The first token of either copy cannot be predicted.)
    pub fn first_copy_rows(&self) -> std::ops::Range<usize> {
        self.first..self.first + self.len - 1
    }

    pub fn repeated_rows(&self) -> std::ops::Range<usize> {
        self.second()..self.second() + self.len - 1
    }
}

/// A subject–verb agreement sentence's landmarks, as token indices within its sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Agreement {
    /// The subject noun (NOUN₁).
    pub subject: usize,
    /// The nearer noun (NOUN₂), whose row predicts the copula.
    pub attractor: usize,
    /// The copula ("is"/"are").
    pub verb: usize,
    pub subject_plural: bool,
    pub attractor_plural: bool,
}

/// One training or evaluation sequence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sequence {
    pub tokens: Vec<usize>,
    /// Set for the repeat task.
    pub repeat: Option<Repeat>,
    /// Set for a single agreement sentence from [`Grammar::agreement_sentences`].
    pub agreement: Option<Agreement>,
}

/// `rng`'s next draw in `0..n`.
fn below(rng: &mut SeededRng, n: usize) -> usize {
    (rng.next_u64() % n as u64) as usize
}

/// The repeat task's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RepeatTask {
    pub vocab: usize,
    pub seq_len: usize,
    pub min_segment: usize,
    pub max_segment: usize,
}

impl RepeatTask {
    /// The reference task: vocab 32, sequences of 16, segments of 4–8.
    pub const REFERENCE: Self = Self {
        vocab: 32,
        seq_len: 16,
        min_segment: 4,
        max_segment: 8,
    };

    /// One sequence: segment length, then prefix length, then every token, from `rng`.
    pub fn sample(&self, rng: &mut SeededRng) -> Sequence {
        assert!(2 <= self.min_segment && self.min_segment <= self.max_segment);
        assert!(2 * self.max_segment <= self.seq_len, "two copies must fit");
        let len = self.min_segment + below(rng, self.max_segment - self.min_segment + 1);
        let first = below(rng, self.seq_len - 2 * len + 1);
        let mut tokens: Vec<usize> = (0..self.seq_len).map(|_| below(rng, self.vocab)).collect();
        tokens.copy_within(first..first + len, first + len);
        Sequence {
            tokens,
            repeat: Some(Repeat { first, len }),
            agreement: None,
        }
    }
}

/// The grammar's words: determiners, nouns (singular, plural), verbs, prepositions, copulas,
/// adjectives and the full stop. It contains every token of "The cat sat on the mat ." in lower
/// case, as the app's tokenizer splits it.
pub const GRAMMAR_WORDS: [&str; 29] = [
    "the", "my", // determiners 0–1
    "cat", "dog", "mat", "key", "cabinet", "box", // singular nouns 2–7
    "cats", "dogs", "mats", "keys", "cabinets", "boxes", // plural nouns 8–13
    "sat", "slept", "ran", // verbs 14–16
    "on", "under", "near", "to", // prepositions 17–20
    "is", "are", // copulas 21–22
    "rusted", "old", "small", "red", // adjectives 23–26
    ".", "and", // 27–28 ("and" is in the vocabulary but never generated: an unseen token)
];
const DETERMINERS: std::ops::Range<usize> = 0..2;
const NOUNS: std::ops::Range<usize> = 2..14;
const PLURAL_START: usize = 8;
const VERBS: std::ops::Range<usize> = 14..17;
const PREPOSITIONS: std::ops::Range<usize> = 17..21;
const IS: usize = 21;
const ARE: usize = 22;
const ADJECTIVES: std::ops::Range<usize> = 23..27;
const STOP: usize = 27;

/// [`Grammar::minimum_loss`] of [`Grammar::REFERENCE`], in nats.
const REFERENCE_MINIMUM_LOSS: f64 = 1.290_759_412_666_630_9;
/// [`Grammar::held_out_floor_loss`] of [`Grammar::REFERENCE`], in nats.
const REFERENCE_HELD_OUT_FLOOR: f64 = 1.319_557_344_342_076_3;

/// How close to its floor a tiny-grammar model's held-out loss must come ("within 10 %" of it
/// counts as learned), in percent; see [`Grammar::near_floor`].
pub const NEAR_FLOOR_PERCENT: u32 = 10;

/// The tiny grammar task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grammar {
    pub seq_len: usize,
}

fn pick(rng: &mut SeededRng, range: std::ops::Range<usize>) -> usize {
    range.start + below(rng, range.len())
}

impl Grammar {
    pub const REFERENCE: Self = Self { seq_len: 16 };

    pub fn vocab(&self) -> usize {
        GRAMMAR_WORDS.len()
    }

    /// Token ids of a text in the grammar's words (tokenized and lower-cased as the app does), or
    /// `None` if a word is not in the vocabulary.
    pub fn encode(text: &str) -> Option<Vec<usize>> {
        tokenize(text)
            .iter()
            .map(|w| Self::word_id(&lowercase(w)))
            .collect()
    }

    /// The id of a vocabulary word, as [`GRAMMAR_WORDS`] spells it (lower case). Code that
    /// names a known word uses this rather than [`Self::encode`], whose lower-casing through the
    /// host would bring Unicode case tables into a page that does not need them.
    pub fn word_id(word: &str) -> Option<usize> {
        GRAMMAR_WORDS.iter().position(|&g| g == word)
    }

    pub fn decode(tokens: &[usize]) -> String {
        tokens
            .iter()
            .map(|&t| GRAMMAR_WORDS[t])
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Whether a sentence belongs to the held-out fifth (a hash of its token ids).
    pub fn is_held_out(sentence: &[usize]) -> bool {
        let bytes: Vec<u8> = sentence.iter().map(|&t| t as u8).collect();
        fnv1a64(&bytes) % 5 == 0
    }

    /// One sentence from the grammar (either half), with its agreement landmarks if it has any.
    fn any_sentence(rng: &mut SeededRng) -> (Vec<usize>, Option<Agreement>) {
        if below(rng, 2) == 0 {
            let s = vec![
                pick(rng, DETERMINERS),
                pick(rng, NOUNS),
                pick(rng, VERBS),
                pick(rng, PREPOSITIONS),
                pick(rng, DETERMINERS),
                pick(rng, NOUNS),
                STOP,
            ];
            (s, None)
        } else {
            let det = pick(rng, DETERMINERS);
            let subject = pick(rng, NOUNS);
            let prep = pick(rng, PREPOSITIONS);
            let det2 = pick(rng, DETERMINERS);
            let attractor = pick(rng, NOUNS);
            let subject_plural = subject >= PLURAL_START;
            let verb = if subject_plural { ARE } else { IS };
            let adj = pick(rng, ADJECTIVES);
            let s = vec![det, subject, prep, det2, attractor, verb, adj, STOP];
            let agreement = Agreement {
                subject: 1,
                attractor: 4,
                verb: 5,
                subject_plural,
                attractor_plural: attractor >= PLURAL_START,
            };
            (s, Some(agreement))
        }
    }

    /// A sentence from the training part (`held_out = false`) or the held-out part.
    pub fn sentence(rng: &mut SeededRng, held_out: bool) -> (Vec<usize>, Option<Agreement>) {
        loop {
            let (s, a) = Self::any_sentence(rng);
            if Self::is_held_out(&s) == held_out {
                return (s, a);
            }
        }
    }

    /// Sentences one after another from position 0, cut at `seq_len` tokens.
    pub fn sample(&self, rng: &mut SeededRng, held_out: bool) -> Sequence {
        let mut tokens = Vec::with_capacity(self.seq_len + 8);
        while tokens.len() < self.seq_len {
            tokens.extend(Self::sentence(rng, held_out).0);
        }
        tokens.truncate(self.seq_len);
        Sequence {
            tokens,
            repeat: None,
            agreement: None,
        }
    }

    /// `count` held-out agreement sentences, each a sequence of its own, half of them with a
    /// subject and nearer noun of different number (the cases where the nearer noun misleads).
    pub fn agreement_sentences(rng: &mut SeededRng, count: usize) -> Vec<Sequence> {
        let mut out = Vec::with_capacity(count);
        while out.len() < count {
            let (tokens, agreement) = Self::sentence(rng, true);
            let Some(a) = agreement else { continue };
            let mismatched = a.subject_plural != a.attractor_plural;
            if mismatched == (out.len() % 2 == 0) {
                out.push(Sequence {
                    tokens,
                    repeat: None,
                    agreement: Some(a),
                });
            }
        }
        out
    }

    /// Every sentence of the grammar with its probability under [`Grammar::any_sentence`], and
    /// whether it is held out.
    fn all_sentences() -> Vec<(Vec<usize>, f64, bool)> {
        let mut all = Vec::new();
        let share = |r: &std::ops::Range<usize>| 1.0 / r.len() as f64;
        for det in DETERMINERS {
            for noun in NOUNS {
                for verb in VERBS {
                    for prep in PREPOSITIONS {
                        for det2 in DETERMINERS {
                            for noun2 in NOUNS {
                                let p = 0.5
                                    * share(&DETERMINERS).powi(2)
                                    * share(&NOUNS).powi(2)
                                    * share(&VERBS)
                                    * share(&PREPOSITIONS);
                                all.push((vec![det, noun, verb, prep, det2, noun2, STOP], p));
                            }
                        }
                    }
                }
                for prep in PREPOSITIONS {
                    for det2 in DETERMINERS {
                        for noun2 in NOUNS {
                            for adj in ADJECTIVES {
                                let verb = if noun >= PLURAL_START { ARE } else { IS };
                                let p = 0.5
                                    * share(&DETERMINERS).powi(2)
                                    * share(&NOUNS).powi(2)
                                    * share(&PREPOSITIONS)
                                    * share(&ADJECTIVES);
                                all.push((vec![det, noun, prep, det2, noun2, verb, adj, STOP], p));
                            }
                        }
                    }
                }
            }
        }
        all.into_iter()
            .map(|(s, p)| {
                let held = Self::is_held_out(&s);
                (s, p, held)
            })
            .collect()
    }

    /// Every sentence of one part (training: `held_out = false`) with its probability under
    /// [`Grammar::sample`] (renormalised within the part).
    pub fn part_sentences(held_out: bool) -> Vec<(Vec<usize>, f64)> {
        let mut part: Vec<(Vec<usize>, f64)> = Self::all_sentences()
            .into_iter()
            .filter(|&(_, _, held)| held == held_out)
            .map(|(s, p, _)| (s, p))
            .collect();
        let total: f64 = part.iter().map(|(_, p)| p).sum();
        for (_, p) in &mut part {
            *p /= total;
        }
        part
    }

    /// Every sentence of the training part with its probability under [`Grammar::sample`]
    /// (renormalised after the held-out fifth is removed).
    pub fn training_sentences() -> Vec<(Vec<usize>, f64)> {
        Self::part_sentences(false)
    }

    /// Whether a held-out loss is within [`NEAR_FLOOR_PERCENT`] of its `floor`
    /// ([`Self::held_out_floor`]): the measure of a trained grammar model (the page's verdict,
    /// the benchmarks, the checkpoint test).
    pub fn near_floor(loss: f64, floor: f64) -> bool {
        loss <= (1.0 + f64::from(NEAR_FLOOR_PERCENT) / 100.0) * floor
    }

    /// [`Self::minimum_loss`], for the reference grammar from a constant: enumerating the grammar
    /// takes about 70 ms natively, too long a task for the page (a native test checks the constant
    /// against the enumeration, bit for bit).
    pub fn achievable_minimum(&self) -> f64 {
        if *self == Self::REFERENCE {
            REFERENCE_MINIMUM_LOSS
        } else {
            self.minimum_loss()
        }
    }

    /// [`Self::held_out_floor_loss`], for the reference grammar from a constant (checked by a
    /// native test, bit for bit, as [`Self::achievable_minimum`]).
    pub fn held_out_floor(&self) -> f64 {
        if *self == Self::REFERENCE {
            REFERENCE_HELD_OUT_FLOOR
        } else {
            self.held_out_floor_loss()
        }
    }

    /// The smallest mean loss any model can reach on training sequences of `seq_len` tokens: the
    /// average, over the predicted positions, of the entropy (nats) of the next token given
    /// everything before it in its sentence (sentences are independent, so that is all the
    /// context that helps). Exact: every sentence is enumerated.
    pub fn minimum_loss(&self) -> f64 {
        let training = Self::training_sentences();
        self.expected_loss(&training, &training)
    }

    /// The floor for the held-out loss the page plots: the mean loss on held-out sequences of a
    /// model that predicts with the grammar's own rules (every sentence, held out or not: a model
    /// that learned the grammar, not which sentences training left out). Exact, by enumeration.
    /// It is above [`Self::minimum_loss`]: held-out sentences are not the training ones, and the
    /// rules spread the last words over more choices than the training sentences use.
    pub fn held_out_floor_loss(&self) -> f64 {
        let every: Vec<(Vec<usize>, f64)> = Self::all_sentences()
            .into_iter()
            .map(|(s, p, _)| (s, p))
            .collect();
        self.expected_loss(&Self::part_sentences(true), &every)
    }

    /// The expected mean next-token loss (nats) over the predicted positions of sequences of
    /// `seq_len` tokens made of sentences drawn from `drawn` (each with its probability), for a
    /// model that predicts each token from its sentence so far as `predictor`'s sentences do.
    /// Every token of `drawn` must be possible under `predictor`.
    fn expected_loss(self, drawn: &[(Vec<usize>, f64)], predictor: &[(Vec<usize>, f64)]) -> f64 {
        // prefix → next token → probability.
        let mut next: BTreeMap<&[usize], BTreeMap<usize, f64>> = BTreeMap::new();
        for (s, p) in predictor {
            for k in 0..s.len() {
                *next.entry(&s[..k]).or_default().entry(s[k]).or_default() += p;
            }
        }
        let loss = |prefix: &[usize], token: usize| {
            let dist = &next[prefix];
            let total: f64 = dist.values().sum();
            -(dist[&token] / total).ln()
        };
        let t = self.seq_len;
        // Probability that a sentence starts at each position (the first at 0).
        let mut length_prob = BTreeMap::<usize, f64>::new();
        for (s, p) in drawn {
            *length_prob.entry(s.len()).or_default() += p;
        }
        let mut start = vec![0.0; t];
        start[0] = 1.0;
        for o in 0..t {
            for (&n, &p) in &length_prob {
                if o + n < t {
                    start[o + n] += start[o] * p;
                }
            }
        }
        let mut expected = 0.0;
        for (s, p) in drawn {
            let h: Vec<f64> = (0..s.len()).map(|k| loss(&s[..k], s[k])).collect();
            for (o, &ps) in start.iter().enumerate() {
                for (k, &hk) in h.iter().enumerate() {
                    if (1..t).contains(&(o + k)) {
                        expected += ps * p * hk;
                    }
                }
            }
        }
        expected / (t - 1) as f64
    }
}

/// The repeat task's token names: 32 distinct syllables, consonant then vowel, in token order.
pub const REPEAT_SYLLABLES: [&str; 32] = [
    "ba", "be", "bi", "bo", "da", "de", "di", "do", "ga", "ge", "gi", "go", "ka", "ke", "ki", "ko",
    "ma", "me", "mi", "mo", "na", "ne", "ni", "no", "pa", "pe", "pi", "po", "ta", "te", "ti", "to",
];

/// Which task a run trains on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Task {
    Repeat(RepeatTask),
    Grammar(Grammar),
}

impl Task {
    pub fn vocab(&self) -> usize {
        match self {
            Self::Repeat(r) => r.vocab,
            Self::Grammar(g) => g.vocab(),
        }
    }

    pub fn seq_len(&self) -> usize {
        match self {
            Self::Repeat(r) => r.seq_len,
            Self::Grammar(g) => g.seq_len,
        }
    }

    /// How the page names token `id`: its word in the grammar; in the repeat task a short
    /// consonant–vowel syllable ([`REPEAT_SYLLABLES`], "ba" … "to", one per token of the
    /// reference vocabulary; `#` and the number past it), so a token reads as a token, never as
    /// a position.
    pub fn token_name(&self, id: usize) -> String {
        match self {
            Self::Repeat(_) => REPEAT_SYLLABLES
                .get(id)
                .map_or_else(|| format!("#{id}"), |s| (*s).to_string()),
            Self::Grammar(_) => GRAMMAR_WORDS
                .get(id)
                .map_or_else(|| id.to_string(), |w| (*w).to_string()),
        }
    }

    /// One sequence (`held_out` picks the grammar's held-out sentences; the repeat task ignores it).
    pub fn sample(&self, rng: &mut SeededRng, held_out: bool) -> Sequence {
        match self {
            Self::Repeat(r) => r.sample(rng),
            Self::Grammar(g) => g.sample(rng, held_out),
        }
    }
}

/// How one sentence of token ids (ending in the full stop) stands against the grammar
/// ([`Grammar::judge`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SentenceVerdict {
    /// One of the two templates, its copula (if any) agreeing with its subject.
    Grammatical,
    /// The second template with the copula of the wrong number (often the nearer noun's).
    AgreementError,
    /// Neither template.
    Ungrammatical,
}

impl Grammar {
    /// Judges one sentence against the two templates: `DET NOUN VERB PREP DET NOUN .` and
    /// `DET NOUN₁ PREP DET NOUN₂ COPULA ADJ .`, where the copula must agree with NOUN₁ ("is" after
    /// a singular subject, "are" after a plural one). Every sentence [`Self::sentence`] draws is
    /// [`SentenceVerdict::Grammatical`].
    pub fn judge(sentence: &[usize]) -> SentenceVerdict {
        const FIRST: [std::ops::Range<usize>; 7] = [
            DETERMINERS,
            NOUNS,
            VERBS,
            PREPOSITIONS,
            DETERMINERS,
            NOUNS,
            STOP..STOP + 1,
        ];
        const SECOND: [std::ops::Range<usize>; 8] = [
            DETERMINERS,
            NOUNS,
            PREPOSITIONS,
            DETERMINERS,
            NOUNS,
            IS..ARE + 1,
            ADJECTIVES,
            STOP..STOP + 1,
        ];
        let fits = |template: &[std::ops::Range<usize>]| {
            sentence.len() == template.len()
                && sentence
                    .iter()
                    .zip(template)
                    .all(|(t, slot)| slot.contains(t))
        };
        if fits(&FIRST) {
            return SentenceVerdict::Grammatical;
        }
        if !fits(&SECOND) {
            return SentenceVerdict::Ungrammatical;
        }
        let agreeing = if sentence[1] >= PLURAL_START { ARE } else { IS };
        if sentence[5] == agreeing {
            SentenceVerdict::Grammatical
        } else {
            SentenceVerdict::AgreementError
        }
    }

    /// The complete sentences of `tokens` read from its start: each run of tokens up to and
    /// including a full stop. An unfinished tail (no full stop yet) is left out.
    pub fn complete_sentences(tokens: &[usize]) -> Vec<&[usize]> {
        tokens
            .split_inclusive(|&t| t == STOP)
            .filter(|s| s.last() == Some(&STOP))
            .collect()
    }
}

#[cfg(test)]
mod tests;
