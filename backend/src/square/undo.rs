//! Taking back what an account gave: a like or collect, a follow. The off
//! halves of `react` and `follow` (`social.rs`), without their rate limit or
//! visibility check, so an account's deletion (`accounts/deletion/steps.rs`)
//! can run them for everything the person gave.

use infra::store::Key;

use super::social::Reaction;
use super::{count, SquareService};
use crate::error::ApiError;

impl SquareService {
    /// Takes back `who`'s like or collect of work `id`, whose author is
    /// `author` (no rate limit, no visibility check): the off half of
    /// [`Self::react`], and what an account's deletion runs for each of its
    /// reactions. `true` when there was one to take back.
    pub async fn withdraw_reaction(
        &self,
        who: &str,
        id: &str,
        author: &str,
        kind: Reaction,
    ) -> Result<bool, ApiError> {
        let t = &self.inner.t;
        let (rows, mine, mine_by_time, counter) = match kind {
            Reaction::Like => (&t.work_likes, &t.liked, &t.liked_by_time, count::LIKES),
            Reaction::Collect => (
                &t.work_collects,
                &t.collected,
                &t.collected_by_time,
                count::COLLECTS,
            ),
        };
        let (pk, ck) = (Key::of(id), Key::of(who));
        let Some(at) = rows.get(&pk, &ck).await? else {
            return Ok(false);
        };
        if rows.compare_and_set(&pk, &ck, &at, None).await?.is_err() {
            return Ok(false);
        }
        let (me, work, when) = (Key::of(who), Key::of(id), Key::empty().i64(at).str(id));
        let (a, b, c, d) = tokio::join!(
            mine.delete(&me, &work),
            mine_by_time.delete(&me, &when),
            self.bump(id, counter, -1),
            async {
                if kind == Reaction::Like && !author.is_empty() {
                    self.bump_account(author, count::LIKES_RECEIVED, -1).await
                } else {
                    Ok(())
                }
            },
        );
        a?;
        b?;
        c?;
        d?;
        Ok(true)
    }

    /// The author of work `id`, whatever its visibility ("" when it is gone).
    pub async fn author_of(&self, id: &str) -> Result<String, ApiError> {
        Ok(self
            .inner
            .t
            .works
            .get(&Key::of(id), &Key::empty())
            .await?
            .map(|w| w.author)
            .unwrap_or_default())
    }

    /// Ends `who` following `whom` (no rate limit): the off half of
    /// [`Self::follow`], and what an account's deletion runs both ways.
    pub async fn unfollow(&self, who: &str, whom: &str) -> Result<(), ApiError> {
        let t = &self.inner.t;
        let (a, b) = (Key::of(who), Key::of(whom));
        if let Some(at) = t.follows.get(&a, &b).await? {
            if t.follows.compare_and_set(&a, &b, &at, None).await?.is_ok() {
                t.followers.delete(&b, &a).await?;
                self.bump_account(whom, count::FOLLOWERS, -1).await?;
                self.bump_account(who, count::FOLLOWING, -1).await?;
            }
        } else {
            // A follower row left without its follow (a crash between the two).
            t.followers.delete(&b, &a).await?;
        }
        Ok(())
    }
}
