//! The training page's first view: what `app::TrainApp`'s first task builds above the loss chart
//! for a link without a query (the way back, the panel's heading, the settings with their
//! defaults, run B's menu, the buttons, the closed "how it works", what to watch and the status
//! line), written into train.html so that a wide screen's first screen paints with the page.
//!
//! Why: on a wide screen these fill the first screen under the header, and built by the app
//! they came with its mount, ≈ 100 ms after the page's first paint. They are a picture of the
//! controls, not the controls: the view is `inert` (nothing in it can be focused or pressed)
//! until the app's first task replaces it with the same elements, working
//! (`web::first_view_handover::take_over`). The words are the app's (`text`), the menus' choices and
//! their defaults the model's; the browser test compares boxes and words with the app's.

use super::nav_back;
use crate::charts::svg::escape;
use crate::model::train::page::run_b::RunChange;
use crate::model::train::page::settings::{
    TaskChoice, TrainSettings, LAYER_CHOICES, LEARNING_RATES, TRAIN_HEAD_CHOICES,
};
use crate::model::train::shape::PositionKind;
use crate::model::url_state::{ViewState, MAX_SEED};
use crate::text;
use std::fmt::Write;

/// The training settings `view` describes (`state::RunPair` reads the same fields from the
/// view's signals); the writer passes the default view.
pub fn settings_of(view: &ViewState) -> TrainSettings {
    TrainSettings {
        task: view.train_task,
        seed: view.train_seed,
        layers: view.train_layers,
        heads: view.train_heads,
        positions: view.train_positions,
        lr: view.train_lr,
    }
}

/// One setting's row: its label and a menu of `choices` shown by `label`, `now` selected (as
/// `components::training::controls`'s `choice`).
fn choice<T: Copy + PartialEq>(
    text: &str,
    choices: &[T],
    label: fn(T) -> String,
    now: T,
) -> String {
    let mut options = String::new();
    for (i, &c) in choices.iter().enumerate() {
        let selected = if c == now { " selected" } else { "" };
        let _ = write!(
            options,
            "<option value=\"{i}\"{selected}>{}</option>",
            escape(&label(c))
        );
    }
    format!(
        "<div class=\"row\"><label>{}</label><select>{options}</select></div>",
        escape(text)
    )
}

/// Run B's menu for run A's `settings`, with no run B chosen (as `controls`'s `RunBChoice`).
fn run_b_menu(settings: TrainSettings) -> String {
    let offered = RunChange::offered(settings);
    let group = |label: &str, mistakes: bool| {
        let options: String = offered
            .iter()
            .filter(|c| c.mistake().is_some() == mistakes)
            .map(|&c| {
                format!(
                    "<option value=\"{}\">{}</option>",
                    escape(&c.key()),
                    escape(&text::run_change_label(c))
                )
            })
            .collect();
        format!("<optgroup label=\"{}\">{options}</optgroup>", escape(label))
    };
    format!(
        "<div class=\"row\"><label>{}</label><select><option value=\"\" selected>{}</option>{}{}</select></div>\
<p class=\"hint\">{}</p>",
        escape(text::RUN_B_LABEL),
        escape(text::NO_RUN_B),
        group(text::RUN_B_MISTAKES, true),
        group(text::RUN_B_SETTINGS, false),
        escape(text::RUN_B_HINT),
    )
}

/// The training page's first view for `view` (the default view).
pub fn training_first_view(view: &ViewState) -> String {
    let s = settings_of(view);
    let config = s.config();
    let settings = [
        choice(text::TASK_LABEL, &TaskChoice::ALL, text::task_option, s.task),
        format!(
            "<div class=\"row\"><label>{}</label><input type=\"number\" min=\"0\" max=\"{MAX_SEED}\" \
step=\"1\" inputmode=\"numeric\" value=\"{}\"></div>",
            escape(text::SEED_LABEL),
            s.seed
        ),
        choice(text::LAYERS_LABEL, &LAYER_CHOICES, text::count_option, s.layers),
        choice(text::HEADS_LABEL, &TRAIN_HEAD_CHOICES, text::count_option, s.heads),
        choice(text::POSITIONS_LABEL, &PositionKind::ALL, text::positions_option, s.positions),
        choice(text::LR_LABEL, &LEARNING_RATES, text::lr_option, s.lr),
    ]
    .concat();
    let watch = if s.is_repeat() {
        format!("<p class=\"hint\">{}</p>", escape(text::WHAT_TO_WATCH))
    } else {
        String::new()
    };
    format!(
        "<div id=\"first-view\" inert>{nav}<main><section class=\"panel training\">\
<h2>{title}</h2>\
<fieldset class=\"field model\"><legend>{legend}</legend>{settings}\
<p class=\"hint\">{settings_hint}</p>{run_b}\
<div class=\"row buttons\"><button type=\"button\">{train}</button><button type=\"button\">{step}</button>\
<button type=\"button\">{reset}</button></div>\
<p class=\"error\"></p><p>{steps}<output>0</output></p><p></p></fieldset>\
<details class=\"how-it-works\"><summary>{how}</summary><p>{model}</p><p>{one_step}</p><p>{positions}</p></details>\
{watch}<p class=\"note\">{status}</p>\
</section></main></div>",
        nav = nav_back(view),
        title = escape(text::TRAIN_TITLE),
        legend = escape(text::SETTINGS_LEGEND),
        settings_hint = escape(text::SETTINGS_HINT),
        run_b = run_b_menu(s),
        train = escape(text::TRAIN_BUTTON),
        step = escape(text::STEP_BUTTON),
        reset = escape(text::RESET_BUTTON),
        steps = escape(text::STEPS_LEAD),
        how = escape(text::HOW_IT_WORKS_SUMMARY),
        model = escape(&text::model_explainer(&config.model)),
        one_step = escape(&text::step_explainer(config.batch, config.lr)),
        positions = escape(text::POSITION_KINDS),
        status = escape(&text::training_status(0, s.task.name(), false)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_link_trains_the_reference_default() {
        assert_eq!(settings_of(&ViewState::default()), TrainSettings::default());
    }

    #[test]
    fn the_first_view_controls_show_the_defaults_and_every_choice() {
        let html = training_first_view(&ViewState::default());
        // One option selected per menu, run B's "none" among them.
        assert_eq!(html.matches(" selected>").count(), 6);
        assert!(html.contains("<option value=\"0\" selected>Repeat a random sequence</option>"));
        assert!(html.contains("<option value=\"2\" selected>rotary</option>"));
        assert!(html.contains("<option value=\"1\" selected>0.01</option>"));
        assert!(html.contains("value=\"1\"></div>"), "the seed");
        // Every offered change of run B, in two groups.
        let offered = RunChange::offered(TrainSettings::default());
        assert_eq!(
            html.matches("<option value=\"").count(),
            2 + 2 + 3 + 3 + 3 + 1 + offered.len()
        );
        assert!(html.contains(&escape(&text::training_status(0, "repeat", false))));
        // A picture of the controls: nothing in it can be used, and no id repeats the app's.
        assert!(html.starts_with("<div id=\"first-view\" inert>"));
        assert_eq!(html.matches(" id=").count(), 1);
    }
}
