//! The type parameters of a generated builder: how far its WHERE clause has got
//! ([`state`]) and what the statement does ([`kind`]).

/// Type-level states of a query's WHERE clause. A generated builder moves between them as
/// columns are restricted; a column method that does not fit the current state does not
/// compile, and the message says what to give first.
pub mod state {
    /// The first `N` key columns (partition key, then clustering columns, in declared order)
    /// are restricted by `=` or `IN`, and nothing else. `IN`: some partition-key column is
    /// restricted by `IN`. `REV`: the read is in reverse order (`reversed()`, `ORDER BY`).
    pub struct Key<const N: usize, const IN: bool = false, const REV: bool = false>;
    /// After `N` key columns by `=`/`IN`, a range on key column `N` with a lower bound (`LO`)
    /// and/or an upper bound (`HI`). Nothing may follow but the other bound. `IN` and `REV`
    /// as for [`Key`].
    pub struct Range<
        const N: usize,
        const LO: bool,
        const HI: bool,
        const IN: bool = false,
        const REV: bool = false,
    >;
    /// `ALLOW FILTERING`: any column by `=`, at the cost of a scan. Only reached through
    /// `select_allow_filtering()`.
    pub struct Filtering;
    /// An indexed (SAI) column is restricted: other indexed columns may follow, key columns
    /// may not (they come first). Readable with or without the partition key.
    pub struct Indexed;
    /// A vector search (`ann_<column>(..)`): `K` once it has a limit, which it needs to be
    /// read. Indexed columns may still be restricted; it is read in one request.
    pub struct Nearest<const K: bool>;

    // State transitions, implemented for every state so that a builder method's return type
    // always resolves; whether the method may be called at all is a separate, per-column
    // bound with its own message.

    /// The state after an `=`/`IN` restriction that leads to `X` from a key state.
    #[doc(hidden)]
    pub trait AfterEq<X> {
        /// The next state.
        type Next;
    }
    impl<const N: usize, const IN: bool, const REV: bool, X: Carry<IN, REV>> AfterEq<X>
        for Key<N, IN, REV>
    {
        type Next = X::Out;
    }
    impl<const N: usize, const LO: bool, const HI: bool, const IN: bool, const REV: bool, X>
        AfterEq<X> for Range<N, LO, HI, IN, REV>
    where
        X: Carry<IN, REV>,
    {
        type Next = X::Out;
    }
    impl<X> AfterEq<X> for Filtering {
        type Next = Filtering;
    }
    impl<X> AfterEq<X> for Indexed {
        type Next = Indexed;
    }

    /// `Key<M>` (or `Key<M, true>`, after `IN` on the partition key) with the `IN` and `REV`
    /// flags of the state before carried over.
    #[doc(hidden)]
    pub trait Carry<const IN: bool, const REV: bool> {
        /// The key state with the flags.
        type Out;
    }
    impl<const M: usize, const IN: bool, const REV: bool> Carry<IN, REV> for Key<M, false, false> {
        type Out = Key<M, IN, REV>;
    }
    impl<const M: usize, const IN: bool, const REV: bool> Carry<IN, REV> for Key<M, true, false> {
        type Out = Key<M, true, REV>;
    }

    /// The state after `=` on key column `N - 1`: `<S as AfterEq<Key<N>>>::Next`.
    #[doc(hidden)]
    pub type EqNext<S, const N: usize> = <S as AfterEq<Key<N>>>::Next;

    /// The state after `IN` on partition-key column `N - 1`.
    #[doc(hidden)]
    pub type InNext<S, const N: usize> = <S as AfterEq<Key<N, true>>>::Next;

    /// The state after a bound on key column `I`: `<S as AfterRange<I, UPPER>>::Next`.
    #[doc(hidden)]
    pub type RangeNext<S, const I: usize, const UPPER: bool> = <S as AfterRange<I, UPPER>>::Next;

    /// The state after a bound on key column `I`: a lower one (`UPPER = false`) or an upper
    /// one.
    #[doc(hidden)]
    pub trait AfterRange<const I: usize, const UPPER: bool> {
        /// The next state.
        type Next;
    }
    impl<const N: usize, const I: usize, const IN: bool, const REV: bool> AfterRange<I, false>
        for Key<N, IN, REV>
    {
        type Next = Range<I, true, false, IN, REV>;
    }
    impl<const N: usize, const I: usize, const IN: bool, const REV: bool> AfterRange<I, true>
        for Key<N, IN, REV>
    {
        type Next = Range<I, false, true, IN, REV>;
    }
    impl<
        const N: usize,
        const LO: bool,
        const HI: bool,
        const IN: bool,
        const REV: bool,
        const I: usize,
    > AfterRange<I, false> for Range<N, LO, HI, IN, REV>
    {
        type Next = Range<I, true, HI, IN, REV>;
    }
    impl<
        const N: usize,
        const LO: bool,
        const HI: bool,
        const IN: bool,
        const REV: bool,
        const I: usize,
    > AfterRange<I, true> for Range<N, LO, HI, IN, REV>
    {
        type Next = Range<I, LO, true, IN, REV>;
    }
    impl<const I: usize, const UPPER: bool> AfterRange<I, UPPER> for Filtering {
        type Next = Filtering;
    }
    impl<const I: usize, const UPPER: bool> AfterRange<I, UPPER> for Indexed {
        type Next = Indexed;
    }

    /// How a state moves on `reversed()` or `ORDER BY` (`Reversed`: the same with `REV` set),
    /// on a restriction of an indexed column (`Indexed`: [`Indexed`], or [`Filtering`] when
    /// filtering), and on `limit(n)` (`Limited`: the same, but a vector search now has its
    /// limit). One impl per state.
    #[doc(hidden)]
    pub trait Transitions {
        /// After `reversed()` or `ORDER BY`.
        type Reversed;
        /// After a restriction on an indexed column.
        type Indexed;
        /// After `limit(n)`.
        type Limited;
    }
    impl<const N: usize, const IN: bool, const REV: bool> Transitions for Key<N, IN, REV> {
        type Reversed = Key<N, IN, true>;
        type Indexed = Indexed;
        type Limited = Self;
    }
    impl<const N: usize, const LO: bool, const HI: bool, const IN: bool, const REV: bool>
        Transitions for Range<N, LO, HI, IN, REV>
    {
        type Reversed = Range<N, LO, HI, IN, true>;
        type Indexed = Indexed;
        type Limited = Self;
    }
    impl Transitions for Filtering {
        type Reversed = Filtering;
        type Indexed = Filtering;
        type Limited = Self;
    }
    impl Transitions for Indexed {
        type Reversed = Indexed;
        type Indexed = Indexed;
        type Limited = Self;
    }
    impl<const K: bool> Transitions for Nearest<K> {
        type Reversed = Nearest<K>;
        type Indexed = Nearest<K>;
        type Limited = Nearest<true>;
    }

    /// The state after `reversed()` or `ORDER BY`.
    #[doc(hidden)]
    pub type Reversed<S> = <S as Transitions>::Reversed;

    /// The state after a restriction on an indexed column.
    #[doc(hidden)]
    pub type IndexNext<S> = <S as Transitions>::Indexed;

    /// The state after `limit(n)`.
    #[doc(hidden)]
    pub type Limited<S> = <S as Transitions>::Limited;

    /// The states a vector search may start from: no key column, the partition key (and
    /// clustering columns after it), indexed columns. Whether the key is far enough is the
    /// table's own `__IndexBase`, with its messages.
    #[doc(hidden)]
    #[diagnostic::on_unimplemented(
        message = "a vector search (`ann_..`) cannot follow `select_allow_filtering()` or another vector search",
        label = "vector search here",
        note = "Cassandra: \"ANN ordering by vector requires all restricted column(s) to be \
                indexed\"; start from `select()`, restrict the partition key and indexed \
                columns, and order by one vector column"
    )]
    pub trait AnnBase {}
    #[diagnostic::do_not_recommend]
    impl<const N: usize, const IN: bool, const REV: bool> AnnBase for Key<N, IN, REV> {}
    #[diagnostic::do_not_recommend]
    impl<const N: usize, const LO: bool, const HI: bool, const IN: bool, const REV: bool> AnnBase
        for Range<N, LO, HI, IN, REV>
    {
    }
    #[diagnostic::do_not_recommend]
    impl AnnBase for Indexed {}

    /// The states of a vector search: the only ones with a similarity score.
    #[doc(hidden)]
    #[diagnostic::on_unimplemented(
        message = "the similarity score exists only in a vector search: call `.ann_<column>(..)` before `.with_score()`",
        label = "not a vector search",
        note = "the score is how near each row's vector is to the query vector; without a vector search, `.similarity_<field>(Similarity::Cosine, &query)` reads each row's similarity to `query`"
    )]
    pub trait AnnGiven {}

    /// Implemented by no state: the bound of `with_score` on the builder of a table `T`
    /// without a vector column, there to say why it has no score.
    #[doc(hidden)]
    #[diagnostic::on_unimplemented(
        message = "`{T}` has no vector column: `.with_score()` reads the similarity score of a vector search",
        label = "no vector search on this table",
        note = "a score comes with `.ann_<field>(&query)`, a vector search on a `Vector<N>` field with `#[cass(index)]`"
    )]
    pub trait ScoreNeedsVector<T> {}
    impl<const K: bool> AnnGiven for Nearest<K> {}

    /// The flags of a vector search with a limit (`Flags<K, _>`, `K` set by `limit(n)`): only
    /// those can be read.
    #[doc(hidden)]
    #[diagnostic::on_unimplemented(
        message = "a vector search needs a limit: add `.limit(k)` (at most 1000) before reading it",
        label = "vector search without `.limit(k)`",
        note = "Cassandra: \"Use of ANN OF in an ORDER BY clause requires a LIMIT that is not \
                greater than 1000\"; the limit is the number of nearest rows returned"
    )]
    pub trait HasLimit {}
    impl HasLimit for Flags<true, false> {}

    /// Refuses paging a vector search: implemented for no [`Flags`].
    #[doc(hidden)]
    #[diagnostic::on_unimplemented(
        message = "a vector search is read in one request: use `.fetch_all(..)` or `.fetch_first(..)`, not a paged read",
        label = "paged vector search",
        note = "Cassandra: \"Top-K queries must have a limit specified and the limit must be \
                less than the query page size\""
    )]
    pub trait Unpaged {}

    /// Refuses another ordering in a vector search: implemented for no [`Flags`].
    #[doc(hidden)]
    #[diagnostic::on_unimplemented(
        message = "a vector search is ordered by similarity alone: it cannot be reversed or ordered by a column",
        label = "ORDER BY in a vector search",
        note = "Cassandra: \"ANN ordering does not support any other ordering\"; sort the \
                rows in your code"
    )]
    pub trait AnnOrderOnly {}

    /// The states whose reads Cassandra can page: all but a reverse read with `IN` on the
    /// partition key.
    #[doc(hidden)]
    #[diagnostic::on_unimplemented(
        message = "Cassandra cannot page a read in reverse order (`reversed()` or `ORDER BY`) \
                   with `IN` on the partition key",
        label = "paged read",
        note = "read it in one unpaged request with `.fetch_all(..)` or `.fetch_first(..)`, or \
                read each partition with `=` (one query per key value)"
    )]
    pub trait Pageable {}
    impl<const N: usize, const REV: bool> Pageable for Key<N, false, REV> {}
    impl<const N: usize> Pageable for Key<N, true, false> {}
    impl<const N: usize, const LO: bool, const HI: bool, const REV: bool> Pageable
        for Range<N, LO, HI, false, REV>
    {
    }
    impl<const N: usize, const LO: bool, const HI: bool> Pageable for Range<N, LO, HI, true, false> {}
    impl Pageable for Filtering {}
    impl Pageable for Indexed {}
    impl<const K: bool> Pageable for Nearest<K> where Flags<K, false>: Unpaged {}

    /// The states that may be read in reverse order: all but [`Indexed`].
    #[doc(hidden)]
    #[diagnostic::on_unimplemented(
        message = "a read with a restriction on an indexed column cannot be reversed or ordered",
        label = "ORDER BY after an indexed column",
        note = "Cassandra: \"ORDER BY with 2ndary indexes is not supported, except for ANN \
                queries\"; sort the rows in your code, or keep a table clustered in the order \
                you need"
    )]
    pub trait Orderable {}
    impl<const N: usize, const IN: bool, const REV: bool> Orderable for Key<N, IN, REV> {}
    impl<const N: usize, const LO: bool, const HI: bool, const IN: bool, const REV: bool> Orderable
        for Range<N, LO, HI, IN, REV>
    {
    }
    impl Orderable for Filtering {}
    impl<const K: bool> Orderable for Nearest<K> where Flags<K, false>: AnnOrderOnly {}

    /// Refuses an indexed column after `IN` on the partition key (the reason is the message):
    /// implemented for no [`Flags`].
    #[doc(hidden)]
    #[diagnostic::on_unimplemented(
        message = "an indexed column cannot be restricted after `IN` on the partition key",
        label = "indexed column after `IN` on the partition key",
        note = "Cassandra: \"Select on indexed columns and with IN clause for the PRIMARY KEY \
                are not supported\"; restrict the partition key with `=` (one query per key \
                value)"
    )]
    pub trait NoInBeforeIndex {}

    /// The flags of a key state, as the `Self` type of the bounds that say why a method does
    /// not fit the state (`where Flags<IN, REV>: __Missing_user_id`): a bound on another type
    /// than the state is reported with its own message.
    #[doc(hidden)]
    pub struct Flags<const IN: bool, const REV: bool>;

    /// The flags of a state that is not reversed: an indexed column may only be restricted
    /// in those.
    #[doc(hidden)]
    #[diagnostic::on_unimplemented(
        message = "an indexed column cannot be restricted in a reversed or ordered read",
        label = "indexed column after `reversed()` or `ORDER BY`",
        note = "Cassandra: \"ORDER BY with 2ndary indexes is not supported, except for ANN \
                queries\"; drop `reversed()`/`order_by_..` and sort the rows in your code"
    )]
    pub trait Unordered {}
    impl<const IN: bool> Unordered for Flags<IN, false> {}
}

/// What a builder does; its terminal methods depend on it.
pub mod kind {
    use super::super::spec::Statement;

    /// `SELECT`: `fetch_all`, `fetch_first`, `fetch_stream`, `fetch_page`.
    pub struct Select;
    /// `DELETE`: `execute`. `LWT`: a condition was given (`IF ...`), so `execute` returns an
    /// [`Outcome`](crate::Outcome).
    pub struct Delete<const LWT: bool = false>;
    /// `UPDATE`: `execute`. `W` is what has been set so far: `0` nothing, `1` only static
    /// columns (the partition key is then enough), `2` a regular column (the whole primary
    /// key is needed). `LWT`: a condition was given.
    pub struct Update<const W: u8, const LWT: bool = false>;

    /// The kinds that write: `Delete` and `Update`.
    #[doc(hidden)]
    pub trait WriteKind {
        /// DELETE or UPDATE.
        const STATEMENT: Statement;
        /// The kind once a condition is added.
        type Conditional;
    }
    impl<const LWT: bool> WriteKind for Delete<LWT> {
        const STATEMENT: Statement = Statement::Delete;
        type Conditional = Delete<true>;
    }
    impl<const W: u8, const LWT: bool> WriteKind for Update<W, LWT> {
        const STATEMENT: Statement = Statement::Update;
        type Conditional = Update<W, true>;
    }

    /// The update kind after setting a static column.
    #[doc(hidden)]
    pub trait AfterStaticSet {
        /// The next kind.
        type Next;
    }
    impl<const LWT: bool> AfterStaticSet for Update<0, LWT> {
        type Next = Update<1, LWT>;
    }
    impl<const LWT: bool> AfterStaticSet for Update<1, LWT> {
        type Next = Update<1, LWT>;
    }
    impl<const LWT: bool> AfterStaticSet for Update<2, LWT> {
        type Next = Update<2, LWT>;
    }
}
