//! The short written explanation that sits beside the views.

use leptos::prelude::*;

#[component]
pub fn Explanation() -> impl IntoView {
    view! {
        <section class="panel explanation" aria-labelledby="explain-title">
            <h2 id="explain-title">"How to read this"</h2>
            <dl>
                <dt>"A row"</dt>
                <dd>
                    "Each row belongs to one token asking “which earlier words help me?”. Its query is compared with "
                    "every key by a dot product, and softmax turns those scores into shares that add up to 100 %. "
                    "The token's output is the same blend of the value vectors."
                </dd>
                <dt>"The triangle"</dt>
                <dd>
                    "A language model writes left to right, so a token may only use itself and what came before. "
                    "Scores for later tokens are set to −∞ before softmax, which makes their weight exactly zero: "
                    "the grey upper triangle."
                </dd>
                <dt>"Temperature τ"</dt>
                <dd>
                    "Every score is divided by √d·τ. A small τ stretches the gaps between scores, so softmax piles "
                    "nearly everything onto the top-scoring token; a large τ squeezes them together, so every "
                    "visible token gets about the same share."
                </dd>
                <dt>"Why divide by √d"</dt>
                <dd>
                    "A dot product of two d-long vectors with unit-variance entries has a spread of about √d, so "
                    "longer heads produce larger scores and a peakier softmax. Dividing by √d undoes that growth and "
                    "keeps a fresh model's attention spread out, where gradients can still teach it. Setting "
                    "τ = 1/√d cancels the division and shows what attention would look like without it."
                </dd>
            </dl>
        </section>
    }
}
