//! One measured run, the same for every side: the bench's two and the charybdis peer (which
//! includes this file). Only `futures`, `tokio`, `cpu-time` and `stats_alloc`.

use std::alloc::System;
use std::time::{Duration, Instant};

use cpu_time::ProcessTime;
use futures::StreamExt;
use stats_alloc::StatsAlloc;

/// What one run measured of its process.
pub struct Measured {
    pub ops: usize,
    pub cpu: Duration,
    pub wall: Duration,
    /// Heap allocations and reallocations.
    pub allocs: usize,
}

/// Starts `op(0)`, `op(1)`, ... with `concurrency` in flight for `slice` of wall time (paced
/// at `rate` per second if set: operation `i` starts no earlier than `i / rate` seconds in),
/// then lets the ones in flight finish; each must return `expected` (its rows). `alloc` is
/// the process's counting allocator.
pub async fn measure<F, Fut>(
    alloc: &StatsAlloc<System>,
    concurrency: usize,
    rate: Option<f64>,
    slice: Duration,
    expected: usize,
    op: F,
) -> Measured
where
    F: Fn(usize) -> Fut,
    Fut: Future<Output = usize>,
{
    let allocations = || {
        let s = alloc.stats();
        s.allocations + s.reallocations
    };
    let before = allocations();
    let cpu = ProcessTime::now();
    let wall = Instant::now();
    let deadline = wall + slice;
    let mut ops = 0usize;
    if concurrency <= 1 {
        while Instant::now() < deadline {
            assert_eq!(op(ops).await, expected);
            ops += 1;
        }
    } else {
        let pace = move |i: usize| {
            let due = rate.map(|r| wall + Duration::from_secs_f64(i as f64 / r));
            async move {
                if let Some(due) = due
                    && due > Instant::now() + Duration::from_millis(1)
                {
                    tokio::time::sleep_until(due.into()).await;
                }
                i
            }
        };
        futures::stream::iter((0..).take_while(|_| Instant::now() < deadline))
            .then(pace)
            .map(&op)
            .buffer_unordered(concurrency)
            .for_each(|rows| {
                assert_eq!(rows, expected);
                ops += 1;
                async {}
            })
            .await;
    }
    let cpu = cpu.elapsed();
    Measured {
        ops,
        cpu,
        wall: wall.elapsed(),
        allocs: allocations() - before,
    }
}
