//! The viewer's NSFW view (issue 20 item 1): the mode an account keeps on
//! its profile (`blur`, `hide`, `show`; rows from before it read from
//! `show_nsfw`: true is show, false blur), the mode a visitor sends with a
//! feed request (blur or hide, never show), the rating a card shows (from
//! the stored score and the operator's thresholds `EASEL_NSFW_THRESHOLD`
//! and `EASEL_NSFW_SUGGESTIVE`), and the filter that leaves NSFW works out
//! of every feed and list on the server when the viewer hides them. An
//! owner always sees their own works.

use std::sync::Arc;

use protocol::square::nsfw::{rating, NsfwMode, RATING_NSFW};
use protocol::ErrorCode;

use super::index::Entry;
use super::row::ProfileRow;
use super::SquareService;
use crate::error::ApiError;
use infra::store::Key;

/// The operator's thresholds, as the square reads them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Levels {
    /// At or above: NSFW.
    pub threshold: f32,
    /// At or above (and below `threshold`): suggestive.
    pub suggestive: f32,
}

impl Default for Levels {
    fn default() -> Self {
        let d = nsfw::NsfwSettings::default();
        Levels {
            threshold: d.threshold,
            suggestive: d.suggestive,
        }
    }
}

impl From<&nsfw::NsfwSettings> for Levels {
    fn from(s: &nsfw::NsfwSettings) -> Self {
        Levels {
            threshold: s.threshold,
            suggestive: s.suggestive,
        }
    }
}

impl Levels {
    /// A work's rating in the index.
    pub fn rating_of(&self, e: &Entry) -> &'static str {
        rating(e.nsfw, e.score, self.threshold, self.suggestive)
    }
}

/// What one viewer is shown of NSFW works in one call.
#[derive(Debug, Clone)]
pub struct NsfwView {
    pub mode: NsfwMode,
    /// The viewer (their own works are always kept).
    pub viewer: Option<Arc<str>>,
    pub levels: Levels,
}

impl NsfwView {
    /// Whether a list answered to this viewer keeps the work.
    pub fn keeps(&self, e: &Entry) -> bool {
        self.mode != NsfwMode::Hide
            || self.viewer.as_deref() == Some(&*e.author)
            || self.levels.rating_of(e) != RATING_NSFW
    }

    /// Whether full-text search may answer NSFW documents.
    pub fn search_shows_nsfw(&self) -> bool {
        self.mode != NsfwMode::Hide
    }
}

/// The mode an account's profile row holds.
pub fn mode_of(p: &ProfileRow) -> NsfwMode {
    p.nsfw_mode.unwrap_or(NsfwMode::from_show(p.show_nsfw))
}

/// Applies `account/profile/edit`'s NSFW fields to a profile row, keeping
/// `show_nsfw` consistent with the mode (show ⇔ true). `nsfw_mode` wins
/// when both are sent; a bad mode answers 40180 and changes nothing.
pub fn apply_edit(
    p: &mut ProfileRow,
    nsfw_mode: Option<&str>,
    show_nsfw: Option<bool>,
) -> Result<(), ApiError> {
    let mode = match (nsfw_mode, show_nsfw) {
        (Some(m), _) => NsfwMode::parse(m).ok_or(ErrorCode::NsfwModeInvalid)?,
        (None, Some(true)) => NsfwMode::Show,
        // Turning show off: back to blur (a hide chosen earlier stays).
        (None, Some(false)) => match mode_of(p) {
            NsfwMode::Show => NsfwMode::Blur,
            m => m,
        },
        (None, None) => return Ok(()),
    };
    p.nsfw_mode = Some(mode);
    p.show_nsfw = mode == NsfwMode::Show;
    Ok(())
}

impl SquareService {
    /// The operator's thresholds (their defaults until the app sets them).
    pub fn nsfw_levels(&self) -> Levels {
        self.inner.nsfw_levels.get().copied().unwrap_or_default()
    }

    /// Rates cards with the operator's thresholds.
    pub fn with_nsfw_levels(self, levels: Levels) -> SquareService {
        let _ = self.inner.nsfw_levels.set(levels);
        self
    }

    /// An account's stored mode (blur when it has no profile row).
    pub async fn account_nsfw_mode(&self, account: &str) -> Result<NsfwMode, ApiError> {
        Ok(self
            .inner
            .t
            .profiles
            .get(&Key::of(account), &Key::empty())
            .await?
            .map_or(NsfwMode::Blur, |p| mode_of(&p)))
    }

    /// The mode of this call: an account's own setting, else the visitor's
    /// `asked` (blur or hide; show reads as blur), else blur.
    pub async fn nsfw_mode(
        &self,
        viewer: Option<&str>,
        asked: Option<NsfwMode>,
    ) -> Result<NsfwMode, ApiError> {
        match viewer {
            Some(v) => self.account_nsfw_mode(v).await,
            None => Ok(asked.map_or(NsfwMode::Blur, NsfwMode::for_visitor)),
        }
    }

    /// The view of this call (see [`SquareService::nsfw_mode`]).
    pub async fn nsfw_view(
        &self,
        viewer: Option<&str>,
        asked: Option<NsfwMode>,
    ) -> Result<NsfwView, ApiError> {
        Ok(NsfwView {
            mode: self.nsfw_mode(viewer, asked).await?,
            viewer: viewer.map(Arc::from),
            levels: self.nsfw_levels(),
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn old_rows_map_and_edits_stay_consistent() {
        let mut p = ProfileRow::default();
        assert_eq!(mode_of(&p), NsfwMode::Blur);
        p.show_nsfw = true;
        assert_eq!(mode_of(&p), NsfwMode::Show);
        apply_edit(&mut p, Some("hide"), Some(true)).unwrap();
        assert_eq!((mode_of(&p), p.show_nsfw), (NsfwMode::Hide, false));
        apply_edit(&mut p, None, Some(false)).unwrap();
        assert_eq!(mode_of(&p), NsfwMode::Hide);
        apply_edit(&mut p, None, Some(true)).unwrap();
        assert_eq!((mode_of(&p), p.show_nsfw), (NsfwMode::Show, true));
        apply_edit(&mut p, None, Some(false)).unwrap();
        assert_eq!((mode_of(&p), p.show_nsfw), (NsfwMode::Blur, false));
        let before = p.clone();
        let e = apply_edit(&mut p, Some("sideways"), None).unwrap_err();
        assert_eq!(e.code, ErrorCode::NsfwModeInvalid);
        assert_eq!(p, before);
        apply_edit(&mut p, None, None).unwrap();
        assert_eq!(p, before);
    }
}
