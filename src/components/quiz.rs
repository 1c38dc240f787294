//! "Predict, then reveal": one question at a time about the live model, answered by a radio
//! choice or a typed number; Check reveals right or wrong, the model's exact number and why.
//! The questions and their grading are `model::quiz`; the words are `text::quiz`. The answer is
//! put in the page only once Check is pressed. Progress lives in the tab's sessionStorage.

use crate::components::heatmap::Heatmap;
use crate::model::host::parse_decimal;
use crate::model::quiz::{grade, next_round_seed, questions, Question, QuizOn, Response};
use crate::state::{ExplorerModel, NumbersHidden, Shared, ViewSignals};
use crate::text::quiz::{
    quiz_choice, quiz_legend, quiz_number, quiz_progress, quiz_prompt, quiz_scope, quiz_verdict,
    quiz_why, ASKED_AGAIN,
};
use crate::web::session::{session_get, session_set};
use leptos::html;
use leptos::prelude::*;
use std::sync::Arc;

const STORED: &str = "quiz-progress";
/// How many checked questions the page remembers so as not to count one twice.
const COUNTED_KEPT: usize = 64;

/// Questions answered right, and answered, this tab.
#[derive(Clone, Copy, Default)]
struct Progress {
    correct: u32,
    answered: u32,
}

impl Progress {
    /// Stored as "correct/answered".
    fn load() -> Self {
        session_get(STORED)
            .and_then(|s| {
                let (c, a) = s.split_once('/')?;
                let (correct, answered) = (c.parse().ok()?, a.parse().ok()?);
                (correct <= answered).then_some(Self { correct, answered })
            })
            .unwrap_or_default()
    }

    fn save(self) {
        session_set(STORED, &format!("{}/{}", self.correct, self.answered));
    }
}

#[component]
pub fn Quiz() -> impl IntoView {
    let view = ViewSignals::from_context();
    let model = ExplorerModel::from_context();
    let set = Memo::new(move |_| {
        let seed = view.quiz.get();
        let on = QuizOn {
            head: view.head.get(),
            tau: view.tau.get(),
            mistakes: view.broken.get(),
            selected_row: view.row.get(),
        };
        Shared(Arc::new(model.prepared.with(|p| questions(p, on, seed))))
    });
    let index = RwSignal::new(0usize);
    let choice = RwSignal::new(None::<usize>);
    let typed = RwSignal::new(String::new());
    // Some(right) once checked.
    let checked = RwSignal::new(None::<bool>);
    let hint = RwSignal::new(None::<&'static str>);
    // Whether the question just checked had been checked before (and so was not counted).
    let repeated = RwSignal::new(false);
    let progress = RwSignal::new(Progress::load());
    // The questions checked on this page so far: one asked again (the view changed and came
    // back, so its answer has been shown) is graded but not counted twice. Bounded: the oldest
    // give way.
    let counted = RwSignal::new(Vec::<Question>::new());
    // (questions asked so far in this set, from 0 over every round; the set's size; the question)
    let question: Memo<Option<(usize, usize, Question)>> = Memo::new(move |_| {
        set.with(|s| {
            let k = index.get();
            s.get(k % s.len().max(1)).map(|q| (k, s.len(), q.clone()))
        })
    });
    // Predict, then reveal: while a question is open and unchecked, the heatmap and the row
    // table keep their numbers hidden (a new question hides them, Check shows them again).
    let hidden = NumbersHidden::from_context();
    let hide = move |on: bool| {
        // Only a change: setting the same value would redraw the heatmap for nothing (the quiz,
        // built after the first paint, hides what is hidden from the start).
        if let Some(h) = hidden.filter(|h| h.0.get_untracked() != on) {
            h.0.set(on);
        }
    };
    let clear = move || {
        choice.set(None);
        typed.set(String::new());
        checked.set(None);
        hint.set(None);
        hide(set.with_untracked(|s| !s.is_empty()));
    };
    hide(set.with_untracked(|s| !s.is_empty()));
    // A new view asks new questions: any answer given is for the old ones.
    Effect::watch(move || set.get(), move |_, _, _| clear(), false);

    let verdict_ref = NodeRef::<html::Div>::new();
    let form_ref = NodeRef::<html::Form>::new();
    let check = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let Some((_, _, q)) = question.get_untracked() else {
            return;
        };
        if checked.get_untracked().is_some() {
            return;
        }
        let response = if q.choices.is_empty() {
            parse_decimal(typed.get_untracked().trim()).map(Response::Number)
        } else {
            choice.get_untracked().map(Response::Choice)
        };
        let Some(response) = response else {
            hint.set(Some(if q.choices.is_empty() {
                "Type a number first, such as 0.25."
            } else {
                "Choose an answer first."
            }));
            return;
        };
        let right = grade(&q, response);
        hint.set(None);
        let again = counted.with_untracked(|c| c.contains(&q));
        repeated.set(again);
        checked.set(Some(right));
        hide(false);
        if !again {
            counted.update(|c| {
                if c.len() == COUNTED_KEPT {
                    c.remove(0);
                }
                c.push(q);
            });
            progress.update(|p| {
                p.answered += 1;
                p.correct += u32::from(right);
                p.save();
            });
        }
        request_animation_frame(move || {
            if let Some(el) = verdict_ref.get_untracked() {
                let _ = el.focus();
            }
        });
    };
    let next = move |_| {
        clear();
        index.update(|k| *k += 1);
        // Round over: the next one asks new questions (the link keeps the new seed).
        let n = set.with_untracked(|s| s.len());
        if n > 0 && index.get_untracked() % n == 0 {
            view.quiz.update(|seed| *seed = next_round_seed(*seed));
        }
        request_animation_frame(move || {
            if let Some(input) = form_ref
                .get_untracked()
                .and_then(|f| f.query_selector("p:not([hidden]) > input").ok().flatten())
                .and_then(|el| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(el).ok())
            {
                let _ = input.focus();
            }
        });
    };
    let reset = move |_| {
        progress.set(Progress::default());
        Progress::default().save();
    };

    // The current question's parts, each read where it is shown.
    let with_q = move |f: fn(&Question, &[String], f64) -> String| {
        move || {
            question.with(|q| {
                q.as_ref().map_or(String::new(), |(_, _, q)| {
                    model
                        .tokens
                        .with_untracked(|t| f(q, t, view.tau.get_untracked()))
                })
            })
        }
    };
    let typed_answer =
        move || question.with(|q| q.as_ref().is_some_and(|(_, _, q)| q.choices.is_empty()));
    let legend = move || {
        question.with(|q| {
            q.as_ref().map_or(String::new(), |(k, n, q)| {
                let prompt = model
                    .tokens
                    .with_untracked(|t| quiz_prompt(q, t, view.tau.get_untracked()));
                quiz_legend(*k, *n, &prompt)
            })
        })
    };
    let choices = move || {
        let Some((_, _, q)) = question.get() else {
            return Vec::new();
        };
        let tokens = model.tokens.get_untracked();
        q.choices
            .iter()
            .enumerate()
            .map(|(k, &c)| {
                let id = format!("quiz-choice-{k}");
                view! {
                    <p class="quiz-choice">
                        <input
                            type="radio"
                            name="quiz-choice"
                            id=id.clone()
                            prop:checked=move || choice.get() == Some(k)
                            on:change=move |_| choice.set(Some(k))
                        />
                        <label for=id>{quiz_choice(c, &tokens)}</label>
                    </p>
                }
            })
            .collect::<Vec<_>>()
    };
    let mystery = Memo::new(move |_| {
        question.with(|q| {
            q.as_ref()
                .and_then(|(_, _, q)| q.heatmap.clone())
                .map(|m| Shared(Arc::new(m)))
        })
    });
    let heatmap = move || {
        mystery.get().map(|m| {
            view! {
                <Heatmap
                    weights=Signal::derive(move || m.clone())
                    tokens=model.tokens
                    selected_row=Signal::derive(|| None)
                    on_select=Callback::new(|_: usize| {})
                    percent_labels=true
                    title="The heatmap to explain"
                    broken=Signal::derive(|| true)
                />
            }
        })
    };
    let revealed = move || checked.get().is_some();
    let verdict = move || match (hint.get(), checked.get(), question.get()) {
        (Some(h), _, _) => h.to_string(),
        (_, Some(right), Some((_, _, q))) => {
            let verdict = model.tokens.with_untracked(|t| quiz_verdict(&q, t, right));
            if repeated.get() {
                format!("{verdict} {ASKED_AGAIN}")
            } else {
                verdict
            }
        }
        _ => String::new(),
    };
    let reveal = move |f: fn(&Question, &[String], f64) -> String| {
        let text = with_q(f);
        move || if revealed() { text() } else { String::new() }
    };

    view! {
        <section class="panel quiz" id="quiz" aria-labelledby="quiz-title">
            <h2 id="quiz-title">"Predict, then reveal"</h2>
            <p class="hint">
                {move || quiz_scope(view.head.get(), view.heads.get(), view.tau.get())}
            </p>
            <p class="quiz-progress">
                <span data-testid="quiz-progress">
                    {move || progress.with(|p| quiz_progress(p.correct, p.answered))}
                </span>
                " "
                <button type="button" on:click=reset>"Reset progress"</button>
            </p>
            <form node_ref=form_ref on:submit=check>
                <fieldset
                    data-kind=move || question.with(|q| q.as_ref().map_or("", |(_, _, q)| q.kind.key()))
                    prop:disabled=revealed
                >
                    <legend>{legend}</legend>
                    {heatmap}
                    {choices}
                    <p hidden=move || !typed_answer()>
                        <label for="quiz-number">"Your answer"</label>
                        " "
                        <input
                            id="quiz-number"
                            type="text"
                            inputmode="decimal"
                            autocomplete="off"
                            prop:value=move || typed.get()
                            on:input=move |ev| typed.set(event_target_value(&ev))
                        />
                    </p>
                </fieldset>
                <button type="submit" prop:disabled=revealed>"Check"</button>
            </form>
            <div class="quiz-verdict" role="status" tabindex="-1" data-testid="quiz-verdict" node_ref=verdict_ref>
                <p class=move || match checked.get() {
                    Some(true) => "quiz-right",
                    Some(false) => "quiz-wrong",
                    None => "",
                }>
                    <strong>{verdict}</strong>
                </p>
                <p data-testid="quiz-number">{reveal(|q, t, _| quiz_number(q, t))}</p>
                <p>{reveal(|q, t, _| quiz_why(q, t))}</p>
            </div>
            <button type="button" class="quiz-next" on:click=next>"Next question"</button>
        </section>
    }
}
