//! The type parameters of a generated builder: how far its WHERE clause has got
//! ([`state`]) and what the statement does ([`kind`]).

/// Type-level states of a query's WHERE clause. A generated builder moves between them as
/// columns are restricted; a column method that does not fit the current state does not
/// compile, and the message says what to give first.
pub mod state {
    /// The first `N` key columns (partition key, then clustering columns, in declared order)
    /// are restricted by `=` or `IN`, and nothing else.
    pub struct Key<const N: usize>;
    /// After `N` key columns by `=`/`IN`, a range on key column `N` with a lower bound (`LO`)
    /// and/or an upper bound (`HI`). Nothing may follow but the other bound.
    pub struct Range<const N: usize, const LO: bool, const HI: bool>;
    /// `ALLOW FILTERING`: any column by `=`, at the cost of a scan. Only reached through
    /// `select_allow_filtering()`.
    pub struct Filtering;

    // State transitions, implemented for every state so that a builder method's return type
    // always resolves; whether the method may be called at all is a separate, per-column
    // bound with its own message.

    /// The state after an `=`/`IN` restriction that leads to `X` from a key state.
    #[doc(hidden)]
    pub trait AfterEq<X> {
        /// The next state.
        type Next;
    }
    impl<const N: usize, X> AfterEq<X> for Key<N> {
        type Next = X;
    }
    impl<const N: usize, const LO: bool, const HI: bool, X> AfterEq<X> for Range<N, LO, HI> {
        type Next = X;
    }
    impl<X> AfterEq<X> for Filtering {
        type Next = Filtering;
    }

    /// The state after `=`/`IN` on key column `N - 1`: `<S as AfterEq<Key<N>>>::Next`.
    #[doc(hidden)]
    pub type EqNext<S, const N: usize> = <S as AfterEq<Key<N>>>::Next;

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
    impl<const N: usize, const I: usize> AfterRange<I, false> for Key<N> {
        type Next = Range<I, true, false>;
    }
    impl<const N: usize, const I: usize> AfterRange<I, true> for Key<N> {
        type Next = Range<I, false, true>;
    }
    impl<const N: usize, const LO: bool, const HI: bool, const I: usize> AfterRange<I, false>
        for Range<N, LO, HI>
    {
        type Next = Range<I, true, HI>;
    }
    impl<const N: usize, const LO: bool, const HI: bool, const I: usize> AfterRange<I, true>
        for Range<N, LO, HI>
    {
        type Next = Range<I, LO, true>;
    }
    impl<const I: usize, const UPPER: bool> AfterRange<I, UPPER> for Filtering {
        type Next = Filtering;
    }
}

/// What a builder does; its terminal methods depend on it.
pub mod kind {
    use crate::query::Statement;

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
