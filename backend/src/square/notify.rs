//! Notifications: a row per event in the recipient's partition (newest
//! last), a read mark, and push frame 13 to the recipient's sockets with the
//! unread count. Unread = rows after the read mark, counted up to
//! [`UNREAD_CAP`] (the badge shows "99+").

use infra::bus::PushContent;
use infra::store::{Key, ScanRange};
use protocol::frame::FrameType;
use protocol::square::social::{Notification, NotificationKind, NotificationPage};
use std::ops::Bound;

use super::cursor::Cursor;
use super::row::NotificationRow;
use super::SquareService;
use crate::accounts::now_millis;
use crate::error::ApiError;

/// Unread notifications are counted up to this.
pub const UNREAD_CAP: usize = 100;

impl SquareService {
    /// Records and pushes a notification (never to oneself). Failures are
    /// logged: a lost notification must not fail the like that caused it.
    pub async fn notify(
        &self,
        to: &str,
        actor: &str,
        kind: NotificationKind,
        obj: Option<(&str, u8)>,
        text: &str,
    ) {
        if to == actor {
            return;
        }
        // The recipient may have turned this kind off (`account/prefs`).
        if !crate::accounts::profile::wants(&self.inner.t.prefs, to, kind).await {
            return;
        }
        let now = now_millis();
        let row = NotificationRow {
            id: uuid::Uuid::now_v7().simple().to_string(),
            kind,
            actor: actor.to_owned(),
            obj_id: obj.map(|o| o.0.to_owned()),
            obj_type: obj.map(|o| o.1),
            text: text.chars().take(120).collect(),
            create_at: now,
        };
        let put = self
            .inner
            .t
            .notifications
            .put(&Key::of(to), &Key::empty().i64(now).str(&row.id), &row)
            .await;
        if let Err(e) = put {
            tracing::warn!(error = %e, "square: a notification was not stored");
            return;
        }
        let unread = self.unread(to).await.unwrap_or(0);
        let mut n = self.notification_view(row, false).await;
        n.unread = unread;
        match PushContent::new(&n) {
            Ok(c) => {
                self.inner
                    .bus
                    .push_to_users(&[to.to_owned()], FrameType::Notification.as_u16(), c)
                    .await
            }
            Err(e) => tracing::warn!(error = %e, "square: a notification was not encoded"),
        }
    }

    async fn read_mark(&self, who: &str) -> Result<i64, ApiError> {
        Ok(self
            .inner
            .t
            .notifications_read
            .get(&Key::of(who), &Key::empty())
            .await?
            .unwrap_or(0))
    }

    /// Unread notifications, at most [`UNREAD_CAP`].
    pub async fn unread(&self, who: &str) -> Result<i64, ApiError> {
        let mark = self.read_mark(who).await?;
        let mut range = ScanRange::all(UNREAD_CAP as u32).desc();
        range.from = Bound::Excluded(Key::empty().i64(mark).str("\u{10FFFF}"));
        let page = self
            .inner
            .t
            .notifications
            .scan(&Key::of(who), &range)
            .await?;
        Ok(page.rows.len() as i64)
    }

    async fn notification_view(&self, r: NotificationRow, read: bool) -> Notification {
        Notification {
            id: r.id,
            kind: r.kind,
            actor: self.card_author(&r.actor).await,
            obj_id: r.obj_id,
            obj_type: r.obj_type,
            text: r.text,
            create_at: r.create_at,
            read,
            unread: 0,
        }
    }

    /// `notification/list`: newest first.
    pub async fn notifications(
        &self,
        who: &str,
        cursor: Option<&str>,
        n: usize,
    ) -> Result<NotificationPage, ApiError> {
        let mark = self.read_mark(who).await?;
        let mut range = ScanRange::all(n as u32 + 1).desc();
        if let Some(Cursor::Time { ms, id, .. }) = Cursor::parse(cursor)? {
            range.to = Bound::Excluded(Key::empty().i64(ms).str(&id));
        }
        let page = self
            .inner
            .t
            .notifications
            .scan(&Key::of(who), &range)
            .await?;
        let more = page.rows.len() > n;
        let mut items = Vec::new();
        for (_, r) in page.rows.into_iter().take(n) {
            let read = r.create_at <= mark;
            items.push(self.notification_view(r, read).await);
        }
        Ok(NotificationPage {
            next_cursor: if more {
                items.last().map(|l| {
                    Cursor::Time {
                        anchor: 0,
                        ms: l.create_at,
                        id: l.id.clone(),
                    }
                    .encode()
                })
            } else {
                None
            },
            unread: self.unread(who).await?,
            items,
        })
    }

    /// `notification/read`: everything up to now is read.
    pub async fn mark_read(&self, who: &str) -> Result<(), ApiError> {
        self.inner
            .t
            .notifications_read
            .put(&Key::of(who), &Key::empty(), &now_millis())
            .await?;
        Ok(())
    }
}
