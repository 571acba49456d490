// Counter and other statements cannot share a batch.
use cassmodel::value::Counter;
use cassmodel::{Batch, CassTable};

include!("model/page_views.rs");

#[derive(CassTable)]
struct Page {
    #[partition_key]
    page: String,
    title: String,
}

fn f(p: Page) {
    let _ = Batch::logged().add(PageViews::update().increment_views(1).page("home"));
    let _ = Batch::counter().add(Page::update().set_title("t").page("home"));
    let _ = Batch::counter().insert(&p);
}

fn main() {}
