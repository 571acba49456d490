//! The figures of a run, as a section of RELIABILITY.md and as rows of
//! `reliability/results/chaos.csv`.

use std::path::Path;

use crate::env::Outcome;

/// The run's date, commit and machine, and the CSV appending (std only, shared with xtask and
/// the benches; `include!`d because the workspace's architecture test reads `mod` items by their
/// file name only).
pub mod results {
    include!("../../xtask/src/results.rs");
}

/// The columns of `reliability/results/chaos.csv`: one row per check and recorded run.
const CSV_HEADER: [&str; 11] = [
    "date",
    "commit",
    "machine",
    "target",
    "check",
    "result",
    "seconds",
    "load_start",
    "load_end",
    "figures",
    "notes",
];

/// Replaces the section of `target` ("single node", "three-node cluster", ...) between its
/// begin and end markers in `path` (appends it if absent, creates the file if missing) with a
/// table of `outcomes`, and appends them, with the seconds each check took, to the CSV file
/// `csv` (`reliability/results/chaos.csv`). The markers are found wherever they are in the
/// file. `info`: the run's date, commit, machine and load when it started.
pub fn write_section(
    path: &Path,
    csv: &Path,
    info: &results::RunInfo,
    target: &str,
    command: &str,
    outcomes: &[Outcome],
    seconds: &[f64],
) -> std::io::Result<()> {
    let load = cassmodel_node::load_average();
    let begin = format!("<!-- chaos: {target}, begin (written by `{command}`) -->");
    let end = format!("<!-- chaos: {target}, end -->");
    let old = match std::fs::read_to_string(path) {
        Ok(s) => s,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::from("# Reliability\n"),
        Err(e) => return Err(e),
    };
    let mut section = format!(
        "{begin}\n\nLast run: {}, `{}`, `{command}` (a debug build) on the project's {target}, \
         on {} shared with the nodes; load average at the end {load}.\n\n\
         | check | result | figures |\n|---|---|---|\n",
        info.date,
        if info.commit.is_empty() {
            "commit unknown"
        } else {
            &info.commit
        },
        info.machine,
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
    std::fs::write(path, new)?;
    let load_end = load.split_whitespace().next().unwrap_or_default();
    let rows: Vec<Vec<String>> = outcomes
        .iter()
        .zip(seconds)
        .map(|(o, s)| {
            vec![
                info.date.clone(),
                info.commit.clone(),
                info.machine.clone(),
                target.to_owned(),
                o.name.to_owned(),
                if o.ok { "ok" } else { "FAILED" }.to_owned(),
                format!("{s:.1}"),
                info.load_start.clone(),
                load_end.to_owned(),
                o.figures.clone(),
                String::new(),
            ]
        })
        .collect();
    results::append_csv(csv, &CSV_HEADER, &rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_section_is_rewritten_where_it_is_and_its_rows_appended() {
        let dir = std::env::temp_dir().join(format!("chaos-report-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let (md, csv) = (dir.join("RELIABILITY.md"), dir.join("chaos.csv"));
        std::fs::write(
            &md,
            "# Reliability\n\nIntro.\n\n<!-- chaos: single node, begin (written by `x`) -->\nold \
             table\n<!-- chaos: single node, end -->\n\n## The checks\n\nText after.\n",
        )
        .expect("written");
        let info = results::RunInfo {
            date: "2026-12-03".into(),
            commit: "abc1234".into(),
            machine: "AMD EPYC, 2 cores".into(),
            load_start: "1.50".into(),
        };
        let outcomes = [Outcome {
            name: "load",
            ok: true,
            figures: "64 tasks, 0 lost | none".into(),
        }];
        write_section(
            &md,
            &csv,
            &info,
            "single node",
            "cargo xtask chaos",
            &outcomes,
            &[4.5],
        )
        .expect("writes");
        let text = std::fs::read_to_string(&md).expect("read");
        assert!(text.starts_with("# Reliability\n\nIntro.\n\n<!-- chaos: single node, begin"));
        assert!(
            text.ends_with("<!-- chaos: single node, end -->\n\n## The checks\n\nText after.\n")
        );
        assert!(!text.contains("old table"));
        assert!(text.contains("Last run: 2026-12-03, `abc1234`, `cargo xtask chaos`"));
        assert!(text.contains("| load | ok | 64 tasks, 0 lost \\| none |"));
        let rows = std::fs::read_to_string(&csv).expect("csv");
        assert!(rows.starts_with(
            "date,commit,machine,target,check,result,seconds,load_start,load_end,figures,notes\n"
        ));
        assert!(
            rows.contains("2026-12-03,abc1234,\"AMD EPYC, 2 cores\",single node,load,ok,4.5,1.50,")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
