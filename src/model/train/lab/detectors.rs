//! What a head does, as five numbers, measured on held-out sequences.
//!
//! For one head, with `A` its T × T weights on a sequence, every score is a mean over the query
//! rows `i = 1 … T−1` of every sequence (row 0 can only attend to itself, so it says nothing):
//! - **previous-token score**: `A[i, i−1]`, the weight on the token just before;
//! - **first-token score**: `A[i, 0]`, the weight on the first token (a common "resting place");
//! - **self score**: `A[i, i]`, the weight on the row's own token;
//! - **mean entropy**: `−Σ_j A[i,j] log₂ A[i,j]` in bits ([`row_entropy_bits`]): 0 when the row
//!   looks at one token, `log₂(i+1)` when it spreads evenly over all it can see;
//! - **induction score** (repeat-task sequences only): over the rows of the second copy,
//!   `i = second … second + len − 1`, the weight `A[i, i − len + 1]` on the token that *followed*
//!   the current token's earlier occurrence — the token an induction head copies. (Its value in
//!   the first row of the copy, `i = second`, is the token after the first copy's first token.)
//!
//! A perfect previous-token head scores 1 on the first; a perfect induction head 1 on the last.
//!
//! For the grammar's agreement sentences ("the key to the cabinets is rusted ."),
//! [`agreement_report`] asks the row that predicts the copula — the row of the nearer noun
//! ("cabinets"), because row t predicts token t + 1 — whether it ranks the right copula above
//! the wrong one, and how much weight each head there puts on the subject ("key") versus on
//! the nearer noun itself.

use crate::model::stats::row_entropy_bits;
use crate::model::train::tasks::{Grammar, Sequence};
use crate::model::train::transformer::{ForwardCache, LayerCache, Transformer};
use nalgebra::DMatrix;

/// One head's scores (see the module documentation for the definitions).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeadScores {
    pub previous_token: f64,
    /// `None` when no sequence had a repeat.
    pub induction: Option<f64>,
    pub first_token: f64,
    pub self_token: f64,
    pub entropy_bits: f64,
}

/// Running sums for one head.
#[derive(Debug, Clone, Copy, Default)]
struct Sums {
    rows: usize,
    previous: f64,
    first: f64,
    own: f64,
    entropy: f64,
    induction_rows: usize,
    induction: f64,
}

impl Sums {
    fn add(&mut self, a: &DMatrix<f64>, sequence: &Sequence) {
        let t = a.nrows();
        for i in 1..t {
            self.rows += 1;
            self.previous += a[(i, i - 1)];
            self.first += a[(i, 0)];
            self.own += a[(i, i)];
            let row: Vec<f64> = (0..=i).map(|j| a[(i, j)]).collect();
            self.entropy += row_entropy_bits(&row);
        }
        if let Some(r) = sequence.repeat {
            for i in r.second()..(r.second() + r.len).min(t) {
                self.induction_rows += 1;
                self.induction += a[(i, i + 1 - r.len)];
            }
        }
    }

    fn scores(&self) -> HeadScores {
        let n = self.rows.max(1) as f64;
        HeadScores {
            previous_token: self.previous / n,
            induction: (self.induction_rows > 0)
                .then(|| self.induction / self.induction_rows as f64),
            first_token: self.first / n,
            self_token: self.own / n,
            entropy_bits: self.entropy / n,
        }
    }
}

/// Scores of one head from its weights on each sequence (`patterns[s]` belongs to `sequences[s]`).
pub fn head_scores(patterns: &[&DMatrix<f64>], sequences: &[Sequence]) -> HeadScores {
    let mut sums = Sums::default();
    for (a, s) in patterns.iter().zip(sequences) {
        sums.add(a, s);
    }
    sums.scores()
}

/// Every head's running sums, `[layer][head]`, added one sequence at a time: the trainer scores
/// its held-out set a few sequences per animation frame with it, in the same order (so to the same
/// bits) as [`score_heads`].
#[derive(Debug, Clone)]
pub struct HeadSums(Vec<Vec<Sums>>);

impl HeadSums {
    pub fn new(layers: usize, heads: usize) -> Self {
        Self(vec![vec![Sums::default(); heads]; layers])
    }

    /// Adds one sequence, given each layer's attention weights on it (`layers[l].attn[h]`, as a
    /// forward pass leaves them in its cache).
    pub fn add(&mut self, layers: &[LayerCache], sequence: &Sequence) {
        for (layer_sums, layer) in self.0.iter_mut().zip(layers) {
            for (head_sums, a) in layer_sums.iter_mut().zip(&layer.attn) {
                head_sums.add(a, sequence);
            }
        }
    }

    /// The scores of every head over the sequences added so far.
    pub fn scores(&self) -> Vec<Vec<HeadScores>> {
        self.0
            .iter()
            .map(|l| l.iter().map(Sums::scores).collect())
            .collect()
    }
}

/// Every head's scores, `[layer][head]`, for `model` on `sequences`.
pub fn score_heads(model: &Transformer, sequences: &[Sequence]) -> Vec<Vec<HeadScores>> {
    let cfg = model.config();
    let mut sums = HeadSums::new(cfg.layers, cfg.heads);
    let mut cache = ForwardCache::default();
    for s in sequences {
        model.forward(&s.tokens, &mut cache);
        sums.add(&cache.layers, s);
    }
    sums.scores()
}

/// How a model does on subject–verb agreement (see the module documentation).
#[derive(Debug, Clone, PartialEq)]
pub struct AgreementReport {
    pub sentences: usize,
    /// Sentences where the right copula is more probable than the wrong one.
    pub correct: usize,
    /// Sentences whose subject and nearer noun differ in number, and how many of those are right.
    pub mismatched: usize,
    pub mismatched_correct: usize,
    /// `[layer][head]`: mean weight of the copula-predicting row on the subject.
    pub subject_weight: Vec<Vec<f64>>,
    /// `[layer][head]`: mean weight of that row on the nearer noun (its own position).
    pub attractor_weight: Vec<Vec<f64>>,
}

impl AgreementReport {
    pub fn accuracy(&self) -> f64 {
        self.correct as f64 / self.sentences.max(1) as f64
    }

    pub fn mismatched_accuracy(&self) -> f64 {
        self.mismatched_correct as f64 / self.mismatched.max(1) as f64
    }

    /// The (layer, head) with the most weight on the subject, the first of equals (`None` for a
    /// report without heads).
    pub fn subject_head(&self) -> Option<(usize, usize)> {
        let mut best: Option<(usize, usize)> = None;
        for (l, layer) in self.subject_weight.iter().enumerate() {
            for (h, &w) in layer.iter().enumerate() {
                if best.is_none_or(|(bl, bh)| w > self.subject_weight[bl][bh]) {
                    best = Some((l, h));
                }
            }
        }
        best
    }
}

/// [`agreement_report`] on a run's agreement sentences (`run_config::agreement_set`), if it has any:
/// the tiny grammar's runs do, the repeat task's have none (`None`).
pub fn agreement_on(model: &Transformer, sentences: &[Sequence]) -> Option<AgreementReport> {
    (!sentences.is_empty()).then(|| agreement_report(model, sentences))
}

/// Agreement accuracy and attention on `sentences` (those without agreement landmarks are
/// skipped; see [`Grammar::agreement_sentences`]).
pub fn agreement_report(model: &Transformer, sentences: &[Sequence]) -> AgreementReport {
    let cfg = model.config();
    let (is, are) = (
        Grammar::word_id("is").expect("in the vocabulary"),
        Grammar::word_id("are").expect("in the vocabulary"),
    );
    let mut report = AgreementReport {
        sentences: 0,
        correct: 0,
        mismatched: 0,
        mismatched_correct: 0,
        subject_weight: vec![vec![0.0; cfg.heads]; cfg.layers],
        attractor_weight: vec![vec![0.0; cfg.heads]; cfg.layers],
    };
    // One forward pass per sentence gives both the verb's probabilities and the weights (the
    // page computes this report once per evaluation it shows).
    let mut cache = ForwardCache::default();
    for s in sentences {
        let Some(a) = s.agreement else { continue };
        let row = a.attractor;
        model.forward(&s.tokens, &mut cache);
        let prob = |token: usize| cache.probs[row * cfg.vocab + token];
        let (right, wrong) = if a.subject_plural {
            (are, is)
        } else {
            (is, are)
        };
        let ok = prob(right) > prob(wrong);
        report.sentences += 1;
        report.correct += usize::from(ok);
        if a.subject_plural != a.attractor_plural {
            report.mismatched += 1;
            report.mismatched_correct += usize::from(ok);
        }
        for (l, layer) in cache.layers.iter().enumerate() {
            for (h, w) in layer.attn.iter().enumerate() {
                report.subject_weight[l][h] += w[(row, a.subject)];
                report.attractor_weight[l][h] += w[(row, a.attractor)];
            }
        }
    }
    let n = report.sentences.max(1) as f64;
    for m in [&mut report.subject_weight, &mut report.attractor_weight] {
        for x in m.iter_mut().flatten() {
            *x /= n;
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::attention::averaging_matrix;
    use crate::model::rng::SeededRng;
    use crate::model::train::shape::{ParamGroup, PositionKind, TransformerConfig};
    use crate::model::train::tasks::Repeat;

    #[test]
    fn agreement_report_of_a_model_that_always_says_is() {
        // Every embedding is all ones and W_q = W_k = W_v = W_o = 0, so the stream stays all ones,
        // every score is 0 (uniform attention), and an unembedding that maps the stream to "is"
        // only makes "is" the favourite everywhere: right exactly for the singular subjects.
        let cfg = TransformerConfig {
            vocab: Grammar::REFERENCE.vocab(),
            d_model: 4,
            layers: 2,
            heads: 2,
            max_len: 16,
            positions: PositionKind::Rotary,
        };
        let mut params = vec![0.0; cfg.parameter_count()];
        let is = Grammar::encode("is").unwrap()[0];
        for span in cfg.layout() {
            match span.group {
                ParamGroup::TokenEmbedding => params[span.range()].fill(1.0),
                ParamGroup::Unembedding => {
                    for r in 0..span.rows {
                        params[span.start + r * span.cols + is] = 1.0;
                    }
                }
                _ => {}
            }
        }
        let model = Transformer::with_params(cfg, params);
        let sentences = Grammar::agreement_sentences(&mut SeededRng::stream(1, "agree"), 40);
        let report = agreement_report(&model, &sentences);
        let singular = sentences
            .iter()
            .filter(|s| !s.agreement.unwrap().subject_plural)
            .count();
        assert_eq!(report.sentences, 40);
        assert_eq!(report.correct, singular);
        assert!(singular > 0 && singular < 40);
        assert_eq!(report.mismatched, 20);
        // Row 4 (the nearer noun) spreads evenly over 5 tokens.
        for l in 0..2 {
            for h in 0..2 {
                assert!((report.subject_weight[l][h] - 0.2).abs() < 1e-15);
                assert!((report.attractor_weight[l][h] - 0.2).abs() < 1e-15);
            }
        }
    }

    fn sequence(t: usize, repeat: Option<Repeat>) -> Sequence {
        Sequence {
            tokens: vec![0; t],
            repeat,
            agreement: None,
        }
    }

    /// Row i puts all its weight on column `target(i)` (row 0 on itself).
    fn one_hot(t: usize, target: impl Fn(usize) -> usize) -> DMatrix<f64> {
        DMatrix::from_fn(t, t, |i, j| {
            let want = if i == 0 { 0 } else { target(i) };
            f64::from(u8::from(j == want))
        })
    }

    #[test]
    fn a_previous_token_head_scores_one() {
        let t = 6;
        let a = one_hot(t, |i| i - 1);
        let s = head_scores(&[&a], &[sequence(t, None)]);
        assert_eq!(s.previous_token, 1.0);
        assert_eq!(s.self_token, 0.0);
        // Only row 1's previous token is the first token: 1 of the 5 rows.
        assert_eq!(s.first_token, 1.0 / 5.0);
        assert_eq!(s.entropy_bits, 0.0);
        assert_eq!(s.induction, None);
    }

    #[test]
    fn self_first_and_uniform_heads() {
        let t = 5;
        let own = head_scores(&[&one_hot(t, |i| i)], &[sequence(t, None)]);
        assert_eq!(
            (own.self_token, own.previous_token, own.first_token),
            (1.0, 0.0, 0.0)
        );
        let first = head_scores(&[&one_hot(t, |_| 0)], &[sequence(t, None)]);
        assert_eq!((first.first_token, first.self_token), (1.0, 0.0));
        assert_eq!(first.previous_token, 1.0 / 4.0);
        // The averaging matrix: row i spreads over i + 1 tokens, entropy log₂(i + 1).
        let uniform = head_scores(&[&averaging_matrix(t)], &[sequence(t, None)]);
        let expected = (2..=t).map(|n| (n as f64).log2()).sum::<f64>() / 4.0;
        assert!((uniform.entropy_bits - expected).abs() < 1e-12);
        let expected_prev = (1..t).map(|i| 1.0 / (i + 1) as f64).sum::<f64>() / 4.0;
        assert!((uniform.previous_token - expected_prev).abs() < 1e-12);
    }

    #[test]
    fn an_induction_head_scores_one_and_a_fixed_offset_head_does_not() {
        // Prefix 2, segment 3: copies at 2..5 and 5..8, 10 tokens.
        let repeat = Repeat { first: 2, len: 3 };
        let t = 10;
        let induction = one_hot(t, |i| if (5..8).contains(&i) { i - 3 + 1 } else { i });
        let s = head_scores(&[&induction], &[sequence(t, Some(repeat))]);
        assert_eq!(s.induction, Some(1.0));
        // A head that looks a fixed 3 back (right for segment length 4 only) gets nothing here.
        let fixed = one_hot(t, |i| i.saturating_sub(3));
        let s = head_scores(&[&fixed], &[sequence(t, Some(repeat))]);
        assert_eq!(s.induction, Some(0.0));
        // Two sequences: the mean is over all their second-copy rows (3 + 4).
        let other = Repeat { first: 0, len: 4 };
        let right_for_other = one_hot(t, |i| if (4..8).contains(&i) { i - 3 } else { i });
        let s = head_scores(
            &[&fixed, &right_for_other],
            &[sequence(t, Some(repeat)), sequence(t, Some(other))],
        );
        assert_eq!(s.induction, Some(4.0 / 7.0));
    }
}
