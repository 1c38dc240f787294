//! The words of the links between the app's pages (`components::page_links`): the explorer's
//! panels that lead to the practice and training pages, each page's "Where next" and the links'
//! labels.

/// The explorer's panel leading to the practice page: its heading.
pub const PRACTICE_TITLE: &str = "Practice";
/// What the practice page offers, before its link.
pub const PRACTICE_OFFER: &str = "Test yourself on this view: questions about this heatmap, generated from the live model and graded only after you answer, and an A/B comparison of two settings with their difference.";
/// The link to the practice page.
pub const OPEN_PRACTICE_PAGE: &str = "Open the practice page with this view";

/// The explorer's panel leading to the training page: its heading.
pub const TRAIN_LINK_TITLE: &str = "Watch attention learn";
/// What the training page offers, before its link.
pub const TRAIN_OFFER: &str = "Random weights show no learned pattern, and the trained weights offered above were trained by the project beforehand. On the training page a tiny attention-only transformer learns a task in your browser while you watch its heads' patterns form; you can pause it, step it, replay how a pattern formed and look closer at any head, and bring a tiny-grammar model you trained back here (Weights: trained by you).";
/// The link to the training page (the explorer's panel and the practice page's "Where next").
pub const OPEN_TRAINING_PAGE: &str = "Open the training page";

/// The link to the explorer at the end of the training page.
pub const OPEN_EXPLORER: &str = "Open the explorer";
/// The accessible name of each page's closing links.
pub const WHERE_NEXT_LABEL: &str = "Where next";

/// Where the practice page leads.
pub const PRACTICE_NEXT: &str = "Where next: the training page, where a tiny transformer learns in your browser and its heads come to do jobs such as copying; or back to the explorer's lesson for any step that felt unsure.";

/// Where the training page leads.
pub const TRAINING_NEXT: &str = "Where next: back to the explorer, where a model trained on the tiny grammar (Weights menu) shows its heads on your own sentence; or train again with another seed, task or number of heads and compare what forms.";
