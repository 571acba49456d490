//! Long work shown on stderr while it runs: on a terminal, one line redrawn in place
//! (indicatif: a bar when the work has a known length, else a spinner); otherwise (a log, a
//! pipe, CI) plain lines, one every 10 seconds at most unless a line must be seen.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use cassmodel_runtime::migrate::Progress;

/// How often a plain line is written for work that goes on.
pub(crate) const PLAIN_EVERY: Duration = Duration::from_secs(10);

/// One piece of long work on stderr.
pub(crate) struct Shown {
    bar: Option<indicatif::ProgressBar>,
    /// When the last plain line was written.
    last_line: Mutex<Instant>,
}

impl Shown {
    /// A bar (`template`, indicatif's) on a terminal, else plain lines; the first plain line
    /// after [`PLAIN_EVERY`] unless one must be seen.
    pub(crate) fn new(template: &str) -> Self {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = indicatif::ProgressBar::new(0);
            let style = indicatif::ProgressStyle::with_template(template)
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                .progress_chars("=> ");
            bar.set_style(style);
            bar.enable_steady_tick(Duration::from_millis(500));
            bar
        });
        Shown {
            bar,
            last_line: Mutex::new(Instant::now()),
        }
    }

    /// Shows `message` at `position` of `length` (when the work has a length); without a
    /// terminal, writes `line()` when `must` or when the last line is old enough.
    pub(crate) fn show(
        &self,
        position: Option<(u64, u64)>,
        message: String,
        must: bool,
        line: impl FnOnce() -> String,
    ) {
        match &self.bar {
            Some(bar) => {
                if let Some((pos, len)) = position {
                    bar.set_length(len);
                    bar.set_position(pos);
                }
                bar.set_message(message);
            }
            None => {
                let Ok(mut last) = self.last_line.lock() else {
                    return;
                };
                if must || last.elapsed() >= PLAIN_EVERY {
                    *last = Instant::now();
                    eprintln!("{}", line());
                }
            }
        }
    }

    /// Takes the line off the terminal.
    pub(crate) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }

    /// `apply`'s and `analyze --live --count-rows`'s reports: each step a line, an index
    /// build and a count every 10 seconds.
    pub(crate) fn report(&self, p: &Progress) {
        match p {
            Progress::Step {
                n,
                total,
                description,
            } => {
                let text = format!("step {n}/{total}: {description}");
                let position = Some((*n as u64, *total as u64));
                self.show(position, text.clone(), true, || text);
            }
            Progress::IndexBuilding {
                keyspace,
                index,
                waited,
                limit,
            } => {
                let text = format!(
                    "index {keyspace}.{index} building: waited {} s of at most {} s",
                    waited.as_secs(),
                    limit.as_secs()
                );
                self.show(None, text.clone(), false, || text);
            }
            Progress::Scanned {
                table,
                partitions,
                rows,
            } => {
                let text = format!("{table}: {partitions} partitions, {rows} rows counted");
                self.show(None, text.clone(), false, || text);
            }
            Progress::Ranges { table, done, total } => {
                let text = format!("{table}: {done}/{total} ranges checked");
                let position = Some((u64::from(*done), u64::from(*total)));
                self.show(position, text.clone(), *done == *total, || text);
            }
            // A kind of report this tool does not know yet: nothing to show.
            _ => {}
        }
    }
}
