//! Short links (issue 22 part 6; spec 3 §7 `url/short` answering
//! `data.cloud_cdn`): `{public URL}/s/{code}` redirects (302) to a target on
//! the instance or on a host the operator allows (`protocol::shortlink`'s
//! rules: no open redirect), counts clicks and stops after its expiry.
//!
//! - Codes: 8 random base-62 characters, claimed by insert-if-absent in
//!   `short_links` (a collision draws again).
//! - The same target shortened by the same account answers the same code
//!   while it is live (`short_link_by_target`: owner · SHA-256 of the
//!   normalised target → code, claimed by insert-if-absent, so concurrent
//!   calls agree); after expiry a new code replaces it (compare-and-set).
//! - Clicks: a counter per code (`short_link_clicks`).
//! - New codes are rate-limited per account (`EASEL_SHORTLINK_PER_HOUR`);
//!   answering an existing code is free.
//! - Every method takes `now` (ms), so expiry is tested with a fixed clock.

use std::time::Duration;

use infra::config::ShortLinkSettings;
use infra::store::{tables, Counters, DynStore, Key, ScanRange, Table};
use protocol::shortlink::{
    self, ShortLinkView, ShortenResult, TargetError, TargetRules, CODE_ALPHABET, CODE_LEN,
};
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::ApiError;
use crate::ratelimit::{RateLimiter, RateLimits};

/// Links `url/short/list` answers at most (the newest).
pub const MAX_LISTED: u32 = 200;
const DAY_MS: i64 = 86_400_000;

/// A stored short link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShortLinkRow {
    pub code: String,
    /// The checked target, as redirected to.
    pub url: String,
    pub owner: String,
    pub created_at: i64,
    pub expires_at: i64,
}

pub struct ShortLinkService {
    links: Table<ShortLinkRow>,
    by_target: Table<String>,
    by_owner: Table<()>,
    clicks: Counters,
    settings: ShortLinkSettings,
    limiter: RateLimiter,
}

/// A fresh code from the thread's CSPRNG.
fn code() -> String {
    (0..CODE_LEN)
        .map(|_| {
            let i = rand::random_range(0..CODE_ALPHABET.len());
            CODE_ALPHABET.get(i).copied().map(char::from).unwrap_or('0')
        })
        .collect()
}

fn target_error(e: TargetError) -> ApiError {
    match e {
        TargetError::Invalid(m) => ApiError::with_msg(ErrorCode::ShortLinkInvalid, m),
        TargetError::HostRefused(h) => ApiError::with_msg(
            ErrorCode::ShortLinkHostRefused,
            format!("links to {h} are not allowed on this instance"),
        ),
    }
}

impl ShortLinkService {
    /// `limits`: where the hourly limit counts (see `crate::ratelimit`).
    pub fn new(
        store: DynStore,
        settings: ShortLinkSettings,
        limits: &RateLimits,
    ) -> ShortLinkService {
        let limiter = limits.limiter(
            "short_links",
            if settings.per_hour == 0 {
                u32::MAX
            } else {
                settings.per_hour
            },
            Duration::from_secs(3600),
        );
        ShortLinkService {
            links: Table::new(store.clone(), &tables::SHORT_LINKS),
            by_target: Table::new(store.clone(), &tables::SHORT_LINK_BY_TARGET),
            by_owner: Table::new(store.clone(), &tables::SHORT_LINK_BY_OWNER),
            clicks: Counters::new(store, &tables::SHORT_LINK_CLICKS),
            settings,
            limiter,
        }
    }

    /// The rules for an instance whose public URL is `base`.
    pub fn rules(&self, base: &str) -> Result<TargetRules, ApiError> {
        let (rules, ignored) =
            TargetRules::new(base, &self.settings.hosts).map_err(ApiError::internal)?;
        if !ignored.is_empty() {
            tracing::warn!(?ignored, "EASEL_SHORTLINK_HOSTS entries that are not hosts");
        }
        Ok(rules)
    }

    fn short_url(base: &str, code: &str) -> String {
        format!("{}/s/{code}", base.trim_end_matches('/'))
    }

    fn answer(base: &str, row: &ShortLinkRow) -> ShortenResult {
        ShortenResult {
            cloud_cdn: Self::short_url(base, &row.code),
            code: row.code.clone(),
            url: row.url.clone(),
            expires_at: row.expires_at,
        }
    }

    /// `url/short`: the short link of `raw` for `owner` on the instance at `base`.
    pub async fn shorten(
        &self,
        owner: &str,
        raw: &str,
        base: &str,
        now: i64,
    ) -> Result<ShortenResult, ApiError> {
        let target = self
            .rules(base)?
            .check(raw)
            .map_err(target_error)?
            .to_string();
        let hash = hex::encode(Sha256::digest(target.as_bytes()));
        let (pk, ck) = (Key::of(owner), Key::of(&hash));
        let known = self.by_target.get(&pk, &ck).await?;
        if let Some(code) = &known {
            if let Some(row) = self.links.get(&Key::of(code), &Key::empty()).await? {
                if !shortlink::expired(row.expires_at, now) {
                    return Ok(Self::answer(base, &row));
                }
            }
        }
        if !self.limiter.check(owner).await {
            return Err(ApiError::with_msg(
                ErrorCode::TooManyRequests,
                "too many new short links; try again later",
            ));
        }
        let row = self.new_link(owner, &target, now).await?;
        // Claim the target for this code; a concurrent call may have won.
        let claimed = match &known {
            None => self
                .by_target
                .insert_if_absent(&pk, &ck, &row.code)
                .await?
                .err(),
            Some(old) => match self
                .by_target
                .compare_and_set(&pk, &ck, old, Some(&row.code))
                .await?
            {
                Ok(()) => None,
                Err(current) => current,
            },
        };
        let Some(winner) = claimed else {
            self.by_owner
                .put(&pk, &Key::empty().i64(now).str(&row.code), &())
                .await?;
            return Ok(Self::answer(base, &row));
        };
        // Lost the race: drop our code and answer the winner's.
        self.links
            .delete(&Key::of(&row.code), &Key::empty())
            .await?;
        match self.links.get(&Key::of(&winner), &Key::empty()).await? {
            Some(w) => Ok(Self::answer(base, &w)),
            None => Err(ApiError::with_msg(
                ErrorCode::Unavailable,
                "the link is being made; try again",
            )),
        }
    }

    async fn new_link(
        &self,
        owner: &str,
        target: &str,
        now: i64,
    ) -> Result<ShortLinkRow, ApiError> {
        for _ in 0..8 {
            let row = ShortLinkRow {
                code: code(),
                url: target.to_owned(),
                owner: owner.to_owned(),
                created_at: now,
                expires_at: now + i64::from(self.settings.expiry_days) * DAY_MS,
            };
            if self
                .links
                .insert_if_absent(&Key::of(&row.code), &Key::empty(), &row)
                .await?
                .is_ok()
            {
                return Ok(row);
            }
        }
        Err(ApiError::internal("no free short code after 8 draws"))
    }

    /// `GET /s/{code}`: the target, counting the click.
    pub async fn follow(&self, code: &str, now: i64) -> Result<String, ApiError> {
        if !shortlink::code_ok(code) {
            return Err(ErrorCode::ShortLinkNotFound.into());
        }
        let row = self
            .links
            .get(&Key::of(code), &Key::empty())
            .await?
            .ok_or(ErrorCode::ShortLinkNotFound)?;
        if shortlink::expired(row.expires_at, now) {
            return Err(ErrorCode::ShortLinkExpired.into());
        }
        self.clicks.add(&Key::of(code), &Key::empty(), 1).await?;
        Ok(row.url)
    }

    /// `url/short/list`: the owner's links, newest first, with clicks.
    pub async fn list(
        &self,
        owner: &str,
        base: &str,
        now: i64,
    ) -> Result<Vec<ShortLinkView>, ApiError> {
        let page = self
            .by_owner
            .scan(&Key::of(owner), &ScanRange::all(MAX_LISTED).desc())
            .await?;
        let codes: Vec<String> = page
            .rows
            .iter()
            .filter_map(|(k, _)| {
                let mut r = k.reader();
                r.i64()?;
                r.str()
            })
            .collect();
        let keys: Vec<(Key, Key)> = codes.iter().map(|c| (Key::of(c), Key::empty())).collect();
        let rows = self.links.get_many(&keys).await?;
        let mut out = Vec::new();
        for row in rows.into_iter().flatten() {
            let clicks = self.clicks.get(&Key::of(&row.code), &Key::empty()).await?;
            out.push(ShortLinkView {
                cloud_cdn: Self::short_url(base, &row.code),
                expired: shortlink::expired(row.expires_at, now),
                code: row.code,
                url: row.url,
                created_at: row.created_at,
                expires_at: row.expires_at,
                clicks,
            });
        }
        Ok(out)
    }
}
