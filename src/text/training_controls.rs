//! The training page's first words and controls: its panel's title, the settings, run B's menu,
//! the buttons and the disclosure under them. The app's view (`components::training`) and the
//! first view written into train.html at build time (`first_view`) both print these, so
//! the two read the same.

use crate::model::train::page::settings::TaskChoice;
use crate::model::train::shape::PositionKind;

/// The panel's heading.
pub const TRAIN_TITLE: &str = "Train a model";
/// The settings' group.
pub const SETTINGS_LEGEND: &str = "Training";
/// The settings' labels.
pub const TASK_LABEL: &str = "Task";
pub const SEED_LABEL: &str = "Seed";
pub const LAYERS_LABEL: &str = "Layers";
pub const HEADS_LABEL: &str = "Heads per layer";
pub const POSITIONS_LABEL: &str = "Positions";
pub const LR_LABEL: &str = "Learning rate";
/// Under the settings.
pub const SETTINGS_HINT: &str = "Changing a setting starts a new run from step 0.";
/// Run B's menu: its label, its first choice and its two groups.
pub const RUN_B_LABEL: &str = "Compare with run B";
pub const NO_RUN_B: &str = "No run B";
pub const RUN_B_MISTAKES: &str = "A training mistake";
pub const RUN_B_SETTINGS: &str = "Another setting";
/// The buttons.
pub const TRAIN_BUTTON: &str = "Train";
pub const PAUSE_BUTTON: &str = "Pause";
pub const STEP_BUTTON: &str = "Step once";
pub const RESET_BUTTON: &str = "Reset";
/// The step counter's lead (the count follows).
pub const STEPS_LEAD: &str = "Steps: ";
/// The closed disclosure under the settings.
pub const HOW_IT_WORKS_SUMMARY: &str = "How the model reads a sequence and learns";

/// A task as its menu shows it.
pub fn task_option(task: TaskChoice) -> String {
    task.label().to_string()
}

/// A layer or head count as its menu shows it.
pub fn count_option(n: usize) -> String {
    n.to_string()
}

/// A position kind as its menu shows it.
pub fn positions_option(kind: PositionKind) -> String {
    kind.name().to_string()
}

/// A learning rate as its menu shows it (0.003, 0.01, 0.03).
pub fn lr_option(lr: f64) -> String {
    lr.to_string()
}
