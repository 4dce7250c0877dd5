//! What viewers did with each popup, for the composer: shows, closes,
//! clicks and "don't show again", each counted every time (`total`) and by
//! distinct viewers (accounts, visitors by their device cookie). A viewer is
//! counted as distinct when their own mark of the popup goes from 0 to 1 for
//! that event: the mark changes by compare-and-set, so two tabs never count
//! one viewer twice. Counters (`popup_stats`) add atomically on every node;
//! a crash between the mark and the counter loses that one count (these are
//! statistics, never money).

use infra::store::{Counters, Key};
use protocol::home::view::{PopupStats, Tally};

use super::HomeService;
use crate::error::ApiError;
use crate::popups::Subject;

/// Something a viewer did with a popup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PopupEvent {
    Shown,
    Closed,
    Clicked,
    DontPop,
}

impl PopupEvent {
    fn name(self) -> &'static str {
        match self {
            PopupEvent::Shown => "shown",
            PopupEvent::Closed => "closed",
            PopupEvent::Clicked => "clicked",
            PopupEvent::DontPop => "dont_pop",
        }
    }
}

fn ck(event: PopupEvent, part: &str) -> Key {
    Key::of(&format!("{}.{part}", event.name()))
}

/// The most popups one stats call reads.
pub const MAX_STATS: usize = 300;

pub(super) async fn count(
    counters: &Counters,
    popup: &str,
    who: &Subject,
    event: PopupEvent,
    first: bool,
) -> Result<(), ApiError> {
    let pk = Key::of(popup);
    // "Don't show again" happens once per viewer: its total is the distinct.
    if event != PopupEvent::DontPop || first {
        counters.add(&pk, &ck(event, "total"), 1).await?;
    }
    if first {
        let part = match who {
            Subject::Account(_) => "accounts",
            Subject::Device(_) => "visitors",
        };
        counters.add(&pk, &ck(event, part), 1).await?;
    }
    Ok(())
}

async fn tally(counters: &Counters, pk: &Key, event: PopupEvent) -> Result<Tally, ApiError> {
    Ok(Tally {
        total: counters.get(pk, &ck(event, "total")).await?,
        accounts: counters.get(pk, &ck(event, "accounts")).await?,
        visitors: counters.get(pk, &ck(event, "visitors")).await?,
    })
}

impl HomeService {
    /// Each popup's statistics, in the order of `ids`.
    pub async fn popup_stats(&self, ids: &[String]) -> Result<Vec<PopupStats>, ApiError> {
        let mut out = Vec::with_capacity(ids.len());
        for id in ids.iter().take(MAX_STATS) {
            let pk = Key::of(id);
            let c = &self.stats;
            out.push(PopupStats {
                id: id.clone(),
                shown: tally(c, &pk, PopupEvent::Shown).await?,
                closed: tally(c, &pk, PopupEvent::Closed).await?,
                clicked: tally(c, &pk, PopupEvent::Clicked).await?,
                dont_pop: tally(c, &pk, PopupEvent::DontPop).await?,
            });
        }
        Ok(out)
    }

    /// The ids of every popup in the draft or the published copy (draft
    /// order first), for the composer's statistics.
    pub async fn popup_ids(&self) -> Result<Vec<String>, ApiError> {
        let mut ids: Vec<String> = self
            .draft()
            .await?
            .popups
            .into_iter()
            .map(|p| p.id)
            .collect();
        for p in self.live().await?.popups {
            if !ids.contains(&p.id) {
                ids.push(p.id);
            }
        }
        Ok(ids)
    }
}
