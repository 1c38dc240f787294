//! Every statement on the pages that quotes a fixed number — a threshold, a floor, a count, a
//! limit — next to the code that holds it. Each entry renders the sentence with the page's own
//! function, checks that it prints the constant, and the whole list is compared with
//! `tests/data/fixed_numbers.txt`: a change of a constant (or of what a sentence prints) fails
//! here and shows the sentence it changes. After checking the new wording, rewrite the file with
//! `UPDATE_FIXED_NUMBERS=1 cargo test --test fixed_numbers`.

use attention_explorer::format::{fixed, grouped, percent};
use attention_explorer::model::broken::Mistakes;
use attention_explorer::model::broken::DROPOUT_P;
use attention_explorer::model::claims::{HeadShape, NEARLY_ONE_HOT};
use attention_explorer::model::explorer::{ExplorerConfig, Prepared, DEFAULT_SENTENCE};
use attention_explorer::model::masked_average::{mask_fill_demo, LARGE_NEGATIVE};
use attention_explorer::model::quiz::{
    questions, Kind, QuizOn, DROPOUT_MASKS, EXACT_TOLERANCE, GUESS_TOLERANCE,
};
use attention_explorer::model::scaling_lab::{lab_point, DRAWS, KEYS, LAB_SEED, SATURATED};
use attention_explorer::model::temperature::Regime;
use attention_explorer::model::tokenizer::tokenize;
use attention_explorer::model::tokenizer::{checked_tokens, MAX_SENTENCE_CHARS, MAX_TOKENS};
use attention_explorer::model::train::lab::composition::{
    Composition, CopyingNumbers, COPYING_RATIO_MAX,
};
use attention_explorer::model::train::lab::evaluation::{
    BestHead, CircuitCheck, INDUCTION_MIN, PREVIOUS_TOKEN_MIN, REPEAT_RATIO_MAX, STUCK_CHECK_STEP,
};
use attention_explorer::model::train::lab::mistakes::TrainingMistake;
use attention_explorer::model::train::lab::prediction::{Graded, LossChange, STAY_WITHIN};
use attention_explorer::model::train::lab::run_config::TrainConfig;
use attention_explorer::model::train::page::checkpoints::MAX_CHECKPOINTS;
use attention_explorer::model::train::page::settings::GrammarFloors;
use attention_explorer::model::train::tasks::{Grammar, NEAR_FLOOR_PERCENT};
use attention_explorer::text::quiz::quiz_prompt;
use attention_explorer::text::{
    as_used_note, change_label, checkpoints_note, circuit_items, composition_intro,
    composition_item, gradient_readout, grammar_verdict, lab_caption, lab_readout, mask_fill_note,
    prediction_grade, regime_sentence, repeat_verdict, run_milestone, CircuitChance,
};

/// One statement: where it is, the number as printed, the constant behind it, and the sentence.
struct Entry {
    place: &'static str,
    printed: String,
    constant: String,
    sentence: String,
}

fn entry(place: &'static str, printed: String, constant: String, sentence: String) -> Entry {
    Entry {
        place,
        printed,
        constant,
        sentence,
    }
}

fn entries() -> Vec<Entry> {
    let p = Prepared::new(ExplorerConfig {
        tokens: tokenize(DEFAULT_SENTENCE),
        seed: 1337,
        heads: 2,
        positions: false,
    });
    let tokens = &p.config.tokens;
    let w = p.heads[0].weights(1.0);
    let shape = HeadShape::of(&w);
    let mut out = vec![entry(
        "temperature readout: nearly one-hot rows",
        percent(NEARLY_ONE_HOT),
        format!("claims::NEARLY_ONE_HOT = {NEARLY_ONE_HOT}"),
        regime_sentence(Regime::of(1.0, 16), 1.0, 16, &shape),
    )];

    let check = CircuitCheck {
        previous_token: BestHead {
            head: 0,
            score: 0.1,
        },
        induction: Some(BestHead {
            head: 0,
            score: 0.1,
        }),
        repeat_ratio: 0.9,
    };
    let items = circuit_items(&check);
    out.push(entry(
        "copying circuit: previous-token head",
        format!("at least {} needed", fixed(PREVIOUS_TOKEN_MIN, 2)),
        format!("evaluation::PREVIOUS_TOKEN_MIN = {PREVIOUS_TOKEN_MIN}"),
        items[0].text.clone(),
    ));
    out.push(entry(
        "copying circuit: induction head",
        format!("at least {} needed", fixed(INDUCTION_MIN, 2)),
        format!("evaluation::INDUCTION_MIN = {INDUCTION_MIN}"),
        items[1].text.clone(),
    ));
    out.push(entry(
        "copying circuit: repeated part's loss",
        format!("at most {}% needed", fixed(REPEAT_RATIO_MAX * 100.0, 0)),
        format!("evaluation::REPEAT_RATIO_MAX = {REPEAT_RATIO_MAX}"),
        items[2].text.clone(),
    ));
    out.push(entry(
        "repeat task: stuck",
        format!("step {}", grouped(STUCK_CHECK_STEP as u64)),
        format!("evaluation::STUCK_CHECK_STEP = {STUCK_CHECK_STEP}"),
        repeat_verdict(STUCK_CHECK_STEP, 0.8, true),
    ));

    let g = Grammar::REFERENCE;
    let floors = GrammarFloors {
        held_out: g.held_out_floor(),
        training: g.achievable_minimum(),
    };
    let verdict = grammar_verdict(200, 1.5, floors, 64, None);
    out.push(entry(
        "tiny grammar: the floor of the held-out loss",
        fixed(floors.held_out, 3),
        format!("Grammar::held_out_floor() = {}", floors.held_out),
        verdict.clone(),
    ));
    out.push(entry(
        "tiny grammar: the training sentences' minimum",
        fixed(floors.training, 3),
        format!("Grammar::achievable_minimum() = {}", floors.training),
        verdict.clone(),
    ));
    out.push(entry(
        "tiny grammar: learned when within",
        format!("{NEAR_FLOOR_PERCENT}%"),
        format!("tasks::NEAR_FLOOR_PERCENT = {NEAR_FLOOR_PERCENT}"),
        verdict,
    ));
    out.push(entry(
        "replay: kept checkpoints",
        format!("{MAX_CHECKPOINTS}"),
        format!("checkpoints::MAX_CHECKPOINTS = {MAX_CHECKPOINTS}"),
        checkpoints_note(3, 25, MAX_CHECKPOINTS),
    ));

    let vocab = TrainConfig::repeat_default(1).model.vocab;
    out.push(entry(
        "run B: a run's milestone on the tiny grammar",
        format!("within {NEAR_FLOOR_PERCENT}% of the floor"),
        format!("tasks::NEAR_FLOOR_PERCENT = {NEAR_FLOOR_PERCENT}"),
        run_milestone("Run B", false, CircuitChance::Possible, None, Some(50)),
    ));
    out.push(entry(
        "run B: an even guess beside a mistaken run's losses",
        format!(
            "the {vocab} tokens scores {}",
            fixed((vocab as f64).ln(), 3)
        ),
        format!("the repeat task's vocab = {vocab}"),
        as_used_note(TrainingMistake::NoCausalMask, 200, 0.0007, 18.69, vocab),
    ));

    let stay = fixed(STAY_WITHIN * 100.0, 0);
    let stay_constant = format!("prediction::STAY_WITHIN = {STAY_WITHIN}");
    out.push(entry(
        "knock-outs: predict first, a rise",
        format!("by more than {stay}%"),
        stay_constant.clone(),
        change_label(LossChange::Rise),
    ));
    out.push(entry(
        "knock-outs: predict first, a fall",
        format!("by more than {stay}%"),
        stay_constant.clone(),
        change_label(LossChange::Fall),
    ));
    out.push(entry(
        "knock-outs: predict first, staying",
        format!("within {stay}%"),
        stay_constant.clone(),
        change_label(LossChange::Stay),
    ));
    let graded = Graded {
        predicted: LossChange::Fall,
        actual: LossChange::of(2.0, 2.1),
        intact: 2.0,
        knocked: 2.1,
    };
    out.push(entry(
        "knock-outs: the prediction's grade",
        format!("stayed within {stay}%"),
        stay_constant,
        prediction_grade(&graded, true),
    ));

    let intro = composition_intro();
    out.push(entry(
        "composition test: induction broken below",
        format!("falls below {}", fixed(INDUCTION_MIN, 2)),
        format!("evaluation::INDUCTION_MIN = {INDUCTION_MIN}"),
        intro.clone(),
    ));
    out.push(entry(
        "composition test: copying broken above",
        format!("rises above {}%", fixed(COPYING_RATIO_MAX * 100.0, 0)),
        format!("composition::COPYING_RATIO_MAX = {COPYING_RATIO_MAX}"),
        intro,
    ));
    let copying = |induction: f64, ratio: f64| CopyingNumbers {
        induction,
        first_copy_loss: 2.0,
        repeated_loss: 2.0 * ratio,
    };
    let knocked = vec![copying(0.15, 0.8), copying(0.75, 0.25)];
    let composition = Composition {
        previous_token_head: BestHead {
            head: 0,
            score: 0.83,
        },
        induction_head: BestHead {
            head: 1,
            score: 0.78,
        },
        intact: copying(0.78, 0.25),
        zero: knocked.clone(),
        mean: knocked,
    };
    let item = composition_item(1200, &composition);
    out.push(entry(
        "composition test: the result's induction threshold",
        format!("induction below {}", fixed(INDUCTION_MIN, 2)),
        format!("evaluation::INDUCTION_MIN = {INDUCTION_MIN}"),
        item.text.clone(),
    ));
    out.push(entry(
        "composition test: the result's loss threshold",
        format!(
            "repeated part above {}%",
            fixed(COPYING_RATIO_MAX * 100.0, 0)
        ),
        format!("composition::COPYING_RATIO_MAX = {COPYING_RATIO_MAX}"),
        item.text,
    ));

    let p16 = lab_point(16, DRAWS, LAB_SEED);
    out.push(entry(
        "step 4: draws per head size",
        format!("{DRAWS} draws"),
        format!("scaling_lab::DRAWS = {DRAWS}"),
        lab_readout(&p16),
    ));
    out.push(entry(
        "step 4: keys per draw",
        format!("{KEYS} keys"),
        format!("scaling_lab::KEYS = {KEYS}"),
        lab_caption(),
    ));
    out.push(entry(
        "step 4: a saturated row",
        percent(SATURATED),
        format!("scaling_lab::SATURATED = {SATURATED}"),
        gradient_readout(
            &p16,
            &attention_explorer::model::scaling_lab::scaling_lab(DRAWS, LAB_SEED),
        ),
    ));
    let demo = mask_fill_demo(&p.heads[0].scores, 2, 0.25);
    out.push(entry(
        "step 2: the large negative mask",
        "−1e9".to_string(),
        format!("masked_average::LARGE_NEGATIVE = {LARGE_NEGATIVE}"),
        mask_fill_note(&demo, &tokens[2], 2),
    ));

    let quiz = questions(
        &p,
        QuizOn {
            head: 0,
            tau: 1.0,
            mistakes: Mistakes::NONE,
            selected_row: 5,
        },
        1,
    );
    let prompt = |kind: Kind| {
        let q = quiz
            .iter()
            .find(|q| q.kind == kind)
            .expect("the default view asks every kind");
        quiz_prompt(q, tokens, 1.0)
    };
    out.push(entry(
        "practice: typed answers count within",
        fixed(EXACT_TOLERANCE, 4),
        format!("quiz::EXACT_TOLERANCE = {EXACT_TOLERANCE}"),
        prompt(Kind::FirstRow),
    ));
    out.push(entry(
        "practice: a guessed weight counts within",
        fixed(GUESS_TOLERANCE, 2),
        format!("quiz::GUESS_TOLERANCE = {GUESS_TOLERANCE}"),
        prompt(Kind::Weight),
    ));
    out.push(entry(
        "practice and Break it: dropout's probability",
        format!("p = {}", fixed(DROPOUT_P, 1)),
        format!("broken::DROPOUT_P = {DROPOUT_P}"),
        prompt(Kind::DropoutMean),
    ));
    let q = quiz.iter().find(|q| q.kind == Kind::DropoutMean).unwrap();
    out.push(entry(
        "practice: dropout masks averaged over",
        format!("{} seeded masks", grouped(DROPOUT_MASKS as u64)),
        format!("quiz::DROPOUT_MASKS = {DROPOUT_MASKS}"),
        attention_explorer::text::quiz::quiz_number(q, tokens),
    ));

    let too_many = vec!["a"; MAX_TOKENS + 1].join(" ");
    out.push(entry(
        "sentence box: token limit",
        format!("the limit is {MAX_TOKENS}"),
        format!("tokenizer::MAX_TOKENS = {MAX_TOKENS}"),
        checked_tokens(&too_many, MAX_TOKENS).unwrap_err().message(),
    ));
    let too_long = "a".repeat(MAX_SENTENCE_CHARS + 1);
    out.push(entry(
        "sentence box: character limit",
        format!("the limit is {MAX_SENTENCE_CHARS}"),
        format!("tokenizer::MAX_SENTENCE_CHARS = {MAX_SENTENCE_CHARS}"),
        checked_tokens(&too_long, MAX_TOKENS).unwrap_err().message(),
    ));
    out
}

#[test]
fn every_fixed_number_is_printed_by_its_sentence_and_listed() {
    let entries = entries();
    for e in &entries {
        assert!(
            e.sentence.contains(&e.printed),
            "{}: the sentence does not print {:?} ({}):\n{}",
            e.place,
            e.printed,
            e.constant,
            e.sentence
        );
    }
    let listing: String = entries
        .iter()
        .map(|e| {
            format!(
                "{} | prints “{}” | {}\n    {}\n",
                e.place, e.printed, e.constant, e.sentence
            )
        })
        .collect();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/fixed_numbers.txt");
    if std::env::var_os("UPDATE_FIXED_NUMBERS").is_some() {
        std::fs::write(path, &listing).unwrap();
    }
    let golden = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        golden == listing,
        "a fixed number or the sentence that prints it changed; check the wording below, then run \
         UPDATE_FIXED_NUMBERS=1 cargo test --test fixed_numbers\n\n{listing}"
    );
}
