//! Finding a Java that Cassandra 5.0 runs on (11 or 17; never the `java` on PATH blindly).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::error::NodeError;

/// Where Linux distributions install JDKs.
const JVM_ROOT: &str = "/usr/lib/jvm";

/// A checked Java installation.
#[derive(Debug, Clone)]
pub(crate) struct Java {
    /// The Java home.
    pub home: PathBuf,
    /// `<home>/bin/java`.
    pub bin: PathBuf,
    /// The feature version (11 or 17).
    pub major: u32,
    /// The modules this runtime has (`java --list-modules`), to pass only valid `--add-opens`.
    pub modules: BTreeSet<String>,
}

/// Finds Java: `explicit` (CASSMODEL_JAVA_HOME) if given, else `$JAVA_HOME` if it is 17 or 11,
/// else the JDKs under /usr/lib/jvm, preferring 17 to 11.
pub(crate) fn find_java(explicit: Option<&Path>) -> Result<Java, NodeError> {
    if let Some(home) = explicit {
        return match probe(home) {
            Ok(j) if supported(j.major) => Ok(j),
            Ok(j) => Err(NodeError::JavaUnsupported {
                home: home.to_path_buf(),
                detail: format!("it is Java {}", j.major),
            }),
            Err(detail) => Err(NodeError::JavaUnsupported {
                home: home.to_path_buf(),
                detail,
            }),
        };
    }

    let mut searched = Vec::new();
    if let Some(home) = std::env::var_os("JAVA_HOME").filter(|h| !h.is_empty()) {
        let home = PathBuf::from(home);
        searched.push(format!("JAVA_HOME={}", home.display()));
        if let Ok(j) = probe(&home)
            && j.major == 17
        {
            return Ok(j);
        }
    }

    searched.push(format!("{JVM_ROOT}/*"));
    let mut homes: Vec<PathBuf> = match std::fs::read_dir(JVM_ROOT) {
        Ok(rd) => rd
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.join("bin").join("java").is_file())
            .collect(),
        Err(_) => Vec::new(),
    };
    homes.sort();
    // Symbolic links (java-1.17.0-openjdk-amd64 -> java-17-openjdk-amd64) would be probed twice.
    let mut homes: Vec<PathBuf> = homes
        .into_iter()
        .map(|h| h.canonicalize().unwrap_or(h))
        .collect();
    homes.sort();
    homes.dedup();
    // Cheap pre-sort by name so that a 17 is usually found with the first probe.
    homes.sort_by_key(|h| {
        let name = h.file_name().map(|n| n.to_string_lossy().into_owned());
        let name = name.unwrap_or_default();
        if name.contains("-17") || name.contains("17-") {
            0
        } else if name.contains("-11") || name.contains("11-") {
            1
        } else {
            2
        }
    });
    let mut fallback_11 = None;
    for home in homes {
        if let Ok(j) = probe(&home) {
            if j.major == 17 {
                return Ok(j);
            }
            if j.major == 11 && fallback_11.is_none() {
                fallback_11 = Some(j);
            }
        }
    }
    if let Some(j) = fallback_11 {
        return Ok(j);
    }
    // A Java 11 in JAVA_HOME is still better than nothing.
    if let Some(home) = std::env::var_os("JAVA_HOME").filter(|h| !h.is_empty())
        && let Ok(j) = probe(Path::new(&home))
        && supported(j.major)
    {
        return Ok(j);
    }
    Err(NodeError::JavaNotFound {
        searched: searched.join(", "),
    })
}

fn supported(major: u32) -> bool {
    major == 11 || major == 17
}

/// Runs `<home>/bin/java -version` and `--list-modules`.
fn probe(home: &Path) -> Result<Java, String> {
    let bin = home.join("bin").join("java");
    if !bin.is_file() {
        return Err(format!("{} does not exist", bin.display()));
    }
    let out = Command::new(&bin)
        .arg("-version")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
    // `java -version` writes to stderr.
    let text = String::from_utf8_lossy(&out.stderr).into_owned();
    let major = parse_major(&text)
        .ok_or_else(|| format!("cannot read the version from `java -version`: {text:?}"))?;
    let modules = match Command::new(&bin)
        .arg("--list-modules")
        .stdin(Stdio::null())
        .output()
    {
        Ok(o) => String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter_map(|l| l.split('@').next())
            .map(|m| m.trim().to_owned())
            .filter(|m| !m.is_empty())
            .collect(),
        Err(_) => BTreeSet::new(),
    };
    Ok(Java {
        home: home.to_path_buf(),
        bin,
        major,
        modules,
    })
}

/// The feature version from `java -version` output: `openjdk version "17.0.15" 2025-04-15` gives
/// 17, `java version "1.8.0_392"` gives 8.
pub(crate) fn parse_major(text: &str) -> Option<u32> {
    let line = text.lines().find(|l| l.contains("version \""))?;
    let start = line.find('"')? + 1;
    let rest = &line[start..];
    let quoted = &rest[..rest.find('"')?];
    let mut parts = quoted.split(|c: char| !c.is_ascii_digit());
    let first: u32 = parts.next()?.parse().ok()?;
    if first == 1 {
        parts.next()?.parse().ok()
    } else {
        Some(first)
    }
}

#[cfg(test)]
mod tests {
    use super::parse_major;

    #[test]
    fn versions() {
        let j17 = "openjdk version \"17.0.15\" 2025-04-15\nOpenJDK Runtime Environment";
        assert_eq!(parse_major(j17), Some(17));
        assert_eq!(parse_major("openjdk version \"25\" 2025-09-16"), Some(25));
        assert_eq!(parse_major("java version \"1.8.0_392\""), Some(8));
        assert_eq!(parse_major("openjdk version \"11.0.2-ea\""), Some(11));
        assert_eq!(
            parse_major("Picked up JAVA_TOOL_OPTIONS: x\nopenjdk version \"21\""),
            Some(21)
        );
        assert_eq!(parse_major("garbage"), None);
    }
}
