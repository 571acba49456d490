//! Collects every error of one derive so that all are reported at once.

use std::fmt::Display;

use quote::ToTokens;

#[derive(Default)]
pub struct Ctxt {
    errors: Option<syn::Error>,
}

impl Ctxt {
    /// Records an error spanned on `at`.
    pub fn error(&mut self, at: impl ToTokens, message: impl Display) {
        self.push(syn::Error::new_spanned(at, message));
    }

    /// Records an error at a span.
    pub fn error_at(&mut self, span: proc_macro2::Span, message: impl Display) {
        self.push(syn::Error::new(span, message));
    }

    /// Records an existing error (e.g. from `syn`'s attribute parser).
    pub fn push(&mut self, e: syn::Error) {
        match &mut self.errors {
            Some(all) => all.combine(e),
            None => self.errors = Some(e),
        }
    }

    /// How many errors are recorded so far.
    pub fn count(&self) -> usize {
        self.errors
            .as_ref()
            .map_or(0, |e| e.clone().into_iter().count())
    }

    /// All errors combined, or `Ok` when there were none.
    pub fn finish(self) -> Result<(), syn::Error> {
        self.errors.map_or(Ok(()), Err)
    }
}
