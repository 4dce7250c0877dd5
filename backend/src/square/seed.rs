//! `easel seed-square`: fills a data folder's square with synthetic works
//! for the feed benchmark (`easel-harness feed`), straight through the
//! Store's tables, as the service would have written them. Accounts get an
//! unusable password (nobody logs in as them); a dozen small gradient
//! pictures serve as covers; likes, collects, comments and views are drawn
//! from a long-tailed distribution; accounts follow a few others.

use std::io::Cursor as IoCursor;

use anyhow::Context;
use futures_util::future::try_join_all;
use infra::config::Settings;
use infra::objects::ObjectKey;
use infra::store::{Key, Table};
use protocol::square::work::WorkImage;
use protocol::square::{PostKind, Visibility};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;

use super::row::WorkRow;
use super::{bucket_of, count, Tables};
use crate::accounts::{now_millis, AccountRow};

/// What to make.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    pub works: usize,
    pub accounts: usize,
    pub seed: u64,
}

/// What was made.
#[derive(Debug, Serialize)]
pub struct Done {
    pub works: usize,
    pub accounts: usize,
    pub follows: usize,
    pub seconds: f64,
}

const TAGS: &[&str] = &[
    "landscape",
    "portrait",
    "cat",
    "dog",
    "city",
    "night",
    "forest",
    "ocean",
    "mountain",
    "anime",
    "fantasy",
    "sci-fi",
    "cyberpunk",
    "watercolor",
    "oil painting",
    "sketch",
    "flowers",
    "winter",
    "summer",
    "sunset",
    "space",
    "robot",
    "dragon",
    "castle",
    "street",
    "rain",
    "neon",
    "minimal",
    "abstract",
    "retro",
    "風景",
    "猫",
    "夜景",
    "花",
    "海",
    "山",
    "城市",
    "少女",
    "机器人",
    "星空",
];
const COVERS: usize = 12;
const BATCH: usize = 256;

fn cover_png(i: usize) -> anyhow::Result<Vec<u8>> {
    let hue = (i as f32) / (COVERS as f32);
    let img = image::RgbImage::from_fn(192, 256, |x, y| {
        let t = (x + y) as f32 / 448.0;
        let r = (255.0 * (0.5 + 0.5 * (std::f32::consts::TAU * (hue + t)).sin())) as u8;
        let g = (255.0 * (0.5 + 0.5 * (std::f32::consts::TAU * (hue + t + 0.33)).sin())) as u8;
        let b = (255.0 * (0.5 + 0.5 * (std::f32::consts::TAU * (hue + t + 0.66)).sin())) as u8;
        image::Rgb([r, g, b])
    });
    let mut out = IoCursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png)?;
    Ok(out.into_inner())
}

/// A long-tailed count: most works get little, a few get a lot.
fn tail(rng: &mut StdRng, scale: f64) -> i64 {
    let u: f64 = rng.random_range(0.0001..1.0);
    (scale * (1.0 / u - 1.0)).min(scale * 500.0) as i64
}

pub async fn run(settings: Settings, plan: Plan) -> anyhow::Result<Done> {
    let started = std::time::Instant::now();
    std::fs::create_dir_all(&settings.data_dir)?;
    let store = crate::app::open_store(&settings).await?;
    let objects = crate::app::open_objects(&settings)?;
    let t = Tables::new(store.clone());
    let mut rng = StdRng::seed_from_u64(plan.seed);
    // A random password nobody knows: the seed accounts are authors only.
    let secret = protocol::account::Password::parse(&format!("unusable-{}", uuid::Uuid::now_v7()))
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let hash = crate::accounts::hash_password(secret)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))
        .context("hashing the seed accounts' password")?;
    let mut covers = Vec::new();
    for i in 0..COVERS {
        let key = format!("seed/cover-{i}.png");
        let k = ObjectKey::parse(&key).map_err(|e| anyhow::anyhow!("{e}"))?;
        objects
            .put(&k, cover_png(i)?, "image/png")
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        covers.push(crate::tasks::row::file_url(&key));
    }
    let now = now_millis();
    let accounts: Vec<AccountRow> = (0..plan.accounts.max(1))
        .map(|i| AccountRow {
            id: format!(
                "seed{i:06}{}",
                &uuid::Uuid::now_v7().simple().to_string()[..8]
            ),
            email: format!("seed-{i}@seed.easel.invalid"),
            name: format!("Seed creator {i}"),
            password_hash: hash.clone(),
            status: protocol::account::status::NORMAL,
            create_at: now,
            device_code: String::new(),
            settings: Default::default(),
            payment: Default::default(),
            company: false,
            perks: None,
            deletion: None,
            email_verified: false,
        })
        .collect();
    let emails: Table<crate::accounts::EmailClaim> =
        Table::new(store.clone(), &infra::store::tables::ACCOUNT_BY_EMAIL);
    for chunk in accounts.chunks(BATCH) {
        try_join_all(chunk.iter().map(|a| async {
            t.accounts.put(&Key::of(&a.id), &Key::empty(), a).await?;
            emails
                .put(
                    &Key::of(&a.email),
                    &Key::empty(),
                    &crate::accounts::EmailClaim {
                        account_id: a.id.clone(),
                    },
                )
                .await
        }))
        .await?;
    }
    // Follows: each account follows up to 5 others.
    let mut follows = Vec::new();
    for a in &accounts {
        for _ in 0..rng.random_range(0..=5usize) {
            let Some(b) = accounts.get(rng.random_range(0..accounts.len())) else {
                continue;
            };
            if b.id != a.id {
                follows.push((a.id.clone(), b.id.clone()));
            }
        }
    }
    follows.sort();
    follows.dedup();
    for chunk in follows.chunks(BATCH) {
        try_join_all(chunk.iter().map(|(a, b)| async {
            t.follows.put(&Key::of(a), &Key::of(b), &now).await?;
            t.followers.put(&Key::of(b), &Key::of(a), &now).await?;
            t.account_counts
                .add(&Key::of(b), &Key::of(count::FOLLOWERS), 1)
                .await?;
            t.account_counts
                .add(&Key::of(a), &Key::of(count::FOLLOWING), 1)
                .await
        }))
        .await?;
    }
    let span = 60 * 86_400_000i64;
    let mut made = 0;
    while made < plan.works {
        let n = BATCH.min(plan.works - made);
        let mut batch = Vec::with_capacity(n);
        for i in made..made + n {
            let Some(author) = accounts.get(rng.random_range(0..accounts.len())) else {
                continue;
            };
            let kind = if rng.random_range(0..100) < 92 {
                PostKind::Picture
            } else {
                PostKind::Article
            };
            let visibility = match rng.random_range(0..100) {
                0..=94 => Visibility::Public,
                95..=97 => Visibility::Followers,
                _ => Visibility::Private,
            };
            let ntags = rng.random_range(1..=4usize);
            let mut tags: Vec<String> = (0..ntags)
                .filter_map(|_| {
                    TAGS.get(rng.random_range(0..TAGS.len()))
                        .map(|t| (*t).to_owned())
                })
                .collect();
            tags.sort();
            tags.dedup();
            let at = now - rng.random_range(0..span);
            let id = format!(
                "{:013x}{}",
                at,
                &uuid::Uuid::now_v7().simple().to_string()[12..]
            );
            let row = WorkRow {
                id,
                author: author.id.clone(),
                kind,
                title: format!("Seed work {i}"),
                body: if kind == PostKind::Article {
                    format!(
                        "# Seed article {i}\n\nA synthetic article about *{}*.",
                        tags.join(", ")
                    )
                } else {
                    format!("A synthetic picture about {}.", tags.join(", "))
                },
                tags,
                visibility,
                nsfw: rng.random_range(0..100) < 3,
                hide_params: false,
                images: vec![WorkImage {
                    url: covers.get(i % COVERS).cloned().unwrap_or_default(),
                    width: 192,
                    height: 256,
                }],
                video_url: None,
                hls_url: None,
                task_ids: Vec::new(),
                params: Vec::new(),
                create_at: at,
                update_at: at,
                moderation: None,
                classified: None,
            };
            let counts = [
                (count::LIKES, tail(&mut rng, 2.0)),
                (count::COLLECTS, tail(&mut rng, 0.5)),
                (count::COMMENTS, tail(&mut rng, 0.3)),
                (count::VIEWS, tail(&mut rng, 20.0)),
            ];
            batch.push((row, counts));
        }
        try_join_all(batch.iter().map(|(w, counts)| {
            let t = &t;
            async move {
                t.works.put(&Key::of(&w.id), &Key::empty(), w).await?;
                t.by_author
                    .put(
                        &Key::of(&w.author),
                        &Key::empty().i64(w.create_at).str(&w.id),
                        &(),
                    )
                    .await?;
                t.all
                    .put(&Key::empty().u64(bucket_of(&w.id)), &Key::of(&w.id), &())
                    .await?;
                t.account_counts
                    .add(&Key::of(&w.author), &Key::of(count::WORKS), 1)
                    .await?;
                for (name, n) in counts {
                    if *n > 0 {
                        t.work_counts
                            .add(&Key::of(&w.id), &Key::of(name), *n)
                            .await?;
                    }
                }
                Ok::<(), infra::store::StoreError>(())
            }
        }))
        .await?;
        made += n;
        if made % 10_000 < BATCH {
            tracing::info!(made, of = plan.works, "seeding the square");
        }
    }
    Ok(Done {
        works: made,
        accounts: accounts.len(),
        follows: follows.len(),
        seconds: started.elapsed().as_secs_f64(),
    })
}
