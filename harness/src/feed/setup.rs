//! The `feed` scenario's set-up, outside the measured window: the run's
//! accounts sign up; a few pages of every order are read to learn works
//! and authors; each account follows some of those authors (so its
//! "follows" feed has pages); and the finished tasks the window's
//! publishes need are created, spread over the accounts (task creation is
//! limited per account), and waited for until they end.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use protocol::client::{ClientError, RestClient};
use protocol::task::TaskStatus;
use serde_json::{json, Value};

use super::book::{ErrorKind, ErrorTally};
use super::plan::{WriteKind, WriteMix, ORDERS};
use super::writes::WritePlanner;
use super::{page_body, read_page, DEFAULT_FEED_PATHS};
use crate::channel::{sign_up_many, SETUP_PARALLEL};
use crate::scenarios::{task_body, Target};
use crate::{HarnessArgs, HarnessError};

/// Pages of each order read in set-up to learn works and authors.
const SEED_PAGES: u32 = 3;
/// How long set-up waits for the publish tasks to finish.
pub const TASK_WAIT: Duration = Duration::from_secs(180);
/// How often set-up polls the publish tasks.
const TASK_POLL: Duration = Duration::from_millis(250);
/// Task ids per `batch-progress` call.
const POLL_BATCH: usize = 50;

/// What set-up learnt and made.
pub(super) struct Setup {
    pub(super) accounts: Vec<RestClient>,
    pub(super) figures: serde_json::Map<String, Value>,
    pub(super) errors: ErrorTally,
}

/// Reads the first `SEED_PAGES` pages of every order as account 0.
async fn seed(
    args: &HarnessArgs,
    client: &RestClient,
    path: &str,
    writes: &mut WritePlanner,
) -> Result<(Vec<String>, u64), HarnessError> {
    let mut authors = std::collections::BTreeSet::new();
    let mut pages = 0;
    for order in 0..ORDERS.len() {
        let mut cursor: Option<String> = None;
        for _ in 0..SEED_PAGES {
            let body = page_body(order, args.page_size, cursor.as_deref());
            let page = read_page(client, path, &body).await.map_err(|(_, m)| {
                HarnessError::Setup(format!("reading the square to seed the run: {m}"))
            })?;
            pages += 1;
            for w in &page.works {
                writes.works.add(w);
            }
            authors.extend(page.authors);
            cursor = page.next_cursor;
            if cursor.is_none() {
                break;
            }
        }
    }
    Ok((authors.into_iter().collect(), pages))
}

/// Each account follows `n` of the authors seen (different ones per account).
async fn follow(
    accounts: &[RestClient],
    authors: &[String],
    n: u64,
    errors: &mut ErrorTally,
) -> u64 {
    let n = usize::try_from(n).unwrap_or(0).min(authors.len());
    let calls: Vec<(RestClient, String)> = accounts
        .iter()
        .enumerate()
        .flat_map(|(a, c)| {
            (0..n).filter_map(move |k| {
                let author = authors.get((a * n + k) % authors.len().max(1))?;
                Some((c.clone(), author.clone()))
            })
        })
        .collect();
    let results: Vec<_> = futures_util::stream::iter(calls)
        .map(|(c, author)| async move {
            c.post::<_, Value>("/api/v1/account/follow", &json!({ "account_id": author }))
                .await
        })
        .buffer_unordered(SETUP_PARALLEL)
        .collect()
        .await;
    let mut ok = 0;
    for r in results {
        match r {
            Ok(_) => ok += 1,
            Err(e) => errors.add("setup_follow", ErrorKind::of(&e), || e.to_string()),
        }
    }
    ok
}

/// Creates `n` tasks round-robin over the accounts and waits (at most
/// [`TASK_WAIT`]) until they end; the finished ones go to the publish pool.
/// Answers (created, finished, failed or unfinished).
async fn publish_tasks(
    target: &Target,
    accounts: &[RestClient],
    n: u64,
    writes: &mut WritePlanner,
    errors: &mut ErrorTally,
) -> Result<(u64, u64, u64), HarnessError> {
    if n == 0 || accounts.is_empty() {
        return Ok((0, 0, 0));
    }
    let body = task_body(&target.rest).await?;
    let body = &body;
    let results: Vec<(usize, Result<String, ClientError>)> = futures_util::stream::iter(0..n)
        .map(|i| async move {
            let a = usize::try_from(i).unwrap_or(0) % accounts.len();
            let res = match accounts.get(a) {
                Some(c) => c.create_task("/api/v1/task/create", &body(i)).await,
                None => Err(ClientError::Unexpected("no account".into())),
            };
            (a, res)
        })
        .buffer_unordered(SETUP_PARALLEL)
        .collect()
        .await;
    let mut waiting: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    let mut created = 0;
    for (a, r) in results {
        match r {
            Ok(id) => {
                created += 1;
                waiting.entry(a).or_default().push(id);
            }
            Err(e) => errors.add("setup_task_create", ErrorKind::of(&e), || e.to_string()),
        }
    }
    let (mut finished, mut failed) = (0, 0);
    let deadline = Instant::now() + TASK_WAIT;
    #[derive(serde::Deserialize)]
    struct Items {
        items: Vec<Item>,
    }
    #[derive(serde::Deserialize)]
    struct Item {
        id: String,
        status: u8,
    }
    while !waiting.is_empty() && Instant::now() < deadline {
        for (a, ids) in waiting.iter_mut() {
            let Some(client) = accounts.get(*a) else {
                continue;
            };
            let mut ended = Vec::new();
            for chunk in ids.chunks(POLL_BATCH) {
                let polled: Items = match client
                    .post("/api/v1/task/batch-progress", &json!({ "task_ids": chunk }))
                    .await
                {
                    Ok(p) => p,
                    Err(e) => {
                        errors.add("setup_task_poll", ErrorKind::of(&e), || e.to_string());
                        continue;
                    }
                };
                for t in polled.items {
                    match TaskStatus::from_code(i64::from(t.status)) {
                        Some(TaskStatus::Success) => {
                            finished += 1;
                            writes.tasks.add(*a, t.id.clone());
                            ended.push(t.id);
                        }
                        Some(TaskStatus::Ended) => {
                            failed += 1;
                            ended.push(t.id);
                        }
                        _ => {}
                    }
                }
            }
            ids.retain(|id| !ended.contains(id));
        }
        waiting.retain(|_, ids| !ids.is_empty());
        if !waiting.is_empty() {
            tokio::time::sleep(TASK_POLL).await;
        }
    }
    let unfinished = waiting.values().map(|v| v.len() as u64).sum::<u64>();
    Ok((created, finished, failed + unfinished))
}

/// Publishes the window will ask for at most: the mix's share of the
/// writes, plus a tenth.
pub fn publishes_needed(mix: WriteMix, write_rate: f64, secs: f64) -> u64 {
    let n = mix.share(WriteKind::Publish) * write_rate * secs;
    if n > 0.0 {
        (n * 1.1).ceil() as u64
    } else {
        0
    }
}

pub(super) async fn set_up(
    args: &HarnessArgs,
    target: &Target,
    writes: &mut WritePlanner,
) -> Result<Setup, HarnessError> {
    let t0 = Instant::now();
    let mut errors = ErrorTally::default();
    let accounts = sign_up_many(target, args.accounts.max(1), "harness feed").await?;
    let first = accounts
        .first()
        .ok_or_else(|| HarnessError::Setup("no accounts".into()))?;
    let path = args
        .feed_paths
        .first()
        .map(String::as_str)
        .unwrap_or(DEFAULT_FEED_PATHS[0]);
    let (authors, seed_pages) = seed(args, first, path, writes).await?;
    if writes.works.is_empty() {
        return Err(HarnessError::Setup(
            "the square showed no picture works: fill it first (easel seed-square)".into(),
        ));
    }
    let follows_ok = follow(&accounts, &authors, args.follows, &mut errors).await;
    let wanted = args
        .publish_tasks
        .unwrap_or_else(|| publishes_needed(args.write_mix, args.write_rate, args.duration_secs));
    let (created, finished, not_finished) =
        publish_tasks(target, &accounts, wanted, writes, &mut errors).await?;
    let mut figures = serde_json::Map::new();
    figures.insert("accounts".into(), json!(accounts.len()));
    figures.insert("seed_pages".into(), json!(seed_pages));
    figures.insert("seed_works".into(), json!(writes.works.len()));
    figures.insert("seed_authors".into(), json!(authors.len()));
    figures.insert("follows".into(), json!(follows_ok));
    figures.insert("publish_tasks_wanted".into(), json!(wanted));
    figures.insert("publish_tasks_created".into(), json!(created));
    figures.insert("publish_tasks_finished".into(), json!(finished));
    figures.insert("publish_tasks_not_finished".into(), json!(not_finished));
    figures.insert("setup_secs".into(), json!(t0.elapsed().as_secs_f64()));
    Ok(Setup {
        accounts,
        figures,
        errors,
    })
}
