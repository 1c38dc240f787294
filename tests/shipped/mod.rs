//! The checkpoints that ship with the app, decoded, for the native tests that use trained models.

use attention_explorer::model::train::page::checkpoint_file::decode;
use attention_explorer::model::train::transformer::Transformer;

/// The tiny-grammar checkpoint's model (`assets/checkpoints/grammar.bin`).
pub fn grammar_model() -> Transformer {
    decode(include_bytes!("../../assets/checkpoints/grammar.bin"))
        .expect("the shipped grammar checkpoint decodes")
        .model
}
