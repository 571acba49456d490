//! User-defined functions and aggregates declared in the models (`#[derive(CassFunction)]`,
//! `#[derive(CassAggregate)]`): what the derive generates, and their DDL.

#[cfg(feature = "migrate")]
use std::fmt::Write as _;

use cassmodel_schema::CqlType;
#[cfg(feature = "migrate")]
use cassmodel_schema::quote_ident;

/// A user-defined function: `CREATE FUNCTION name (params) .. RETURNS type LANGUAGE .. AS ..`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FunctionSchema {
    /// The Rust struct that declares it.
    pub rust_name: &'static str,
    /// The CQL name (unquoted).
    pub name: &'static str,
    /// The keyspace it is declared in, if the struct names one (else the default).
    pub keyspace: Option<&'static str>,
    /// Its parameters: CQL name and type, in order.
    pub params: Vec<(&'static str, CqlType)>,
    /// What it returns.
    pub returns: CqlType,
    /// `java` (Cassandra 5.0 runs no other language).
    pub language: &'static str,
    /// Its body, as the server keeps it.
    pub body: &'static str,
    /// `CALLED ON NULL INPUT` (else `RETURNS NULL ON NULL INPUT`: a null argument gives null
    /// without running the body).
    pub called_on_null_input: bool,
}

/// A user-defined aggregate: `CREATE AGGREGATE name (types) SFUNC .. STYPE .. [FINALFUNC ..]
/// [INITCOND ..]`. Its functions are declared in the models too.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AggregateSchema {
    /// The Rust struct that declares it.
    pub rust_name: &'static str,
    /// The CQL name (unquoted).
    pub name: &'static str,
    /// The keyspace it is declared in, if the struct names one (else the default).
    pub keyspace: Option<&'static str>,
    /// The types of its arguments, in order.
    pub params: Vec<CqlType>,
    /// The state function: called with the state and each row's arguments.
    pub state_function: &'static FunctionSchema,
    /// The final function, called with the last state, if one.
    pub final_function: Option<&'static FunctionSchema>,
    /// The initial state as a CQL literal (`INITCOND`), if one (else null).
    pub initial: Option<&'static str>,
}

impl FunctionSchema {
    /// A function of `params` returning `returns`, in Java, returning null on null input, in
    /// the default keyspace. Called by the derive.
    pub fn new(
        rust_name: &'static str,
        name: &'static str,
        params: Vec<(&'static str, CqlType)>,
        returns: CqlType,
        body: &'static str,
    ) -> Self {
        FunctionSchema {
            rust_name,
            name,
            keyspace: None,
            params,
            returns,
            language: "java",
            body,
            called_on_null_input: false,
        }
    }

    /// In keyspace `keyspace`.
    pub fn with_keyspace(mut self, keyspace: &'static str) -> Self {
        self.keyspace = Some(keyspace);
        self
    }

    /// In language `language`.
    pub fn with_language(mut self, language: &'static str) -> Self {
        self.language = language;
        self
    }

    /// `CALLED ON NULL INPUT`: the body runs when an argument is null.
    pub fn called_on_null_input(mut self) -> Self {
        self.called_on_null_input = true;
        self
    }
}

impl AggregateSchema {
    /// An aggregate of `params` with state function `state_function`, in the default
    /// keyspace. Called by the derive.
    pub fn new(
        rust_name: &'static str,
        name: &'static str,
        params: Vec<CqlType>,
        state_function: &'static FunctionSchema,
    ) -> Self {
        AggregateSchema {
            rust_name,
            name,
            keyspace: None,
            params,
            state_function,
            final_function: None,
            initial: None,
        }
    }

    /// In keyspace `keyspace`.
    pub fn with_keyspace(mut self, keyspace: &'static str) -> Self {
        self.keyspace = Some(keyspace);
        self
    }

    /// With final function `f`.
    pub fn with_final(mut self, f: &'static FunctionSchema) -> Self {
        self.final_function = Some(f);
        self
    }

    /// With the initial state `literal` (a CQL literal: `(0, 0)`, `0`, `{}`).
    pub fn with_initial(mut self, literal: &'static str) -> Self {
        self.initial = Some(literal);
        self
    }

    /// The state's type: the state function's first parameter and its result.
    pub fn state_type(&self) -> &CqlType {
        &self.state_function.returns
    }

    /// What it returns: the final function's result, or the state.
    pub fn returns(&self) -> &CqlType {
        self.final_function
            .map_or(self.state_type(), |f| &f.returns)
    }

    /// Its functions: the state function, then the final one.
    pub fn functions(&self) -> impl Iterator<Item = &'static FunctionSchema> {
        std::iter::once(self.state_function).chain(self.final_function)
    }
}

/// A function or an aggregate, as the registry and [`Models`](crate::migrate::Models) hold
/// them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserFunction {
    /// `#[derive(CassFunction)]`.
    Function(&'static FunctionSchema),
    /// `#[derive(CassAggregate)]`.
    Aggregate(&'static AggregateSchema),
}

impl UserFunction {
    /// The CQL name.
    pub fn name(&self) -> &'static str {
        match self {
            UserFunction::Function(f) => f.name,
            UserFunction::Aggregate(a) => a.name,
        }
    }

    /// The declared keyspace, if any.
    pub fn keyspace(&self) -> Option<&'static str> {
        match self {
            UserFunction::Function(f) => f.keyspace,
            UserFunction::Aggregate(a) => a.keyspace,
        }
    }

    /// The Rust struct that declares it.
    pub fn rust_name(&self) -> &'static str {
        match self {
            UserFunction::Function(f) => f.rust_name,
            UserFunction::Aggregate(a) => a.rust_name,
        }
    }
}

/// `name(int, bigint)`: how messages name a function or aggregate (one name may have several
/// signatures).
#[cfg(feature = "migrate")]
pub fn signature(name: &str, types: impl IntoIterator<Item = impl std::fmt::Display>) -> String {
    let types: Vec<String> = types.into_iter().map(|t| t.to_string()).collect();
    format!("{name}({})", types.join(", "))
}

/// `CREATE [OR REPLACE] FUNCTION [IF NOT EXISTS] ks.name (a int, b bigint) RETURNS NULL ON
/// NULL INPUT RETURNS float LANGUAGE java AS $$..$$`.
#[cfg(feature = "migrate")]
pub(crate) fn create_function(f: &FunctionSchema, keyspace: &str, replace: bool) -> String {
    let params: Vec<String> = f
        .params
        .iter()
        .map(|(n, t)| format!("{} {t}", quote_ident(n)))
        .collect();
    let mut s = create_head("FUNCTION", keyspace, f.name, replace);
    let _ = write!(
        s,
        " ({}) {} RETURNS {} LANGUAGE {} AS {}",
        params.join(", "),
        if f.called_on_null_input {
            "CALLED ON NULL INPUT"
        } else {
            "RETURNS NULL ON NULL INPUT"
        },
        f.returns,
        f.language,
        body_literal(f.body)
    );
    s
}

/// `CREATE [OR REPLACE] AGGREGATE [IF NOT EXISTS] ks.name (int) SFUNC s STYPE t [FINALFUNC f]
/// [INITCOND c]`.
#[cfg(feature = "migrate")]
pub(crate) fn create_aggregate(a: &AggregateSchema, keyspace: &str, replace: bool) -> String {
    let params: Vec<String> = a.params.iter().map(ToString::to_string).collect();
    let mut s = create_head("AGGREGATE", keyspace, a.name, replace);
    let _ = write!(
        s,
        " ({}) SFUNC {} STYPE {}",
        params.join(", "),
        quote_ident(a.state_function.name),
        a.state_type()
    );
    if let Some(f) = a.final_function {
        let _ = write!(s, " FINALFUNC {}", quote_ident(f.name));
    }
    if let Some(init) = a.initial {
        let _ = write!(s, " INITCOND {init}");
    }
    s
}

#[cfg(feature = "migrate")]
fn create_head(what: &str, keyspace: &str, name: &str, replace: bool) -> String {
    let how = if replace {
        format!("CREATE OR REPLACE {what}")
    } else {
        format!("CREATE {what} IF NOT EXISTS")
    };
    format!("{how} {}.{}", quote_ident(keyspace), quote_ident(name))
}

/// A function's body as a CQL literal: `$$..$$`, or a quoted string when the body holds `$$`.
#[cfg(feature = "migrate")]
fn body_literal(body: &str) -> String {
    if body.contains("$$") {
        format!("'{}'", body.replace('\'', "''"))
    } else {
        format!("$${body}$$")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cassmodel_schema::NativeType;

    fn ratio() -> &'static FunctionSchema {
        Box::leak(Box::new(FunctionSchema {
            rust_name: "RatingRatio",
            name: "rating_ratio",
            keyspace: None,
            params: vec![
                ("count", CqlType::Native(NativeType::Int)),
                ("total", CqlType::Native(NativeType::Bigint)),
            ],
            returns: CqlType::Native(NativeType::Float),
            language: "java",
            body: "return (float) total / count;",
            called_on_null_input: false,
        }))
    }

    #[test]
    fn a_function_is_created_with_its_signature_and_body() {
        assert_eq!(
            create_function(ratio(), "shop", false),
            "CREATE FUNCTION IF NOT EXISTS shop.rating_ratio (count int, total bigint) RETURNS \
             NULL ON NULL INPUT RETURNS float LANGUAGE java AS $$return (float) total / count;$$"
        );
        let mut f = ratio().clone();
        f.body = "return \"$$\" + 'x';";
        assert!(create_function(&f, "shop", true).ends_with("AS 'return \"$$\" + ''x'';'"));
    }

    #[test]
    fn an_aggregate_names_its_functions_and_initial_state() {
        let a = AggregateSchema {
            rust_name: "Mean",
            name: "mean",
            keyspace: None,
            params: vec![CqlType::Native(NativeType::Int)],
            state_function: ratio(),
            final_function: None,
            initial: Some("0"),
        };
        assert_eq!(
            create_aggregate(&a, "shop", false),
            "CREATE AGGREGATE IF NOT EXISTS shop.mean (int) SFUNC rating_ratio STYPE float \
             INITCOND 0"
        );
    }
}
