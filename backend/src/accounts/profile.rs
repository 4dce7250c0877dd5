//! Personal settings besides the square's profile (issue 21): links
//! (http(s) only, at most 5), language, which notification kinds notify
//! (`account/prefs`), and the avatar upload (`account/avatar`: an image
//! cropped to a square and resized to 256 px with the `image` crate, stored
//! as PNG under `avatars/{account}/`, then set through the square's
//! profile, which keeps name, bio, avatar and the NSFW choice).

use std::collections::BTreeMap;
use std::io::Cursor;

use image::imageops::FilterType;
use image::{GenericImageView, ImageFormat};
use infra::objects::ObjectKey;
use infra::store::{Key, Table};
use protocol::square::social::NotificationKind;
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};

use super::sessions::SecurityService;
use super::AccountRow;
use crate::error::ApiError;

pub const AVATAR_PX: u32 = 256;
pub const AVATAR_MAX_BYTES: usize = 8 << 20;
/// Larger images are refused before decoding (a decompression bomb guard).
pub const AVATAR_MAX_SIDE: u32 = 8192;
pub const MAX_LINKS: usize = 5;
pub const MAX_LINK_CHARS: usize = 300;
/// The notification kinds a person may turn off (moderation notices always come).
/// `sign_in` is the "new sign-in" mail (`signin_notice.rs`); `activity` an activity's result.
pub const NOTIFY_KINDS: [&str; 7] = [
    "like", "collect", "comment", "reply", "follow", "sign_in", "activity",
];
/// The app's languages (spec 3 §3).
pub const LANGUAGES: [&str; 23] = [
    "en", "ja", "zhCN", "nl", "ar", "fr", "de", "id", "it", "ko", "pt", "ru", "es", "tr", "uk",
    "vi", "th", "pl", "ro", "el", "cs", "fi", "hi",
];

/// The stored preferences.
#[derive(utoipa::ToSchema, Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct PrefsRow {
    #[serde(default)]
    pub links: Vec<String>,
    /// Empty: the browser's language.
    #[serde(default)]
    pub language: String,
    /// Kinds turned off (absent = on).
    #[serde(default)]
    pub notify_off: Vec<String>,
}

/// `account/prefs` answers this.
#[derive(utoipa::ToSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PrefsView {
    pub links: Vec<String>,
    /// Empty: the browser's language.
    pub language: String,
    /// Every kind of [`NOTIFY_KINDS`] with whether it notifies.
    pub notify: BTreeMap<String, bool>,
}

/// `account/prefs/update`: absent fields stay.
#[derive(utoipa::ToSchema, Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrefsChange {
    pub links: Option<Vec<String>>,
    pub language: Option<String>,
    pub notify: Option<BTreeMap<String, bool>>,
}

/// The wire name of a notification kind.
pub fn kind_name(kind: NotificationKind) -> &'static str {
    match kind {
        NotificationKind::Like => "like",
        NotificationKind::Collect => "collect",
        NotificationKind::Comment => "comment",
        NotificationKind::Reply => "reply",
        NotificationKind::Follow => "follow",
        NotificationKind::Moderation => "moderation",
        NotificationKind::Activity => "activity",
    }
}

/// Links: absolute http(s) URLs with a host, no credentials, at most 5.
pub fn check_links(links: &[String]) -> Result<Vec<String>, ApiError> {
    if links.len() > MAX_LINKS {
        return Err(ErrorCode::ProfileLinkInvalid.into());
    }
    links
        .iter()
        .map(|l| {
            let l = l.trim();
            let bad = || ApiError::new(ErrorCode::ProfileLinkInvalid);
            if l.chars().count() > MAX_LINK_CHARS {
                return Err(bad());
            }
            let url = reqwest::Url::parse(l).map_err(|_| bad())?;
            let ok = matches!(url.scheme(), "http" | "https")
                && url.host_str().is_some_and(|h| !h.is_empty())
                && url.username().is_empty()
                && url.password().is_none();
            if ok {
                Ok(url.to_string())
            } else {
                Err(bad())
            }
        })
        .collect()
}

/// Crops the largest centred square (or the square `crop` = (x, y, side) in
/// the image's pixels) and resizes it to [`AVATAR_PX`]; answers PNG bytes.
pub fn make_avatar(bytes: &[u8], crop: Option<(u32, u32, u32)>) -> Result<Vec<u8>, ApiError> {
    let bad = || ApiError::new(ErrorCode::AvatarInvalid);
    if bytes.is_empty() || bytes.len() > AVATAR_MAX_BYTES {
        return Err(bad());
    }
    let reader = image::ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|_| bad())?;
    if !matches!(
        reader.format(),
        Some(ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::Gif)
    ) {
        return Err(bad());
    }
    let (w, h) = reader.into_dimensions().map_err(|_| bad())?;
    if w == 0 || h == 0 || w > AVATAR_MAX_SIDE || h > AVATAR_MAX_SIDE {
        return Err(bad());
    }
    let img = image::load_from_memory(bytes).map_err(|_| bad())?;
    let (x, y, side) = match crop {
        Some((x, y, side)) => {
            if side == 0
                || x.checked_add(side).is_none_or(|r| r > w)
                || y.checked_add(side).is_none_or(|b| b > h)
            {
                return Err(bad());
            }
            (x, y, side)
        }
        None => {
            let side = w.min(h);
            ((w - side) / 2, (h - side) / 2, side)
        }
    };
    let square = img.view(x, y, side, side).to_image();
    let resized = image::imageops::resize(&square, AVATAR_PX, AVATAR_PX, FilterType::Lanczos3);
    let mut out = Vec::new();
    image::DynamicImage::ImageRgba8(resized)
        .write_to(&mut Cursor::new(&mut out), ImageFormat::Png)
        .map_err(ApiError::internal)?;
    Ok(out)
}

impl SecurityService {
    pub async fn prefs_row(&self, account_id: &str) -> Result<PrefsRow, ApiError> {
        Ok(self
            .profiles
            .get(&Key::of(account_id), &Key::empty())
            .await?
            .unwrap_or_default())
    }

    /// Whether `kind` notifies the account (moderation always does).
    pub async fn wants(&self, account_id: &str, kind: NotificationKind) -> bool {
        wants(&self.profiles, account_id, kind).await
    }

    fn view(p: PrefsRow) -> PrefsView {
        PrefsView {
            notify: NOTIFY_KINDS
                .iter()
                .map(|k| ((*k).to_owned(), !p.notify_off.iter().any(|o| o == k)))
                .collect(),
            links: p.links,
            language: p.language,
        }
    }

    pub async fn prefs(&self, account_id: &str) -> Result<PrefsView, ApiError> {
        Ok(Self::view(self.prefs_row(account_id).await?))
    }

    /// Changes the preferences (compare-and-set, retried).
    pub async fn update_prefs(
        &self,
        account_id: &str,
        change: PrefsChange,
    ) -> Result<PrefsView, ApiError> {
        let links = change.links.as_deref().map(check_links).transpose()?;
        if let Some(l) = &change.language {
            if !l.is_empty() && !LANGUAGES.contains(&l.as_str()) {
                return Err(ErrorCode::ProfileSettingInvalid.into());
            }
        }
        if let Some(n) = &change.notify {
            if n.keys().any(|k| !NOTIFY_KINDS.contains(&k.as_str())) {
                return Err(ErrorCode::ProfileSettingInvalid.into());
            }
        }
        let pk = Key::of(account_id);
        let next = loop {
            let before = self.profiles.get(&pk, &Key::empty()).await?;
            let mut p = before.clone().unwrap_or_default();
            if let Some(l) = &links {
                p.links = l.clone();
            }
            if let Some(l) = &change.language {
                p.language = l.clone();
            }
            if let Some(n) = &change.notify {
                for (k, on) in n {
                    p.notify_off.retain(|o| o != k);
                    if !on {
                        p.notify_off.push(k.clone());
                    }
                }
            }
            let done = match &before {
                Some(b) => self
                    .profiles
                    .compare_and_set(&pk, &Key::empty(), b, Some(&p))
                    .await?
                    .is_ok(),
                None => self
                    .profiles
                    .insert_if_absent(&pk, &Key::empty(), &p)
                    .await?
                    .is_ok(),
            };
            if done {
                break p;
            }
        };
        Ok(Self::view(next))
    }

    /// Stores a new avatar (square, 256 px PNG) and answers its `/files/` URL;
    /// the caller sets it on the profile. `previous`: the avatar it replaces,
    /// removed when it was one of ours.
    pub async fn store_avatar(
        &self,
        account: &AccountRow,
        bytes: Vec<u8>,
        crop: Option<(u32, u32, u32)>,
    ) -> Result<String, ApiError> {
        let png = tokio::task::spawn_blocking(move || make_avatar(&bytes, crop))
            .await
            .map_err(ApiError::internal)??;
        let name = format!(
            "avatars/{}/{}.png",
            account.id,
            hex::encode(rand::random::<[u8; 12]>())
        );
        let key = ObjectKey::parse(&name).map_err(ApiError::internal)?;
        self.objects
            .put(&key, png, "image/png")
            .await
            .map_err(ApiError::internal)?;
        Ok(format!("/files/{name}"))
    }

    /// Removes a replaced avatar of ours (never someone's upload).
    pub async fn drop_avatar(&self, account: &AccountRow, url: &str) {
        let prefix = format!("/files/avatars/{}/", account.id);
        if !url.starts_with(&prefix) {
            return;
        }
        if let Some(k) = url
            .strip_prefix("/files/")
            .and_then(|k| ObjectKey::parse(k).ok())
        {
            if let Err(e) = self.objects.delete(&k).await {
                tracing::warn!(error = %e, "an old avatar was not removed");
            }
        }
    }
}

/// Whether `kind` notifies `account_id`, from its preferences (moderation
/// always does; a store failure notifies).
pub async fn wants(prefs: &Table<PrefsRow>, account_id: &str, kind: NotificationKind) -> bool {
    if kind == NotificationKind::Moderation {
        return true;
    }
    match prefs.get(&Key::of(account_id), &Key::empty()).await {
        Ok(Some(p)) => !p.notify_off.iter().any(|k| k == kind_name(kind)),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn png(w: u32, h: u32) -> Vec<u8> {
        let img = image::RgbImage::from_fn(w, h, |x, _| {
            if x < w / 2 {
                image::Rgb([255, 0, 0])
            } else {
                image::Rgb([0, 0, 255])
            }
        });
        let mut out = Vec::new();
        image::DynamicImage::ImageRgb8(img)
            .write_to(&mut Cursor::new(&mut out), ImageFormat::Png)
            .unwrap();
        out
    }

    #[test]
    fn avatars_are_square_256_pngs() {
        let out = make_avatar(&png(600, 300), None).unwrap();
        let img = image::load_from_memory(&out).unwrap();
        assert_eq!(img.dimensions(), (256, 256));
        // Centre crop of a half-red, half-blue image keeps both halves.
        let left = img.get_pixel(10, 128);
        let right = img.get_pixel(245, 128);
        assert!(left.0[0] > 200 && left.0[2] < 50);
        assert!(right.0[2] > 200 && right.0[0] < 50);
        // A crop of the left quarter is all red.
        let out = make_avatar(&png(600, 300), Some((0, 0, 150))).unwrap();
        let img = image::load_from_memory(&out).unwrap();
        assert!(img.get_pixel(250, 128).0[0] > 200);
    }

    #[test]
    fn bad_avatars_are_refused() {
        let code = |r: Result<Vec<u8>, ApiError>| r.err().map(|e| e.code);
        let bad = Some(ErrorCode::AvatarInvalid);
        assert_eq!(code(make_avatar(b"not an image", None)), bad);
        assert_eq!(code(make_avatar(&[], None)), bad);
        assert_eq!(code(make_avatar(&png(100, 100), Some((50, 50, 60)))), bad);
        assert_eq!(code(make_avatar(&png(100, 100), Some((0, 0, 0)))), bad);
    }

    #[test]
    fn links_must_be_http_and_few() {
        assert!(check_links(&["https://example.com/me".into()]).is_ok());
        assert!(check_links(&["http://a.b".into()]).is_ok());
        for bad in [
            "javascript:alert(1)",
            "ftp://x.y",
            "example.com",
            "https://user:pw@x.y",
            "data:text/html,hi",
        ] {
            assert!(check_links(&[bad.into()]).is_err(), "{bad}");
        }
        let six: Vec<String> = (0..6).map(|i| format!("https://x{i}.y")).collect();
        assert!(check_links(&six).is_err());
    }
}
