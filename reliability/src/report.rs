//! The figures of a run, as a section of RELIABILITY.md.

use std::path::Path;

use crate::env::Outcome;

/// Replaces the section of `target` ("single node" or "three-node cluster") between its
/// begin and end markers in `path` (appends it if absent, creates the file if missing) with a
/// table of `outcomes`.
pub fn write_section(
    path: &Path,
    target: &str,
    command: &str,
    outcomes: &[Outcome],
) -> std::io::Result<()> {
    let begin = format!("<!-- chaos: {target}, begin (written by `{command}`) -->");
    let end = format!("<!-- chaos: {target}, end -->");
    let old = match std::fs::read_to_string(path) {
        Ok(s) => s,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::from("# Reliability\n"),
        Err(e) => return Err(e),
    };
    let mut section = format!(
        "{begin}\n\nLast run: `{command}` (a debug build) on the project's {target}, on a \
         machine with {} CPUs shared with the nodes; load average at the end {}.\n\n\
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
    section.push_str(&end);
    // The begin marker is found without its command, which may differ between runs.
    let begin_prefix = format!("<!-- chaos: {target}, begin");
    let new = match (old.find(&begin_prefix), old.find(&end)) {
        (Some(b), Some(e)) if b < e => format!("{}{section}{}", &old[..b], &old[e + end.len()..]),
        _ => format!("{}\n{section}\n", old.trim_end()),
    };
    std::fs::write(path, new)
}
