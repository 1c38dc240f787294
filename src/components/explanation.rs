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
                    "Each row belongs to one token asking “which of the words so far, myself included, help me?”. "
                    "Its query is compared with every key it may see by a dot product, and softmax turns those scores into shares that add up to 100 %. "
                    "The token's output is the same blend of the value vectors, and in a language model row t's "
                    "output is what predicts token t + 1."
                </dd>
                <dt>"The triangle"</dt>
                <dd>
                    "A language model writes left to right, and row t predicts the token after it, so a row may "
                    "use its own token and what came before, never the next token it is predicting. Scores for "
                    "later tokens are set to −∞ before softmax, which makes their weight exactly zero: the grey "
                    "upper triangle. (Break it's “wrong triangle” shows what goes wrong when a row reads the "
                    "tokens it should predict.)"
                </dd>
                <dt>"Temperature τ"</dt>
                <dd>
                    "This app's knob, not part of standard attention: every score is divided by √d·τ, and τ = 1 "
                    "is what models use. A small τ stretches the gaps between scores, so softmax piles nearly "
                    "everything onto the top-scoring token; a large τ squeezes them together, so every visible "
                    "token gets about the same share."
                </dd>
                <dt>"Why divide by √d"</dt>
                <dd>
                    "A dot product of two d-long vectors with unit-variance entries has a spread of about √d, so "
                    "longer heads produce larger scores and a peakier softmax. Dividing by √d undoes that growth, so "
                    "a fresh model's attention is about as spread out at every head size. Setting τ = 1/√d cancels "
                    "the division and shows what attention would look like without it. Step 4 of the lesson below "
                    "measures what that does to learning: how much of the learning signal still reaches the "
                    "queries, and from which head size the unscaled rows pass less of it than the scaled ones."
                </dd>
            </dl>
        </section>
    }
}
