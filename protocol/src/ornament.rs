//! The ornament shop (spec 3 §7 "Ornament shop", spec 3 §1/§6 "buy and
//! wear profile ornaments"): the wire types of `ornament-shop/*` and
//! `admin/ornament/*`, and their pure rules (what an operator may save,
//! the shop's order and paging, stock, the purchase's ledger key).

use serde::{Deserialize, Serialize};

use crate::ErrorCode;

/// Where an ornament is worn.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", schema(as = OrnamentSlot))]
pub enum Slot {
    /// Over the account's avatar, wherever it is shown.
    Avatar,
    /// Around a published work's picture (cards and the work's page).
    WorkFrame,
}

impl Slot {
    pub const ALL: [Slot; 2] = [Slot::Avatar, Slot::WorkFrame];

    pub fn as_str(self) -> &'static str {
        match self {
            Slot::Avatar => "avatar",
            Slot::WorkFrame => "work_frame",
        }
    }

    pub fn parse(s: &str) -> Option<Slot> {
        Slot::ALL.into_iter().find(|x| x.as_str() == s)
    }
}

/// The ornament's picture: a transparent overlay served by this site.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct OrnamentImage {
    pub url: String,
}

/// An ornament as the shop shows it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ornament {
    pub ornament_id: String,
    pub slot: Slot,
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Credits.
    pub price: i64,
    pub image: OrnamentImage,
    /// On sale. A retired ornament stays worn by those who own it.
    pub active: bool,
    /// Lower first in the shop.
    #[serde(default)]
    pub sort: i32,
    /// Stock for a limited ornament; `None`: unlimited.
    #[serde(default)]
    pub limited: Option<u64>,
    /// How many were sold (counted for limited ornaments only).
    #[serde(default)]
    pub sold: u64,
}

impl Ornament {
    /// Left in stock (`None`: unlimited).
    pub fn stock_left(&self) -> Option<u64> {
        self.limited.map(|n| n.saturating_sub(self.sold))
    }

    /// Whether one more may be sold.
    pub fn in_stock(&self) -> bool {
        self.stock_left().is_none_or(|n| n > 0)
    }
}

/// One item of `ornament-shop/list` and `other-list`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShopItem {
    #[serde(flatten)]
    pub ornament: Ornament,
    pub owned: bool,
    pub worn: bool,
}

/// `ornament-shop/list`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "openapi", schema(as = OrnamentListRequest))]
pub struct ListRequest {
    #[serde(default)]
    pub slot: Option<Slot>,
    #[serde(default)]
    pub page_size: Option<u32>,
    #[serde(default)]
    pub cursor: Option<String>,
}

/// A page of shop items.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShopPage {
    pub items: Vec<ShopItem>,
    pub next_cursor: Option<String>,
}

/// `ornament-shop/other-list`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OtherListRequest {
    pub account_id: String,
}

/// `ornament-shop/worn-of`: the avatar ornaments some accounts wear (for
/// displays that list people without cards: channel members).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WornOfRequest {
    pub account_ids: Vec<String>,
}

/// Accounts per `worn-of` call.
pub const WORN_OF_MAX: usize = 200;

/// `ornament-shop/buy`, `ornament-shop/wear`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrnamentRequest {
    pub ornament_id: String,
}

/// The answer of `buy`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuyResult {
    pub ornament_id: String,
    /// Credits charged by this call (0 when it was owned already).
    pub charged: i64,
    /// False when the caller owned it before this call.
    pub bought: bool,
    /// The settled balance afterwards.
    pub balance: i64,
}

/// `ornament-shop/cancel-wear`: by slot or by the ornament worn.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct CancelWearRequest {
    #[serde(default)]
    pub slot: Option<Slot>,
    #[serde(default)]
    pub ornament_id: Option<String>,
}

/// What the caller wears after `wear` or `cancel-wear`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Worn {
    /// The avatar ornament's image URL.
    pub avatar: Option<String>,
    pub avatar_id: Option<String>,
    /// The default frame of the caller's works (a work's own frame wins).
    pub work_frame: Option<String>,
    pub work_frame_id: Option<String>,
}

/// `ornament-shop/order-list`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct OrderListRequest {
    #[serde(default)]
    pub page_size: Option<u32>,
    #[serde(default)]
    pub cursor: Option<String>,
}

/// One purchase.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrnamentOrder {
    pub ornament_id: String,
    pub slot: Slot,
    pub name: String,
    pub image: OrnamentImage,
    /// Credits paid.
    pub price: i64,
    /// The ledger key it was paid with.
    pub ledger_key: String,
    /// Milliseconds since the epoch.
    pub at: i64,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderPage {
    pub items: Vec<OrnamentOrder>,
    pub next_cursor: Option<String>,
}

/// `ornament-shop/wear-work-frame`: `ornament_id` null takes the frame off.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WearWorkFrameRequest {
    pub work_id: String,
    #[serde(default)]
    pub ornament_id: Option<String>,
}

/// `ornament-shop/work-frame-work`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkFrameRequest {
    pub work_id: String,
}

/// The frame a work wears (its own, else its author's default).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkFrame {
    pub work_id: String,
    pub frame: Option<Ornament>,
}

/// `admin/ornament/upsert`: no `ornament_id` adds one.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", schema(as = OrnamentUpsertRequest))]
pub struct UpsertRequest {
    #[serde(default)]
    pub ornament_id: Option<String>,
    pub slot: Slot,
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub price: i64,
    pub image: OrnamentImage,
    #[serde(default = "yes")]
    pub active: bool,
    #[serde(default)]
    pub sort: i32,
    #[serde(default)]
    pub limited: Option<u64>,
}

fn yes() -> bool {
    true
}

/// Name limit, in characters.
pub const NAME_MAX: usize = 50;
/// Description limit, in characters.
pub const DESCRIPTION_MAX: usize = 500;
/// The highest price an operator may set.
pub const PRICE_MAX: i64 = 1_000_000;
/// Default and largest page.
pub const PAGE_DEFAULT: u32 = 20;
pub const PAGE_MAX: u32 = 100;

/// The checked fields of an upsert: trimmed text, the reason when refused
/// (the `OrnamentInvalid` message).
pub fn validate(r: &UpsertRequest) -> Result<UpsertRequest, String> {
    let name = r.name.trim();
    let n = name.chars().count();
    if n == 0 || n > NAME_MAX || name.chars().any(char::is_control) {
        return Err(format!("name must be 1 to {NAME_MAX} printable characters"));
    }
    let description = r.description.trim();
    if description.chars().count() > DESCRIPTION_MAX
        || description
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return Err(format!(
            "description must be at most {DESCRIPTION_MAX} printable characters"
        ));
    }
    if !(0..=PRICE_MAX).contains(&r.price) {
        return Err(format!("price must be 0 to {PRICE_MAX} credits"));
    }
    let Some(url) = overlay_path(&r.image.url) else {
        return Err("image.url must be an uploaded picture (/files/...)".into());
    };
    if let Some(id) = &r.ornament_id {
        if !is_valid_id(id) {
            return Err("ornament_id is not valid".into());
        }
    }
    Ok(UpsertRequest {
        name: name.to_owned(),
        description: description.to_owned(),
        image: OrnamentImage { url },
        ..r.clone()
    })
}

/// An overlay picture as stored: the site-relative `/files/...` path of an
/// uploaded file. The upload flow answers it with this server's scheme and
/// host (`http(s)://host/files/...`), which is dropped, so the overlay is
/// served by whichever host the page came from (and the page's CSP holds).
/// Anything that is not a `/files/` path is refused.
pub fn overlay_path(url: &str) -> Option<String> {
    if !crate::task::rules::is_valid_image_url(url) {
        return None;
    }
    let lower = url.to_ascii_lowercase();
    let path = if lower.starts_with("https://") || lower.starts_with("http://") {
        let rest = url.split_once("://")?.1;
        rest.find('/').and_then(|i| rest.get(i..))?
    } else {
        url
    };
    (path.starts_with("/files/")
        && !path.contains(['?', '#'])
        && crate::task::rules::is_valid_image_url(path))
    .then(|| path.to_owned())
}

/// Ornament ids: 1 to 64 ASCII letters, digits, '-' or '_'.
pub fn is_valid_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The ledger key of a purchase: the same key however often it is retried
/// or raced, so an account pays for an ornament at most once.
pub fn ledger_key(account: &str, ornament_id: &str) -> String {
    format!("ornament:{account}:{ornament_id}")
}

/// Whether `o` may be bought now: on sale and in stock.
pub fn check_buyable(o: &Ornament) -> Result<(), ErrorCode> {
    if !o.active {
        return Err(ErrorCode::OrnamentNotFound);
    }
    if !o.in_stock() {
        return Err(ErrorCode::OrnamentSoldOut);
    }
    Ok(())
}

/// The shop's order: `sort`, then id.
pub fn shop_order(a: &Ornament, b: &Ornament) -> std::cmp::Ordering {
    (a.sort, &a.ornament_id).cmp(&(b.sort, &b.ornament_id))
}

/// The page size asked for, within bounds.
pub fn page_size(asked: Option<u32>) -> usize {
    asked.unwrap_or(PAGE_DEFAULT).clamp(1, PAGE_MAX) as usize
}

/// The shop cursor: the (sort, id) of the last item shown.
pub fn shop_cursor(o: &Ornament) -> String {
    format!("{}:{}", o.sort, o.ornament_id)
}

fn parse_shop_cursor(c: &str) -> Option<(i32, &str)> {
    let (sort, id) = c.split_once(':')?;
    Some((sort.parse().ok()?, id))
}

/// One page of `sorted` (in [`shop_order`]) after `cursor`, and the next
/// cursor when more follow. Keyed by (sort, id), not by offset, so an
/// ornament added meanwhile shifts nothing; a malformed cursor is
/// `InvalidParams`.
pub fn shop_page<'a>(
    sorted: &'a [Ornament],
    cursor: Option<&str>,
    size: usize,
) -> Result<(&'a [Ornament], Option<String>), ErrorCode> {
    let start = match cursor.filter(|c| !c.is_empty()) {
        None => 0,
        Some(c) => {
            let (sort, id) = parse_shop_cursor(c).ok_or(ErrorCode::InvalidParams)?;
            sorted.partition_point(|o| (o.sort, o.ornament_id.as_str()) <= (sort, id))
        }
    };
    let rest = sorted.get(start..).unwrap_or(&[]);
    let page = rest.get(..size.min(rest.len())).unwrap_or(&[]);
    let next = if rest.len() > page.len() {
        page.last().map(shop_cursor)
    } else {
        None
    };
    Ok((page, next))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn orn(id: &str, sort: i32) -> Ornament {
        Ornament {
            ornament_id: id.into(),
            slot: Slot::Avatar,
            name: id.into(),
            description: String::new(),
            price: 10,
            image: OrnamentImage {
                url: "/files/o.png".into(),
            },
            active: true,
            sort,
            limited: None,
            sold: 0,
        }
    }

    fn req() -> UpsertRequest {
        UpsertRequest {
            ornament_id: None,
            slot: Slot::Avatar,
            name: "  Halo ".into(),
            description: "gold".into(),
            price: 100,
            image: OrnamentImage {
                url: "/files/up/abc/halo.png".into(),
            },
            active: true,
            sort: 0,
            limited: None,
        }
    }

    #[test]
    fn upsert_validation_table() {
        let ok = validate(&req()).unwrap();
        assert_eq!(ok.name, "Halo");
        let mut abs = req();
        abs.image.url = "https://easel.example/files/up/abc/halo.png".into();
        assert_eq!(validate(&abs).unwrap().image.url, "/files/up/abc/halo.png");
        type Edit = fn(&mut UpsertRequest);
        let table: &[(&str, Edit, bool)] = &[
            ("empty name", |r| r.name = "  ".into(), false),
            ("long name", |r| r.name = "x".repeat(51), false),
            ("50 chars", |r| r.name = "é".repeat(50), true),
            ("control in name", |r| r.name = "a\u{7}".into(), false),
            (
                "long description",
                |r| r.description = "d".repeat(501),
                false,
            ),
            (
                "newline in description",
                |r| r.description = "a\nb".into(),
                true,
            ),
            ("negative price", |r| r.price = -1, false),
            ("free", |r| r.price = 0, true),
            ("price at max", |r| r.price = PRICE_MAX, true),
            ("price over max", |r| r.price = PRICE_MAX + 1, false),
            (
                "not an upload",
                |r| r.image.url = "https://evil.example/a.png".into(),
                false,
            ),
            (
                "upload answer",
                |r| r.image.url = "http://127.0.0.1:8080/files/u/a.png".into(),
                true,
            ),
            (
                "query",
                |r| r.image.url = "/files/u/a.png?x=1".into(),
                false,
            ),
            (
                "data url",
                |r| r.image.url = "data:image/png;base64,AA".into(),
                false,
            ),
            (
                "dot dot",
                |r| r.image.url = "/files/../secret".into(),
                false,
            ),
            ("empty url", |r| r.image.url = String::new(), false),
            ("bad id", |r| r.ornament_id = Some("a b".into()), false),
            ("good id", |r| r.ornament_id = Some("halo-1_x".into()), true),
        ];
        for (name, edit, want) in table {
            let mut r = req();
            edit(&mut r);
            assert_eq!(validate(&r).is_ok(), *want, "{name}");
        }
    }

    #[test]
    fn stock_and_buyable() {
        // (active, limited, sold) -> (buyable, left)
        type Row = (bool, Option<u64>, u64, Result<(), ErrorCode>, Option<u64>);
        let table: &[Row] = &[
            (true, None, 99, Ok(()), None),
            (true, Some(2), 1, Ok(()), Some(1)),
            (true, Some(2), 2, Err(ErrorCode::OrnamentSoldOut), Some(0)),
            (true, Some(2), 5, Err(ErrorCode::OrnamentSoldOut), Some(0)),
            (true, Some(0), 0, Err(ErrorCode::OrnamentSoldOut), Some(0)),
            (false, None, 0, Err(ErrorCode::OrnamentNotFound), None),
        ];
        for (active, limited, sold, want, left) in table {
            let o = Ornament {
                active: *active,
                limited: *limited,
                sold: *sold,
                ..orn("a", 0)
            };
            assert_eq!(check_buyable(&o), *want, "{o:?}");
            assert_eq!(o.stock_left(), *left);
        }
    }

    #[test]
    fn paging_by_sort_then_id_has_no_gap_and_no_repeat() {
        let mut all = vec![
            orn("c", 1),
            orn("a", 2),
            orn("b", 1),
            orn("z", -5),
            orn("d", 1),
        ];
        all.sort_by(shop_order);
        let ids: Vec<&str> = all.iter().map(|o| o.ornament_id.as_str()).collect();
        assert_eq!(ids, ["z", "b", "c", "d", "a"]);
        let mut seen = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let (page, next) = shop_page(&all, cursor.as_deref(), 2).unwrap();
            seen.extend(page.iter().map(|o| o.ornament_id.clone()));
            match next {
                Some(n) => cursor = Some(n),
                None => break,
            }
        }
        assert_eq!(seen, ids);
        // An ornament added before the cursor does not shift the next page.
        let (_, next) = shop_page(&all, None, 2).unwrap();
        all.push(orn("a0", -9));
        all.sort_by(shop_order);
        let (page, _) = shop_page(&all, next.as_deref(), 2).unwrap();
        assert_eq!(page[0].ornament_id, "c");
        assert_eq!(
            shop_page(&all, Some("nope"), 2).unwrap_err(),
            ErrorCode::InvalidParams
        );
        assert!(shop_page(&all, Some("9:zz"), 2).unwrap().0.is_empty());
        assert_eq!(page_size(None), 20);
        assert_eq!(page_size(Some(0)), 1);
        assert_eq!(page_size(Some(1000)), 100);
    }

    #[test]
    fn wire_format_is_pinned() {
        let item = ShopItem {
            ornament: Ornament {
                limited: Some(3),
                sold: 1,
                ..orn("halo", 0)
            },
            owned: true,
            worn: false,
        };
        assert_eq!(
            serde_json::to_value(&item).unwrap(),
            serde_json::json!({"ornament_id": "halo", "slot": "avatar", "name": "halo",
                "description": "", "price": 10, "image": {"url": "/files/o.png"},
                "active": true, "sort": 0, "limited": 3, "sold": 1,
                "owned": true, "worn": false})
        );
        let r: UpsertRequest = serde_json::from_str(
            r#"{"slot":"work_frame","name":"Gilt","price":5,"image":{"url":"/files/g.png"}}"#,
        )
        .unwrap();
        assert!(r.active);
        assert_eq!(r.slot, Slot::WorkFrame);
        assert_eq!(Slot::parse("work_frame"), Some(Slot::WorkFrame));
        assert_eq!(Slot::parse("hat"), None);
        assert_eq!(ledger_key("acc", "halo"), "ornament:acc:halo");
        let c: CancelWearRequest = serde_json::from_str(r#"{"slot":"avatar"}"#).unwrap();
        assert_eq!(c.slot, Some(Slot::Avatar));
    }
}
