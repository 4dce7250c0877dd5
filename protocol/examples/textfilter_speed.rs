//! Measures the text filter on one core: compiling the default list, and
//! checking texts of several lengths (clean and with hits) against it.
//! `cargo run --release -p easel-protocol --example textfilter_speed`
#![allow(clippy::print_stdout)]

use std::time::Instant;

use easel_protocol::textfilter::{default_list, Scene, TextFilter};

fn main() {
    let start = Instant::now();
    let Ok(filter) = TextFilter::compile(default_list()) else {
        println!("the default list does not compile");
        return;
    };
    println!(
        "compile default list ({} entries): {:?}",
        default_list().len(),
        start.elapsed()
    );

    let clean = "A quiet lighthouse at dawn, waves on the rocks, gulls over the bay. ";
    let dirty = "What a f.u.c.k-ing view, sh1t!! Scunthorpe at dawn, ｆｕｃｋ yes. ";
    for (label, unit) in [("clean", clean), ("with hits", dirty)] {
        for repeat in [1usize, 15, 150] {
            let text = unit.repeat(repeat);
            let chars = text.chars().count();
            let rounds = (200_000 / chars).max(20);
            let t = Instant::now();
            let mut hits = 0;
            for _ in 0..rounds {
                hits += filter.check(&text, Scene::Comment).hits.len();
            }
            let per = t.elapsed() / rounds as u32;
            println!(
                "{label:>9}, {chars:>6} chars: {per:>10.2?} per check ({:.1} MB/s), {} hits",
                text.len() as f64 / per.as_secs_f64() / 1e6,
                hits / rounds
            );
        }
    }
}
