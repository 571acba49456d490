//! A. Social posts: the latest N posts of a user.
//!
//! ```cql
//! CREATE TABLE posts_facebook (user_id uuid, post_id timeuuid, content text,
//!   PRIMARY KEY (user_id, post_id)) WITH CLUSTERING ORDER BY (post_id DESC);
//! ```
//! Rows are stored newest first, so "the latest 20 posts" reads the head of one partition,
//! with no sort. A query by `post_id` alone has no partition key and does not compile.

use cassmodel::value::Timeuuid;
use cassmodel::{CassProjection, CassTable, Db, Result};
use uuid::Uuid;

use super::{Section, at, id, timeuuid};

/// One post; `post_id` is a timeuuid, so the clustering order is the posting time.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "posts_facebook")]
pub struct Post {
    #[partition_key]
    pub user_id: Uuid,
    #[clustering(desc)]
    pub post_id: Timeuuid,
    pub content: String,
}

/// The article's `SELECT content ... LIMIT 20`: only the text of the posts.
#[derive(CassProjection, Debug, Clone, PartialEq)]
#[cass(table = Post)]
pub struct PostContent {
    pub content: String,
}

pub const SECTION: Section = Section {
    title: "A. Social posts (latest N posts of a user)",
    tables: || vec![<Post as cassmodel::Table>::schema()],
};

pub async fn create(db: &Db) -> Result<()> {
    db.create_table::<Post>().await
}

/// The sample user.
pub fn alice() -> Uuid {
    id(0xa11ce)
}

pub fn sample() -> Vec<Post> {
    [
        (1, "Hello, Cassandra!"),
        (2, "Query-first data modelling is the way."),
        (3, "Partition keys decide which nodes hold a row."),
    ]
    .into_iter()
    .map(|(day, text)| Post {
        user_id: alice(),
        post_id: timeuuid(at(3, day, 9, 0), 0),
        content: text.to_owned(),
    })
    .collect()
}

pub async fn demo(db: &Db) -> Result<()> {
    for p in sample() {
        db.insert(&p).await?;
    }
    println!("latest 20 posts of user {}, newest first:", alice());
    for p in Post::select()
        .user_id(&alice())
        .limit(20)
        .fetch_all(db)
        .await?
    {
        println!("  {} {}", p.post_id, p.content);
    }
    let since = timeuuid(at(3, 2, 0, 0), 0);
    println!("their posts since 2024-03-02 (content only):");
    let recent = Post::select()
        .user_id(&alice())
        .post_id_gt(&since)
        .read_as::<PostContent>()
        .fetch_all(db)
        .await?;
    for p in recent {
        println!("  {}", p.content);
    }
    Ok(())
}
