//! Reading each parameter of a link, in table order: the checks and the notices for bad values.

use super::{
    quoted, CompareChange, ReadContext, Reading, Step, ViewState, DEFAULT_SENTENCE, DEFAULT_TOKENS,
    DEVELOPER_MAX_TOKENS, MAX_SEED, SLIDER_MAX_TAU, SLIDER_MIN_TAU,
};
use crate::model::broken::{Mistake, Mistakes};
use crate::model::host::parse_decimal;
use crate::model::scaling_lab::HEAD_SIZES;
use crate::model::tokenizer::{checked_tokens, tokenize, MAX_TOKENS};
use crate::model::train::lab::knockout::mask_of;
use crate::model::train::page::run_b::RunChange;
use crate::model::train::page::settings::{
    TaskChoice, LAYER_CHOICES, LEARNING_RATES, MAX_LINK_STEPS, TRAIN_HEAD_CHOICES,
};
use crate::model::train::shape::PositionKind;
use crate::model::trained::WeightsChoice;
use crate::model::weights::valid_heads;

pub(super) fn read_sentence(value: &str, cx: &ReadContext) -> Reading<String> {
    match checked_tokens(value, cx.so_far.max_tokens) {
        Ok(_) => Reading::Valid(value.to_string()),
        Err(e) => Reading::Ignored(format!("The link's sentence was not used. {}", e.message())),
    }
}

/// Once the task is read: layers and positions start from its defaults (the parameters after it
/// override them), so `?train=grammar` alone is the grammar's own run, as the task menu makes it.
#[allow(clippy::unnecessary_wraps)]
pub(super) fn start_from_task_defaults(state: &mut ViewState) -> Option<String> {
    state.train_layers = state.train_task.default_layers();
    state.train_positions = state.train_task.default_positions();
    None
}

/// Once the sentence is settled (the link's, or the default): the token limit must hold it, and
/// the default row must be one of its tokens.
pub(super) fn settle_sentence(state: &mut ViewState) -> Option<String> {
    state.row = state.row.min(tokenize(&state.sentence).len() - 1);
    if state.sentence == DEFAULT_SENTENCE && state.max_tokens < DEFAULT_TOKENS {
        // The default sentence must fit, or the page would have no sentence to show.
        let notice = format!(
            "Ignored max_tokens={}: the default sentence has {DEFAULT_TOKENS} tokens.",
            state.max_tokens
        );
        state.max_tokens = MAX_TOKENS;
        return Some(notice);
    }
    None
}

pub(super) fn read_tau(value: &str, _: &ReadContext) -> Reading<f64> {
    match parse_decimal(value) {
        Some(t) if t.is_finite() && (SLIDER_MIN_TAU..=SLIDER_MAX_TAU).contains(&t) => {
            Reading::Valid(t)
        }
        Some(t) if t.is_finite() && t > 0.0 => {
            let tau = t.clamp(SLIDER_MIN_TAU, SLIDER_MAX_TAU);
            Reading::Corrected(
                tau,
                format!(
                    "Temperature {} is outside {SLIDER_MIN_TAU}–{SLIDER_MAX_TAU}; using {tau}.",
                    quoted(value)
                ),
            )
        }
        _ => Reading::Ignored(format!(
            "Ignored temperature {}: it must be a positive number; using 1.",
            quoted(value)
        )),
    }
}

pub(super) fn read_seed(value: &str, _: &ReadContext) -> Reading<u64> {
    match value.parse::<u64>() {
        Ok(seed) if seed <= MAX_SEED => Reading::Valid(seed),
        _ => Reading::Ignored(format!(
            "Ignored seed {}: it must be a whole number from 0 to {MAX_SEED}.",
            quoted(value)
        )),
    }
}

pub(super) fn read_heads(value: &str, _: &ReadContext) -> Reading<usize> {
    match value.parse::<usize>() {
        Ok(heads) if valid_heads(heads) => Reading::Valid(heads),
        _ => Reading::Ignored(format!(
            "Ignored heads={}: choose 1, 2, 4 or 8.",
            quoted(value)
        )),
    }
}

pub(super) fn read_head(value: &str, cx: &ReadContext) -> Reading<usize> {
    let heads = cx.so_far.heads;
    match value.parse::<usize>() {
        Ok(head) if (1..=heads).contains(&head) => Reading::Valid(head - 1),
        _ => Reading::Ignored(format!(
            "Ignored head={}: there are {heads} heads.",
            quoted(value)
        )),
    }
}

pub(super) fn read_row(value: &str, cx: &ReadContext) -> Reading<usize> {
    let token_count = tokenize(&cx.so_far.sentence).len();
    match value.parse::<usize>() {
        Ok(row) if (1..=token_count).contains(&row) => Reading::Valid(row - 1),
        _ => Reading::Ignored(format!(
            "Ignored row={}: the sentence has {token_count} tokens.",
            quoted(value)
        )),
    }
}

pub(super) fn read_step(value: &str, _: &ReadContext) -> Reading<Step> {
    match Step::from_key(value) {
        Some(step) => Reading::Valid(step),
        None => Reading::Ignored(format!(
            "Ignored step={}: use {}.",
            quoted(value),
            step_keys()
        )),
    }
}

/// The valid `step` keys as the notice lists them: "average, softmax, …, heads or positions".
fn step_keys() -> String {
    let keys: Vec<&str> = Step::ALL.iter().map(|s| s.key()).collect();
    match keys.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => keys.concat(),
    }
}

pub(super) fn read_lab_head_size(value: &str, _: &ReadContext) -> Reading<usize> {
    match value.parse::<usize>() {
        Ok(d) if HEAD_SIZES.contains(&d) => Reading::Valid(d),
        _ => Reading::Ignored(format!(
            "Ignored lab_d={}: use a power of two from 1 to 512.",
            quoted(value)
        )),
    }
}

pub(super) fn read_positions(value: &str, _: &ReadContext) -> Reading<bool> {
    read_switch("pos", value)
}

pub(super) fn read_weights(value: &str, _: &ReadContext) -> Reading<WeightsChoice> {
    match WeightsChoice::parse(value) {
        Some(choice) => Reading::Valid(choice),
        None => Reading::Ignored(format!(
            "Ignored w={}: use random or grammar.",
            quoted(value)
        )),
    }
}

pub(super) fn read_embed(value: &str, _: &ReadContext) -> Reading<bool> {
    read_switch("embed", value)
}

/// An on/off parameter: `1`, `true`, `on` or `0`, `false`, `off`.
pub(super) fn read_switch(key: &str, value: &str) -> Reading<bool> {
    match value {
        "1" | "true" | "on" => Reading::Valid(true),
        "0" | "false" | "off" => Reading::Valid(false),
        _ => Reading::Ignored(format!("Ignored {key}={}: use 0 or 1.", quoted(value))),
    }
}

pub(super) fn read_broken(value: &str, _: &ReadContext) -> Reading<Mistakes> {
    let names = value.split(',').filter(|name| !name.is_empty());
    let set: Mistakes = names.clone().filter_map(Mistake::from_key).collect();
    let unknown: Vec<&str> = names.filter(|n| Mistake::from_key(n).is_none()).collect();
    if unknown.is_empty() {
        return Reading::Valid(set);
    }
    let keys: Vec<&str> = Mistake::ALL.iter().map(|m| m.key()).collect();
    let notice = format!(
        "Ignored broken={}: no such mistake; use {}.",
        quoted(&unknown.join(",")),
        keys.join(", ")
    );
    if set.is_empty() {
        Reading::Ignored(notice)
    } else {
        Reading::Corrected(set, notice)
    }
}

pub(super) fn read_quiz(value: &str, _: &ReadContext) -> Reading<u64> {
    match value.parse::<u64>() {
        Ok(seed) if seed <= MAX_SEED => Reading::Valid(seed),
        _ => Reading::Ignored(format!(
            "Ignored quiz={}: it must be a whole number from 0 to {MAX_SEED}.",
            quoted(value)
        )),
    }
}

pub(super) fn read_compare(value: &str, _: &ReadContext) -> Reading<Option<CompareChange>> {
    match CompareChange::parse(value) {
        Some(change) => Reading::Valid(Some(change)),
        None => Reading::Ignored(format!(
            "Ignored cmp={}: setting B of the compare view must be another temperature (cmp=tau:2), another seed (cmp=seed:7), the position codes switched (cmp=pos), another sentence (cmp=s:the mat sat on the cat .) or Break-it mistakes (cmp=broken:mask-zero).",
            quoted(value)
        )),
    }
}

pub(super) fn read_train_task(value: &str, _: &ReadContext) -> Reading<TaskChoice> {
    match TaskChoice::from_key(value) {
        Some(task) => Reading::Valid(task),
        None => Reading::Ignored(format!(
            "Ignored train={}: use repeat or grammar.",
            quoted(value)
        )),
    }
}

pub(super) fn read_train_seed(value: &str, _: &ReadContext) -> Reading<u64> {
    match value.parse::<u64>() {
        Ok(seed) if seed <= MAX_SEED => Reading::Valid(seed),
        _ => Reading::Ignored(format!(
            "Ignored tseed={}: it must be a whole number from 0 to {MAX_SEED}.",
            quoted(value)
        )),
    }
}

/// A count that must be one of `choices`.
pub(super) fn read_choice(key: &str, value: &str, choices: &[usize]) -> Reading<usize> {
    match value.parse::<usize>() {
        Ok(n) if choices.contains(&n) => Reading::Valid(n),
        _ => Reading::Ignored(format!(
            "Ignored {key}={}: use {}.",
            quoted(value),
            choices
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(" or ")
        )),
    }
}

pub(super) fn read_train_layers(value: &str, _: &ReadContext) -> Reading<usize> {
    read_choice("tlayers", value, &LAYER_CHOICES)
}

pub(super) fn read_train_heads(value: &str, _: &ReadContext) -> Reading<usize> {
    read_choice("theads", value, &TRAIN_HEAD_CHOICES)
}

pub(super) fn read_train_positions(value: &str, _: &ReadContext) -> Reading<PositionKind> {
    match PositionKind::from_name(value) {
        Some(kind) => Reading::Valid(kind),
        None => Reading::Ignored(format!(
            "Ignored tpos={}: use sinusoidal, learned or rotary.",
            quoted(value)
        )),
    }
}

pub(super) fn read_train_lr(value: &str, _: &ReadContext) -> Reading<f64> {
    match parse_decimal(value) {
        Some(lr) if LEARNING_RATES.contains(&lr) => Reading::Valid(lr),
        _ => Reading::Ignored(format!(
            "Ignored tlr={}: use 0.003, 0.01 or 0.03.",
            quoted(value)
        )),
    }
}

pub(super) fn read_train_steps(value: &str, _: &ReadContext) -> Reading<usize> {
    match value.parse::<usize>() {
        Ok(n) if n <= MAX_LINK_STEPS => Reading::Valid(n),
        _ => Reading::Ignored(format!(
            "Ignored tsteps={}: it must be a whole number from 0 to {MAX_LINK_STEPS}.",
            quoted(value)
        )),
    }
}

pub(super) fn read_train_b(value: &str, _: &ReadContext) -> Reading<String> {
    match RunChange::parse(value) {
        Some(change) => Reading::Valid(change.key()),
        None => Reading::Ignored(format!(
            "Ignored b={}: run B changes one thing, e.g. b=seed:7, b=lr:0.03, b=layers:1, b=heads:4, b=pos:learned, b=task:grammar or b=mistake:no-mask.",
            quoted(value)
        )),
    }
}

pub(super) fn read_train_knockout(value: &str, ctx: &ReadContext) -> Reading<usize> {
    let (layers, heads) = (ctx.so_far.train_layers, ctx.so_far.train_heads);
    let mut chosen: Vec<(usize, usize)> = Vec::new();
    let mut refused = Vec::new();
    for part in value.split(',').filter(|p| !p.is_empty()) {
        let head = part.split_once('.').and_then(|(l, h)| {
            let (l, h) = (l.parse::<usize>().ok()?, h.parse::<usize>().ok()?);
            ((1..=layers).contains(&l) && (1..=heads).contains(&h)).then(|| (l - 1, h - 1))
        });
        match head {
            Some(x) if !chosen.contains(&x) => chosen.push(x),
            Some(_) => {}
            None => refused.push(part),
        }
    }
    if refused.is_empty() {
        return Reading::Valid(mask_of(&chosen));
    }
    let notice = format!(
        "Ignored ko={}: name heads as layer.head, from 1.1 to {layers}.{heads}.",
        quoted(&refused.join(","))
    );
    if chosen.is_empty() {
        Reading::Ignored(notice)
    } else {
        Reading::Corrected(mask_of(&chosen), notice)
    }
}

pub(super) fn read_train_ablation(value: &str, _: &ReadContext) -> Reading<bool> {
    match value {
        "zero" => Reading::Valid(false),
        "mean" => Reading::Valid(true),
        _ => Reading::Ignored(format!(
            "Ignored kokind={}: use zero or mean.",
            quoted(value)
        )),
    }
}

pub(super) fn read_train_workers(value: &str, _: &ReadContext) -> Reading<bool> {
    read_switch("workers", value)
}

pub(super) fn read_max_tokens(value: &str, _: &ReadContext) -> Reading<usize> {
    match value.parse::<usize>() {
        Ok(limit) if (1..=DEVELOPER_MAX_TOKENS).contains(&limit) => Reading::Valid(limit),
        _ => Reading::Ignored(format!(
            "Ignored max_tokens={}: it must be a whole number from 1 to {DEVELOPER_MAX_TOKENS}.",
            quoted(value)
        )),
    }
}
