//! A heartbeat while a test run is under way, for a face whose client gives up on a silent
//! request (MCP hosts cancel a tool call after their timeout unless progress arrives): every
//! [`INTERVAL`], what the run is doing and how many tests are done so far.

use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use pith_runner::Counter;

/// How often a beat goes out: well inside the shortest timeout a host resets on progress.
pub const INTERVAL: Duration = Duration::from_secs(5);

/// Told each beat of a run in progress.
pub type Beat = Box<dyn Fn(&Pulse) + Send + Sync>;

/// One beat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pulse {
    /// What the run is doing: `pytest`, `pytest in api`, `tracing`.
    pub doing: String,
    /// Tests done so far, over every project run yet; never less than a beat before.
    pub done: u64,
    /// Since the run began.
    pub elapsed: Duration,
}

impl Pulse {
    /// One line for a human: `pytest: 12 tests done`.
    pub fn message(&self) -> String {
        let s = if self.done == 1 { "" } else { "s" };
        format!("{}: {} test{s} done", self.doing, self.done)
    }
}

/// The run's side of the heartbeat: it says what it is doing, a thread of the ticker's beats.
pub(crate) struct Ticker {
    now: Mutex<Now>,
    stopped: (Mutex<bool>, Condvar),
    start: Instant,
}

struct Now {
    doing: String,
    /// Tests done by the projects that finished.
    before: u64,
    /// The current project's own count, when its runner has one.
    counter: Option<Counter>,
    /// The last count told: counts never go back.
    told: u64,
}

impl Ticker {
    pub(crate) fn new() -> Ticker {
        Ticker {
            now: Mutex::new(Now {
                doing: "starting".to_owned(),
                before: 0,
                counter: None,
                told: 0,
            }),
            stopped: (Mutex::new(false), Condvar::new()),
            start: Instant::now(),
        }
    }

    /// A project starts running (`counter` counts its tests as they end).
    pub(crate) fn project(&self, doing: String, counter: Option<Counter>) {
        let mut now = self.lock();
        now.doing = doing;
        now.counter = counter;
    }

    /// The project ended with `tests` done; the run goes on with `doing`.
    pub(crate) fn ended(&self, tests: u64, doing: &str) {
        let mut now = self.lock();
        now.before += tests;
        now.counter = None;
        now.doing = doing.to_owned();
    }

    /// Beats until [`Ticker::stop`]: one at once, then every [`INTERVAL`].
    pub(crate) fn run(&self, beat: &Beat) {
        let (stopped, signal) = &self.stopped;
        let mut done = stopped.lock().unwrap_or_else(|e| e.into_inner());
        while !*done {
            beat(&self.pulse());
            done = signal
                .wait_timeout(done, INTERVAL)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    pub(crate) fn stop(&self) {
        let (stopped, signal) = &self.stopped;
        *stopped.lock().unwrap_or_else(|e| e.into_inner()) = true;
        signal.notify_all();
    }

    fn pulse(&self) -> Pulse {
        let mut now = self.lock();
        let current = now.counter.as_ref().map_or(0, |c| c());
        let done = (now.before + current).max(now.told);
        now.told = done;
        Pulse {
            doing: now.doing.clone(),
            done,
            elapsed: self.start.elapsed(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Now> {
        self.now.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;

    #[test]
    fn beats_say_what_runs_and_never_count_back() {
        let ticker = Ticker::new();
        let seen: Arc<Mutex<Vec<Pulse>>> = Arc::default();
        let sink = Arc::clone(&seen);
        let beat: Beat = Box::new(move |p| sink.lock().unwrap().push(p.clone()));
        let count = Arc::new(AtomicU64::new(3));
        let c = Arc::clone(&count);
        ticker.project(
            "pytest".into(),
            Some(Box::new(move || c.load(Ordering::SeqCst))),
        );
        assert_eq!(ticker.pulse().message(), "pytest: 3 tests done");
        count.store(1, Ordering::SeqCst);
        assert_eq!(ticker.pulse().done, 3, "a count never goes back");
        ticker.ended(4, "go");
        assert_eq!(ticker.pulse().message(), "go: 4 tests done");
        std::thread::scope(|s| {
            s.spawn(|| ticker.run(&beat));
            std::thread::sleep(Duration::from_millis(100));
            ticker.stop();
        });
        assert_eq!(
            seen.lock().unwrap().len(),
            1,
            "one beat at once, then the interval"
        );
    }
}
