//! [`next_task`]: run a closure in a new task of the page's event loop, as soon as the browser
//! has done what was waiting (input events, a frame that is due).
//!
//! Why not the usual ways: `requestAnimationFrame` waits for the next frame, so work done once
//! per frame leaves the rest of each 16.7 ms idle; `setTimeout(f, 0)` is held back to 4 ms once
//! nested. A message on a `MessageChannel` is neither, and, being a task, still lets the browser
//! handle input and draw frames between two of them. The training page runs its ≤ 8 ms slices
//! this way (`state::training`).

use std::cell::RefCell;
use std::collections::VecDeque;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::MessageChannel;

/// One channel for the page's lifetime; every message runs the oldest waiting closure.
struct Queue {
    channel: MessageChannel,
    waiting: RefCell<VecDeque<Box<dyn FnOnce()>>>,
}

thread_local! {
    static QUEUE: Queue = Queue::new();
}

impl Queue {
    fn new() -> Self {
        let channel = MessageChannel::new().expect("MessageChannel is in every supported browser");
        let on_message = Closure::<dyn Fn()>::new(|| {
            // Taken out first: the closure may queue the next one.
            let next = QUEUE.with(|q| q.waiting.borrow_mut().pop_front());
            if let Some(f) = next {
                f();
            }
        });
        channel
            .port1()
            .set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        // The handler lives as long as the page, like the channel it listens to.
        on_message.forget();
        Self {
            channel,
            waiting: RefCell::new(VecDeque::new()),
        }
    }
}

/// Runs `f` in a task of its own, soon (see the module documentation).
pub fn next_task(f: impl FnOnce() + 'static) {
    QUEUE.with(|q| {
        q.waiting.borrow_mut().push_back(Box::new(f));
        // Posting to an open port of a live channel cannot fail.
        let _ = q.channel.port2().post_message(&JsValue::UNDEFINED);
    });
}
