//! The generation download (`model::generation_export`) of the grammar checkpoint, read back: the
//! file is parsed as JSON (a small reader below, keeping each number's text) and every number in
//! it is the record's own, bit for bit (`str::parse::<f64>` then `to_bits`): the shape, every
//! trained matrix, the sampling settings and each step's token, logits, distribution, draw (`null`
//! exactly when greedy) and loss.
#![cfg(not(target_arch = "wasm32"))]

mod shipped;

use attention_explorer::model::generation_export::{generation_json, GenerationRecord};
use attention_explorer::model::next_token::generate_at;
use attention_explorer::model::sampling::Sampler;
use attention_explorer::model::train::tasks::{Grammar, GRAMMAR_WORDS};
use shipped::grammar_model;

/// A JSON value; a number keeps its text, so the test parses it as the reader would.
#[derive(Debug, Clone, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Number(String),
    Text(String),
    List(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    fn parse(text: &str) -> Json {
        let mut reader = Reader {
            bytes: text.as_bytes(),
            at: 0,
        };
        let value = reader.value();
        reader.space();
        assert_eq!(reader.at, text.len(), "text after the document");
        value
    }

    fn get(&self, key: &str) -> &Json {
        match self {
            Json::Object(fields) => {
                let mut found = fields.iter().filter(|(k, _)| k == key);
                let value = &found.next().unwrap_or_else(|| panic!("no {key:?}")).1;
                assert!(found.next().is_none(), "{key:?} twice");
                value
            }
            other => panic!("{other:?} is not an object"),
        }
    }

    fn keys(&self) -> Vec<&str> {
        match self {
            Json::Object(fields) => fields.iter().map(|(k, _)| k.as_str()).collect(),
            other => panic!("{other:?} is not an object"),
        }
    }

    fn list(&self) -> &[Json] {
        match self {
            Json::List(items) => items,
            other => panic!("{other:?} is not a list"),
        }
    }

    fn number(&self) -> f64 {
        match self {
            Json::Number(text) => text.parse::<f64>().unwrap(),
            other => panic!("{other:?} is not a number"),
        }
    }

    /// An integer, read from its text exactly (no trip through f64).
    fn integer(&self) -> u64 {
        match self {
            Json::Number(text) => text.parse::<u64>().unwrap(),
            other => panic!("{other:?} is not a number"),
        }
    }

    fn text(&self) -> &str {
        match self {
            Json::Text(text) => text,
            other => panic!("{other:?} is not a string"),
        }
    }

    fn numbers(&self) -> Vec<f64> {
        self.list().iter().map(Json::number).collect()
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn space(&mut self) {
        while self.at < self.bytes.len() && self.bytes[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> bool {
        self.space();
        let hit = self.bytes.get(self.at) == Some(&byte);
        self.at += usize::from(hit);
        hit
    }

    fn word(&mut self, word: &str) -> bool {
        let hit = self.bytes[self.at..].starts_with(word.as_bytes());
        self.at += if hit { word.len() } else { 0 };
        hit
    }

    /// Items separated by commas up to `close` (the opening bracket already read).
    fn items<T>(&mut self, close: u8, mut item: impl FnMut(&mut Self) -> T) -> Vec<T> {
        let mut items = Vec::new();
        if self.eat(close) {
            return items;
        }
        loop {
            items.push(item(self));
            if self.eat(close) {
                return items;
            }
            assert!(self.eat(b','), "expected ',' at byte {}", self.at);
        }
    }

    fn string(&mut self) -> String {
        assert!(self.eat(b'"'), "expected a string at byte {}", self.at);
        let mut out = String::new();
        loop {
            let rest = std::str::from_utf8(&self.bytes[self.at..]).unwrap();
            let c = rest.chars().next().expect("unterminated string");
            self.at += c.len_utf8();
            match c {
                '"' => return out,
                '\\' => {
                    let e = self.bytes[self.at];
                    self.at += 1;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let hex = std::str::from_utf8(&self.bytes[self.at..self.at + 4]);
                            let code = u32::from_str_radix(hex.unwrap(), 16).unwrap();
                            out.push(char::from_u32(code).unwrap());
                            self.at += 4;
                        }
                        other => panic!("escape \\{}", other as char),
                    }
                }
                c => out.push(c),
            }
        }
    }

    fn value(&mut self) -> Json {
        self.space();
        let first = self.bytes[self.at];
        match first {
            b'{' => {
                self.at += 1;
                Json::Object(self.items(b'}', |r| {
                    let key = r.string();
                    assert!(r.eat(b':'), "expected ':' at byte {}", r.at);
                    (key, r.value())
                }))
            }
            b'[' => {
                self.at += 1;
                Json::List(self.items(b']', Self::value))
            }
            b'"' => Json::Text(self.string()),
            _ if self.word("null") => Json::Null,
            _ if self.word("true") => Json::Bool(true),
            _ if self.word("false") => Json::Bool(false),
            _ => {
                let start = self.at;
                while self.at < self.bytes.len()
                    && b"+-.eE0123456789".contains(&self.bytes[self.at])
                {
                    self.at += 1;
                }
                assert!(self.at > start, "unexpected byte at {start}");
                Json::Number(
                    std::str::from_utf8(&self.bytes[start..self.at])
                        .unwrap()
                        .into(),
                )
            }
        }
    }
}

fn same_bits(written: &[f64], expected: &[f64]) -> bool {
    written.len() == expected.len()
        && written
            .iter()
            .zip(expected)
            .all(|(a, b)| a.to_bits() == b.to_bits())
}

/// Every field of the file against `record`, number by number.
fn assert_round_trip(json: &str, record: &GenerationRecord) {
    let doc = Json::parse(json);
    assert_eq!(
        doc.keys(),
        [
            "kind",
            "model",
            "groups",
            "vocabulary",
            "prompt",
            "sampling",
            "steps"
        ]
    );
    assert_eq!(doc.get("kind").text(), "generation");
    let cfg = record.model.config();
    let shape = doc.get("model");
    assert_eq!(
        [
            "vocab",
            "d_model",
            "layers",
            "heads",
            "head_size",
            "max_len"
        ]
        .map(|k| shape.get(k).integer() as usize),
        [
            cfg.vocab,
            cfg.d_model,
            cfg.layers,
            cfg.heads,
            cfg.head_size(),
            cfg.max_len
        ]
    );
    assert_eq!(shape.get("positions").text(), cfg.positions.name());
    let groups = doc.get("groups").list();
    let layout = cfg.layout();
    assert_eq!(groups.len(), layout.len());
    for (group, span) in groups.iter().zip(&layout) {
        assert_eq!(group.get("name").text(), span.group.label());
        assert_eq!(group.get("rows").integer() as usize, span.rows);
        assert_eq!(group.get("cols").integer() as usize, span.cols);
        let rows = group.get("values").list();
        assert_eq!(rows.len(), span.rows);
        let values: Vec<f64> = rows.iter().flat_map(Json::numbers).collect();
        assert!(same_bits(&values, &record.model.params()[span.range()]));
    }
    let vocabulary: Vec<&str> = doc
        .get("vocabulary")
        .list()
        .iter()
        .map(Json::text)
        .collect();
    assert_eq!(vocabulary, record.vocabulary);
    let prompt = doc.get("prompt");
    let ids: Vec<usize> = prompt
        .get("ids")
        .list()
        .iter()
        .map(|j| j.integer() as usize)
        .collect();
    assert_eq!(ids, record.prompt);
    let words: Vec<&str> = prompt.get("words").list().iter().map(Json::text).collect();
    assert_eq!(
        words,
        ids.iter()
            .map(|&i| record.vocabulary[i])
            .collect::<Vec<_>>()
    );
    let sampling = doc.get("sampling");
    assert_eq!(sampling.keys(), ["temperature", "top_k", "seed", "tau"]);
    let t = sampling.get("temperature").number();
    assert_eq!(t.to_bits(), record.sampler.temperature.to_bits());
    assert_eq!(
        sampling.get("top_k").integer() as usize,
        record.sampler.top_k
    );
    assert_eq!(sampling.get("seed").integer(), record.seed);
    assert_eq!(sampling.get("tau").number().to_bits(), record.tau.to_bits());
    let steps = doc.get("steps").list();
    assert_eq!(steps.len(), record.steps.len());
    for (written, step) in steps.iter().zip(record.steps) {
        assert_eq!(
            written.keys(),
            ["token", "word", "logits", "probs", "draw", "loss"]
        );
        assert_eq!(written.get("token").integer() as usize, step.token);
        assert_eq!(written.get("word").text(), record.vocabulary[step.token]);
        assert!(same_bits(&written.get("logits").numbers(), &step.logits));
        assert!(same_bits(&written.get("probs").numbers(), &step.probs));
        match (written.get("draw"), step.draw) {
            (Json::Null, None) => assert!(record.sampler.is_greedy()),
            (u, Some(d)) => assert_eq!(u.number().to_bits(), d.to_bits()),
            (u, d) => panic!("draw {u:?} written for {d:?}"),
        }
        assert_eq!(written.get("loss").number().to_bits(), step.loss.to_bits());
    }
}

#[test]
fn a_grammar_generation_reads_back_bit_for_bit() {
    let model = grammar_model();
    let prompt = Grammar::encode("the").unwrap();
    let mut sampled = 0;
    for temperature in [0.0, 0.7, 1.5] {
        for top_k in [1, 3, 29] {
            for seed in [0, 7, 2024] {
                let sampler = Sampler { temperature, top_k };
                let steps = generate_at(&model, &prompt, 8, sampler, seed, 1.0).unwrap();
                let record = GenerationRecord {
                    model: &model,
                    vocabulary: &GRAMMAR_WORDS,
                    prompt: &prompt,
                    sampler,
                    seed,
                    tau: 1.0,
                    steps: &steps,
                };
                let json = generation_json(&record);
                assert_round_trip(&json, &record);
                let nulls = json.matches("\"draw\": null").count();
                if sampler.is_greedy() {
                    assert_eq!(nulls, steps.len(), "T {temperature}, top-k {top_k}");
                } else {
                    assert_eq!(nulls, 0);
                    sampled += 1;
                }
            }
        }
    }
    assert_eq!(sampled, 2 * 2 * 3);
}

/// The attention temperature is recorded as given, and a generation to the end of the context
/// reads back too.
#[test]
fn a_long_generation_at_another_tau_reads_back() {
    let model = grammar_model();
    let prompt = Grammar::encode("the cat").unwrap();
    let sampler = Sampler {
        temperature: 1.2,
        top_k: 5,
    };
    let count = model.config().max_len - prompt.len();
    for tau in [0.5, 2.0] {
        let steps = generate_at(&model, &prompt, count, sampler, 3, tau).unwrap();
        let record = GenerationRecord {
            model: &model,
            vocabulary: &GRAMMAR_WORDS,
            prompt: &prompt,
            sampler,
            seed: 3,
            tau,
            steps: &steps,
        };
        assert_round_trip(&generation_json(&record), &record);
    }
}
