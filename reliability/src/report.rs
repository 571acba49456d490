//! The figures of a run, as a section of RELIABILITY.md.

use std::path::Path;

use crate::Outcome;

const BEGIN: &str = "<!-- chaos: single node, begin (written by `cargo xtask chaos`) -->";
const END: &str = "<!-- chaos: single node, end -->";

/// Replaces the section between [`BEGIN`] and [`END`] in `path` (appends it if absent,
/// creates the file if missing) with a table of `outcomes`.
pub fn write_section(path: &Path, outcomes: &[Outcome]) -> std::io::Result<()> {
    let old = match std::fs::read_to_string(path) {
        Ok(s) => s,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::from("# Reliability\n"),
        Err(e) => return Err(e),
    };
    let mut section = format!(
        "{BEGIN}\n\nLast run: `cargo xtask chaos` (a debug build) on the project's single \
         node, on a machine with {} CPUs shared with the node; load average at the end {}.\n\n\
         | check | result | figures |\n|---|---|---|\n",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        cassmodel_node::load_average()
    );
    for o in outcomes {
        section.push_str(&format!(
            "| {} | {} | {} |\n",
            o.name,
            if o.ok { "ok" } else { "FAILED" },
            o.figures.replace('|', "\\|")
        ));
    }
    section.push('\n');
    section.push_str(END);
    let new = match (old.find(BEGIN), old.find(END)) {
        (Some(b), Some(e)) if b < e => format!("{}{section}{}", &old[..b], &old[e + END.len()..]),
        _ => format!("{}\n{section}\n", old.trim_end()),
    };
    std::fs::write(path, new)
}
