//! What every check is given ([`Env`]) and what it gives back ([`Outcome`]).

use cassmodel::{ConnectOptions, Replication};
use cassmodel_node::NodeConfig;

/// What one check found: a line of figures, and whether it passed.
pub struct Outcome {
    /// The check's name.
    pub name: &'static str,
    /// Passed?
    pub ok: bool,
    /// Its figures, one line.
    pub figures: String,
}

/// Everything a check needs.
pub struct Env {
    /// The node the checks signal (pause, crash).
    pub node: NodeConfig,
    /// Every node of the cluster (the single node alone without `--cluster`).
    pub nodes: Vec<NodeConfig>,
    /// The settings of the environment, with the node's contact point.
    pub options: ConnectOptions,
    /// The keyspace of this run.
    pub keyspace: String,
    /// Operations per task of the load check.
    pub ops_per_task: usize,
    /// The replication of the keyspaces the checks create.
    pub replication: Replication,
}
