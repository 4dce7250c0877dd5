//! The square's side of theme activities (`backend/src/activities/`
//! decides): which works still show in shared lists (public, not hidden,
//! not out of feeds, author not banned; deleted works are gone from the
//! index), and the activity marks work cards carry (spec 1 §3), read from
//! the activities' in-memory mark map so a feed page costs no store read.

use super::SquareService;

impl SquareService {
    /// Shows the activity marks on work cards.
    pub fn with_activity_marks(self, marks: crate::activities::marks::ActivityMarks) -> Self {
        let _ = self.inner.activity_marks.set(marks);
        self
    }

    /// For each id, whether the work shows in shared lists now: public,
    /// not hidden, not banned from feeds, its author not banned, not deleted.
    pub async fn shown_in_lists(&self, ids: &[&str]) -> Vec<bool> {
        self.ready().await;
        let Ok(ix) = self.inner.index.read() else {
            return vec![false; ids.len()];
        };
        ids.iter()
            .map(|id| {
                ix.get(id).is_some_and(|e| {
                    e.visibility == protocol::square::Visibility::Public
                        && !e.hidden
                        && !e.feed_banned
                        && !ix.author(&e.author).is_some_and(|a| a.banned)
                })
            })
            .collect()
    }

    /// Puts the marks on the cards of marked works.
    pub(crate) fn mark_cards(&self, cards: &mut [protocol::square::card::Card]) {
        if let Some(m) = self.inner.activity_marks.get() {
            m.mark_cards(cards);
        }
    }
}
