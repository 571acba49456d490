use scylla::client::session_builder::SessionBuilder;
#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let s = SessionBuilder::new()
        .known_node("127.0.0.1:9042")
        .build()
        .await?;
    for q in std::env::args().skip(1) {
        println!("== {q}");
        match s.query_unpaged(q.as_str(), &[]).await {
            Ok(r) => match r.into_rows_result() {
                Ok(rows) => {
                    let names: Vec<String> = rows
                        .column_specs()
                        .iter()
                        .map(|c| c.name().to_owned())
                        .collect();
                    println!("{}", names.join(" | "));
                    for row in rows.rows::<scylla::value::Row>()? {
                        let row = row?;
                        println!(
                            "{}",
                            row.columns
                                .iter()
                                .map(|c| format!("{c:?}"))
                                .collect::<Vec<_>>()
                                .join(" | ")
                        );
                    }
                }
                Err(_) => println!("(no rows)"),
            },
            Err(e) => println!("error: {e}"),
        }
    }
    Ok(())
}
