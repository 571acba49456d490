//! Every attempt of a request, kept for its error: which node each attempt went to, what it
//! answered and how long it took ([`Attempt`]).
//!
//! The scylla driver returns the error of a request's *last* attempt only: with two of three
//! nodes down, its default retry policy retries a coordinator's `Unavailable` on the next node
//! of the plan, whose pool is broken, and the request fails with "No connections in the pool"
//! instead of the server's answer. cassmodel keeps the attempts through the hooks the driver
//! offers rather than routing requests itself (the driver's routing, shard awareness,
//! reconnection and retry decisions stay the driver's):
//!
//! - [`RecordingPolicy`] wraps the load-balancing policy: the driver calls its
//!   `on_request_failure` with the node and the attempt's latency when an attempt fails;
//! - [`RecordingRetry`] wraps the default retry policy: the driver creates its session on a
//!   request's first failed attempt only and asks it, right after `on_request_failure`, what
//!   to do; it keeps the attempt (node, latency, error) and makes the default decision;
//! - when the request ends, the driver drops the retry session, in the same poll that returns
//!   the request's error to cassmodel: the session leaves its attempts in a thread-local slot
//!   (tagged with the tokio task), which [`take`] empties when that error is wrapped
//!   ([`Error::execute`](crate::Error)).
//!
//! A request that succeeds costs a load of a thread-local flag (`pick`: whether the slot
//! holds anything to clear) and of a global count (`on_request_success`: whether any request
//! of the process has a retry session, which only then needs to know of the success), and
//! nothing else; only failed attempts are kept (BENCHMARKS.md, issue 36: no cost the machine
//! resolves, no allocation; issue 29: the two writes it made before, 108 instructions per
//! request, counted with `benches/callgrind_ops.sh`).
//!
//! Not covered: the pages after the first of a `fetch_stream` (the driver's pager fetches
//! them in a task of its own, whose attempts cannot reach the stream's error), and a `Db` made
//! from a session of the caller's (`Db::new`), which has the caller's policies: their errors
//! have no attempts, and their kind is the driver's last error's. The driver's history listener
//! (`HistoryListener`) would give the same facts, but it is set per statement and would need
//! a listener per request to tell requests apart; its `RequestId`s never reach the caller.

use std::cell::{Cell, RefCell};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use scylla::cluster::{ClusterState, NodeRef};

use crate::error::attempt::{Answer, Attempt};
use scylla::errors::RequestAttemptError;
use scylla::policies::load_balancing::{FallbackPlan, LoadBalancingPolicy, RoutingInfo};
use scylla::policies::retry::{
    DefaultRetrySession, RequestInfo, RetryDecision, RetryPolicy, RetrySession,
};
use scylla::routing::Shard;

/// What this thread knows of the requests it runs (see the module docs).
struct Slot {
    /// The node and latency of the attempt whose failure the driver just reported to the
    /// load-balancing policy, for the retry session it asks next.
    failed: Option<(SocketAddr, Option<String>, Duration)>,
    /// The task whose request just succeeded on this thread: its retry session, dropped next,
    /// keeps nothing.
    succeeded: Option<tokio::task::Id>,
    /// The attempts of the request that just ended, by its task.
    ended: Option<(Option<tokio::task::Id>, Vec<Attempt>)>,
}

impl Slot {
    /// Nothing known.
    const EMPTY: Slot = Slot {
        failed: None,
        succeeded: None,
        ended: None,
    };
}

thread_local! {
    // Initialized in place (`const`): no first-use check on each access.
    static SLOT: RefCell<Slot> = const { RefCell::new(Slot::EMPTY) };
    /// Whether `SLOT` may hold something: set by each write to it, cleared when `pick` empties
    /// it. A `Cell<bool>` has no destructor, so reading it is one load (the slot's accesses
    /// check the thread's state first, for its destructor).
    static WRITTEN: Cell<bool> = const { Cell::new(false) };
}

/// How many retry sessions ([`Recording`]) are alive in the process: a request that has
/// one had a failed attempt. A success is noted in the slot only while one is (the session
/// of a request that failed and then succeeded reads it when it is dropped); otherwise no
/// one would read it.
static RECORDING: AtomicUsize = AtomicUsize::new(0);

fn with_slot<R>(f: impl FnOnce(&mut Slot) -> R) -> Option<R> {
    let _ = WRITTEN.try_with(|w| w.set(true));
    SLOT.try_with(|s| f(&mut s.borrow_mut())).ok()
}

/// The attempts of the request that has just failed in this task, if it was run with
/// [`RecordingRetry`] (a request whose attempts all failed before one was sent has none).
/// Called where the request's error is wrapped, in the poll that returned it.
pub(crate) fn take() -> Vec<Attempt> {
    let task = tokio::task::try_id();
    with_slot(|s| match s.ended.take() {
        Some((t, attempts)) if t == task => attempts,
        _ => Vec::new(),
    })
    .unwrap_or_default()
}

/// The driver's default retry policy (`DefaultRetryPolicy`), keeping each failed attempt of a
/// request for its error.
#[derive(Debug)]
pub(crate) struct RecordingRetry;

impl RetryPolicy for RecordingRetry {
    fn new_session(&self) -> Box<dyn RetrySession> {
        // The default session held by value, not boxed again inside this box. The driver
        // asks for a session only when an attempt has failed.
        RECORDING.fetch_add(1, Ordering::Relaxed);
        Box::new(Recording {
            decide: DefaultRetrySession::new(),
            attempts: Vec::new(),
            retries: 0,
        })
    }
}

/// The retry session of one request: the default decisions, and the attempts seen.
struct Recording {
    decide: DefaultRetrySession,
    attempts: Vec<Attempt>,
    /// How many times the driver tried again.
    retries: usize,
}

impl RetrySession for Recording {
    fn decide_should_retry(&mut self, info: RequestInfo) -> RetryDecision {
        let error = info.error;
        let consistency = info.consistency;
        let decision = self.decide.decide_should_retry(info);
        let (node, datacenter, took) = with_slot(|s| {
            s.succeeded = None;
            s.failed.take()
        })
        .flatten()
        .map_or((None, None, None), |(n, dc, t)| (Some(n), dc, Some(t)));
        let retried = matches!(
            decision,
            RetryDecision::RetrySameTarget(_) | RetryDecision::RetryNextTarget(_)
        );
        tracing::debug!(
            node = %node.map(|n| n.to_string()).unwrap_or_default(),
            ?consistency,
            took_ms = took.map_or(0.0, |t| t.as_secs_f64() * 1000.0),
            ?decision,
            error = %error,
            "a request's attempt failed"
        );
        if retried {
            // The request's span (`session/trace.rs`), entered while the driver runs it.
            self.retries += 1;
            tracing::Span::current().record("retries", self.retries);
        }
        if let Some(node) = node {
            self.attempts.push(Attempt {
                node,
                datacenter,
                answer: Answer::of(error),
                took,
                retried,
            });
        }
        decision
    }

    fn reset(&mut self) {
        self.decide.reset();
        self.attempts.clear();
        self.retries = 0;
    }
}

impl Drop for Recording {
    fn drop(&mut self) {
        RECORDING.fetch_sub(1, Ordering::Relaxed);
        let task = tokio::task::try_id();
        let attempts = std::mem::take(&mut self.attempts);
        with_slot(|s| {
            let succeeded = s.succeeded.take().is_some_and(|t| Some(t) == task);
            s.ended = (!succeeded && !attempts.is_empty()).then_some((task, attempts));
        });
    }
}

/// A load-balancing policy (the driver's default one, as configured) that tells
/// [`RecordingRetry`] which node each failed attempt went to.
#[derive(Debug)]
pub(crate) struct RecordingPolicy(pub(crate) std::sync::Arc<dyn LoadBalancingPolicy>);

impl LoadBalancingPolicy for RecordingPolicy {
    fn pick<'a>(
        &'a self,
        request: &'a RoutingInfo,
        cluster: &'a ClusterState,
    ) -> Option<(NodeRef<'a>, Option<Shard>)> {
        // A request starts: what this thread kept of earlier requests is stale.
        if WRITTEN.try_with(Cell::get).unwrap_or(false) {
            with_slot(|s| *s = Slot::EMPTY);
            let _ = WRITTEN.try_with(|w| w.set(false));
        }
        self.0.pick(request, cluster)
    }

    fn fallback<'a>(
        &'a self,
        request: &'a RoutingInfo,
        cluster: &'a ClusterState,
    ) -> FallbackPlan<'a> {
        self.0.fallback(request, cluster)
    }

    fn on_request_success(&self, request: &RoutingInfo, latency: Duration, node: NodeRef<'_>) {
        // A request with a retry session made it in an earlier poll of this task: the count
        // it raised is seen here (a task's polls are ordered, on whichever thread).
        if RECORDING.load(Ordering::Relaxed) > 0 {
            with_slot(|s| s.succeeded = tokio::task::try_id());
        }
        self.0.on_request_success(request, latency, node);
    }

    fn on_request_failure(
        &self,
        request: &RoutingInfo,
        latency: Duration,
        node: NodeRef<'_>,
        error: &RequestAttemptError,
    ) {
        let addr = SocketAddr::new(node.address.ip(), node.address.port());
        with_slot(|s| s.failed = Some((addr, node.datacenter.clone(), latency)));
        self.0.on_request_failure(request, latency, node, error);
    }

    fn name(&self) -> String {
        self.0.name()
    }
}
