//! Tests worked on by a few threads ahead of the thread that prints them ([`super::libtest`]).
//!
//! A pool whose threads send each result to a printing thread and wake it (libtest-mimic's) has,
//! with as many workers as cores, one thread too many, and each test costs two context
//! switches, a fifth of the CPU of a run of 10,000 cases. Here the printing thread works too:
//! each of its tests takes the result that one of `threads - 1` workers (or the printing thread
//! itself) computed, in the order it prints them. The printing thread works on the
//! next test when its result is not in, and sleeps only while the others finish theirs; a worker
//! sleeps only when it is [`WINDOW`] tests ahead (so that no more results wait in memory).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use libtest_mimic::{Arguments, Failed};

use super::libtest::Completion;

use super::libtest::{self, Job, Work};

/// How far ahead of the printing thread the workers may be.
const WINDOW: usize = 64;

/// The results of the tests that run, by their turn.
struct Shared {
    /// Each turn's work until a worker takes it.
    works: Vec<Mutex<Option<Work>>>,
    /// The next turn a worker takes.
    next: AtomicUsize,
    state: Mutex<State>,
    /// A result is in (for the printing thread).
    ready: Condvar,
    /// The printing thread has taken results (for the workers).
    room: Condvar,
}

struct State {
    results: Vec<Option<Result<Completion, Failed>>>,
    /// Turns the printing thread has taken.
    taken: usize,
    printer_waits: bool,
    workers_wait: usize,
    stop: bool,
}

/// The workers of a run.
pub(crate) struct Ahead {
    shared: Arc<Shared>,
    threads: usize,
}

/// The tests for the printing thread, and the workers that compute them ahead when the run has
/// `threads` threads and more than one test to run.
/// The stack of a thread that works ahead: a main thread's (8 MiB), which a case nested as deep
/// as goldgate reads needs in a debug build (2 MiB, a spawned thread's default, is not).
pub(crate) const WORKER_STACK: usize = 8 << 20;

pub(crate) fn plan(args: &Arguments, jobs: Vec<Job>, threads: usize) -> (Vec<Job>, Option<Ahead>) {
    // The tests that will run: not filtered out, not ignored.
    let runs = |job: &Job| {
        !libtest::is_filtered_out(args, job.name(), job.is_ignored())
            && !libtest::is_ignored(args, job.is_ignored())
    };
    let turns = jobs.iter().filter(|j| runs(j)).count();
    if threads <= 1 || turns <= 1 || args.list {
        return (jobs, None);
    }
    let mut works = Vec::with_capacity(turns);
    let mut trials = Vec::with_capacity(jobs.len());
    let shared_at = Arc::new(std::sync::OnceLock::<Arc<Shared>>::new());
    for mut job in jobs {
        if !runs(&job) {
            // Never run (a misjudged one would run here, on the printing thread).
            trials.push(job);
            continue;
        }
        let turn = works.len();
        let shared_at = Arc::clone(&shared_at);
        let runner: Work = Box::new(move || match shared_at.get() {
            Some(shared) => shared.take(turn),
            None => Err(Failed::from("the run's workers were not started")),
        });
        works.push(Mutex::new(Some(job.replace_work(runner))));
        trials.push(job);
    }
    let shared = Arc::new(Shared {
        works,
        next: AtomicUsize::new(0),
        state: Mutex::new(State {
            results: (0..turns).map(|_| None).collect(),
            taken: 0,
            printer_waits: false,
            workers_wait: 0,
            stop: false,
        }),
        ready: Condvar::new(),
        room: Condvar::new(),
    });
    let _ = shared_at.set(Arc::clone(&shared));
    (trials, Some(Ahead { shared, threads }))
}

impl Ahead {
    /// Runs `print` (the printing thread's loop) with the workers beside it.
    pub(crate) fn run_beside<R>(self, print: impl FnOnce() -> R) -> R {
        std::thread::scope(|scope| {
            for _ in 1..self.threads {
                // As much stack as the printing (main) thread has: a case read at the deepest
                // nesting goldgate reads (`JSON_DEPTH`) scores on either alike.
                let worker = std::thread::Builder::new().stack_size(WORKER_STACK);
                if worker
                    .spawn_scoped(scope, || while self.shared.work_one(false) {})
                    .is_err()
                {
                    // No thread to be had: the printing thread works through the turns alone.
                    break;
                }
            }
            let out = print();
            // Whatever the printing thread did not take, the workers leave.
            let mut state = self.shared.lock();
            state.stop = true;
            drop(state);
            self.shared.room.notify_all();
            out
        })
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes the next turn, waits while it is too far ahead (a worker; the printing thread only
    /// takes a turn within the window), works, leaves the result. False when no turn is left.
    fn work_one(&self, printer: bool) -> bool {
        let turn = if printer {
            // Claimed only if within the window: the printing thread must not wait on itself.
            let state = self.lock();
            let limit = (state.taken + WINDOW).min(self.works.len());
            drop(state);
            let claimed = self
                .next
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |next| {
                    (next < limit).then_some(next + 1)
                });
            match claimed {
                Ok(turn) => turn,
                Err(_) => return false,
            }
        } else {
            self.next.fetch_add(1, Ordering::Relaxed)
        };
        if turn >= self.works.len() {
            return false;
        }
        {
            let mut state = self.lock();
            while turn >= state.taken + WINDOW && !state.stop {
                state.workers_wait += 1;
                state = self.room.wait(state).unwrap_or_else(|e| e.into_inner());
                state.workers_wait -= 1;
            }
            if state.stop {
                return false;
            }
        }
        let work = self.works[turn]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        let result = match work {
            Some(work) => catch_unwind(AssertUnwindSafe(work))
                .unwrap_or_else(|payload| Err(Failed::from(libtest::panic_message(&*payload)))),
            None => Err(Failed::from("this test's work was taken twice")),
        };
        let mut state = self.lock();
        state.results[turn] = Some(result);
        if state.printer_waits {
            self.ready.notify_one();
        }
        true
    }

    /// The printing thread: the result of `turn`, waiting for it if the workers are behind.
    fn take(&self, turn: usize) -> Result<Completion, Failed> {
        let mut state = self.lock();
        loop {
            if let Some(result) = state.results[turn].take() {
                state.taken = state.taken.max(turn + 1);
                // Workers wake by the quarter window, not at every test.
                if state.workers_wait > 0 && state.taken.is_multiple_of(WINDOW / 4) {
                    self.room.notify_all();
                }
                return result;
            }
            // Not in yet: work on the next turn meanwhile, if there is one.
            drop(state);
            if self.work_one(true) {
                state = self.lock();
                continue;
            }
            state = self.lock();
            if state.results[turn].is_some() {
                continue;
            }
            // Before sleeping, no worker may be left asleep: the result may be one it holds back.
            if state.workers_wait > 0 {
                self.room.notify_all();
            }
            state.printer_waits = true;
            state = self.ready.wait(state).unwrap_or_else(|e| e.into_inner());
            state.printer_waits = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// Jobs that count their runs; every 50th fails with its number, every 7th takes a while.
    fn jobs(n: usize, runs: &Arc<Vec<AtomicUsize>>) -> Vec<Job> {
        (0..n)
            .map(|i| {
                let runs = Arc::clone(runs);
                Job::new(format!("t{i:04}"), move || {
                    runs[i].fetch_add(1, Ordering::Relaxed);
                    if i % 7 == 0 {
                        std::thread::sleep(std::time::Duration::from_micros(200));
                    }
                    if i % 50 == 0 {
                        return Err(Failed::from(format!("f{i}")));
                    }
                    Ok(Completion::Completed)
                })
            })
            .collect()
    }

    #[test]
    fn every_test_is_worked_on_once_and_taken_in_its_turn() {
        for threads in [2, 3, 8] {
            let n = 700;
            let runs: Arc<Vec<AtomicUsize>> =
                Arc::new((0..n).map(|_| AtomicUsize::new(0)).collect());
            let (trials, ahead) = plan(&Arguments::default(), jobs(n, &runs), threads);
            assert_eq!(trials.len(), n);
            let ahead = ahead.expect("workers for a run of many tests");
            let shared = Arc::clone(&ahead.shared);
            let outcomes: Vec<Result<Completion, Failed>> =
                ahead.run_beside(|| (0..n).map(|turn| shared.take(turn)).collect());
            for (i, outcome) in outcomes.iter().enumerate() {
                match outcome {
                    Err(failed) => {
                        assert_eq!(failed.message(), Some(format!("f{i}").as_str()));
                    }
                    Ok(_) => assert_ne!(i % 50, 0, "{i}"),
                }
            }
            assert!(
                runs.iter().all(|r| r.load(Ordering::Relaxed) == 1),
                "{threads}"
            );
            // No result waits in memory once taken, and none was left.
            assert!(shared.lock().results.iter().all(Option::is_none));
        }
    }

    #[test]
    fn a_panic_fails_its_own_test_and_the_run_goes_on() {
        let jobs: Vec<Job> = (0..10)
            .map(|i| {
                Job::new(format!("t{i}"), move || {
                    if i == 4 {
                        panic!("boom {i}");
                    }
                    Ok(Completion::Completed)
                })
            })
            .collect();
        let (_, ahead) = plan(&Arguments::default(), jobs, 2);
        let ahead = ahead.unwrap();
        let shared = Arc::clone(&ahead.shared);
        let outcomes: Vec<_> = ahead.run_beside(|| (0..10).map(|t| shared.take(t)).collect());
        let failed: Vec<usize> = (0..10).filter(|&i| outcomes[i].is_err()).collect();
        assert_eq!(failed, [4]);
        let Err(f) = &outcomes[4] else { panic!() };
        assert_eq!(f.message(), Some("test panicked: boom 4"));
    }

    #[test]
    fn tests_that_libtest_will_not_run_are_not_worked_on() {
        let n = 120;
        let runs: Arc<Vec<AtomicUsize>> = Arc::new((0..n).map(|_| AtomicUsize::new(0)).collect());
        let jobs: Vec<Job> = jobs(n, &runs)
            .into_iter()
            .enumerate()
            .map(|(i, j)| j.with_ignored_flag(i % 3 == 0))
            .collect();
        let args = Arguments {
            filter: Some("t00".into()),
            ..Arguments::default()
        };
        let (trials, ahead) = plan(&args, jobs, 2);
        assert_eq!(trials.len(), n);
        let ahead = ahead.unwrap();
        // t0000..t0099 pass the filter; one in three of them is ignored.
        let turns: Vec<usize> = (0..100).filter(|i| i % 3 != 0).collect();
        assert_eq!(ahead.shared.works.len(), turns.len());
        let shared = Arc::clone(&ahead.shared);
        ahead.run_beside(|| {
            for turn in 0..turns.len() {
                let _ = shared.take(turn);
            }
        });
        for (i, r) in runs.iter().enumerate() {
            let expected = usize::from(i < 100 && i % 3 != 0);
            assert_eq!(r.load(Ordering::Relaxed), expected, "t{i:04}");
        }
    }

    #[test]
    fn one_thread_or_one_test_has_no_workers() {
        let runs: Arc<Vec<AtomicUsize>> = Arc::new((0..5).map(|_| AtomicUsize::new(0)).collect());
        assert!(plan(&Arguments::default(), jobs(5, &runs), 1).1.is_none());
        let exact = Arguments {
            filter: Some("t0003".into()),
            exact: true,
            ..Arguments::default()
        };
        assert!(plan(&exact, jobs(5, &runs), 4).1.is_none());
    }
}
