//! The ornament shop (spec 3 §7, issue 16 item 5): the catalogue operators
//! keep, buying with credits through the ledger (one ledger hold and settle
//! keyed by the purchase, so a retry or a race pays once), what an account
//! owns and wears (one ornament per slot), and the frames of works.
//!
//! A purchase, in order: the ownership row answers "owned" before anything
//! else; a limited ornament's stock unit is claimed (one claim row per
//! buyer, counted in the catalogue row by compare-and-set, released if the
//! credits do not cover it); the price is held then settled under
//! `ornament:{account}:{ornament}` (never voided, so a settled or already
//! resolved hold of that key always means paid); then the ownership row is
//! inserted if absent. A crash anywhere is finished by the next attempt,
//! which finds the hold resolved and charges nothing more.

pub mod decor;

use std::collections::{HashMap, HashSet};

use infra::store::{tables, DynStore, Key, ScanRange, Table};
use protocol::ornament::{
    self, BuyResult, CancelWearRequest, ListRequest, OrderListRequest, OrderPage, Ornament,
    OrnamentOrder, ShopItem, ShopPage, Slot, UpsertRequest, WearWorkFrameRequest, Worn,
};
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};

use crate::accounts::now_millis;
use crate::credits::Ledger;
use crate::error::ApiError;
use crate::square::row::WorkRow;
pub use decor::Decor;
use decor::{WorkFrameRow, WornRow, BUCKET};

/// `ORNAMENTS_OWNED` (pk account, ck ornament): a purchase.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OwnedRow {
    pub slot: Slot,
    /// Credits paid.
    pub price: i64,
    /// Milliseconds since the epoch.
    pub at: i64,
}

/// Ornaments one account may own at most (bounds the owned-partition reads).
const OWNED_MAX: u32 = 2_000;

#[derive(Clone)]
pub struct OrnamentService {
    decor: Decor,
    ledger: Ledger,
    owned: Table<OwnedRow>,
    claims: Table<i64>,
    works: Table<WorkRow>,
}

fn invalid(msg: impl Into<String>) -> ApiError {
    ApiError::with_msg(ErrorCode::OrnamentInvalid, msg.into())
}

impl OrnamentService {
    pub fn new(store: DynStore, ledger: Ledger, decor: Decor) -> OrnamentService {
        OrnamentService {
            decor,
            ledger,
            owned: Table::new(store.clone(), &tables::ORNAMENTS_OWNED),
            claims: Table::new(store.clone(), &tables::ORNAMENT_CLAIMS),
            works: Table::new(store, &tables::WORKS),
        }
    }

    pub fn decor(&self) -> &Decor {
        &self.decor
    }

    async fn ornament(&self, id: &str) -> Result<Ornament, ApiError> {
        if !ornament::is_valid_id(id) {
            return Err(ErrorCode::OrnamentNotFound.into());
        }
        Ok(self
            .decor
            .ornaments_table()
            .get(&Key::of(BUCKET), &Key::of(id))
            .await?
            .ok_or(ErrorCode::OrnamentNotFound)?)
    }

    /// `admin/ornament/upsert`: adds (no id) or changes an ornament; its
    /// slot is fixed once made and its sold count is kept.
    pub async fn upsert(&self, r: &UpsertRequest) -> Result<Ornament, ApiError> {
        let r = ornament::validate(r).map_err(invalid)?;
        let t = self.decor.ornaments_table();
        let pk = Key::of(BUCKET);
        let make = |id: String, sold: u64| Ornament {
            ornament_id: id,
            slot: r.slot,
            name: r.name.clone(),
            description: r.description.clone(),
            price: r.price,
            image: r.image.clone(),
            active: r.active,
            sort: r.sort,
            limited: r.limited,
            sold,
        };
        let saved = match &r.ornament_id {
            None => {
                let o = make(uuid::Uuid::now_v7().simple().to_string(), 0);
                if t.insert_if_absent(&pk, &Key::of(&o.ornament_id), &o)
                    .await?
                    .is_err()
                {
                    return Err(ErrorCode::Conflict.into());
                }
                o
            }
            Some(id) => {
                let ck = Key::of(id);
                match t.get(&pk, &ck).await? {
                    None => {
                        // An operator's own id for a new ornament.
                        let o = make(id.clone(), 0);
                        if let Err(present) = t.insert_if_absent(&pk, &ck, &o).await? {
                            return Err(ApiError::with_msg(
                                ErrorCode::Conflict,
                                format!("ornament {} was added meanwhile", present.ornament_id),
                            ));
                        }
                        o
                    }
                    Some(old) if old.slot != r.slot => {
                        return Err(invalid("an ornament's slot cannot change"));
                    }
                    Some(old) => t
                        .update(&pk, &ck, Some(old), |o| *o = make(id.clone(), o.sold))
                        .await?
                        .ok_or(ErrorCode::OrnamentNotFound)?,
                }
            }
        };
        self.decor.reload().await?;
        Ok(saved)
    }

    /// `admin/ornament/list`: every ornament, retired ones too.
    pub async fn admin_list(&self) -> Result<Vec<Ornament>, ApiError> {
        let mut all = self.decor.reload().await?;
        all.sort_by(ornament::shop_order);
        Ok(all)
    }

    async fn owned_rows(&self, account: &str) -> Result<Vec<(String, OwnedRow)>, ApiError> {
        let page = self
            .owned
            .scan(&Key::of(account), &ScanRange::all(OWNED_MAX))
            .await?;
        Ok(page
            .rows
            .into_iter()
            .filter_map(|(k, v)| k.reader().str().map(|id| (id, v)))
            .collect())
    }

    /// What `account` wears, read from the Store (the truth, not the cache).
    async fn wear_row(&self, account: &str) -> Result<decor::AccountWear, ApiError> {
        let keys: Vec<(Key, Key)> = Slot::ALL
            .into_iter()
            .map(|s| (Key::of(account), Key::of(s.as_str())))
            .collect();
        let rows = self.decor.worn_table().get_many(&keys).await?;
        let mut rows = rows.into_iter();
        let mut next = || rows.next().flatten().map(|r| r.ornament_id);
        Ok(decor::AccountWear {
            avatar: next(),
            work_frame: next(),
        })
    }

    /// `ornament-shop/list`: ornaments on sale, in the shop's order, with
    /// the viewer's owned and worn flags.
    pub async fn list(&self, viewer: Option<&str>, r: &ListRequest) -> Result<ShopPage, ApiError> {
        let mut all: Vec<Ornament> = self
            .decor
            .read_catalogue()
            .await?
            .into_iter()
            .filter(|o| o.active && r.slot.is_none_or(|s| s == o.slot))
            .collect();
        all.sort_by(ornament::shop_order);
        let (page, next) =
            ornament::shop_page(&all, r.cursor.as_deref(), ornament::page_size(r.page_size))?;
        let (owned, wear) = match viewer {
            Some(v) => {
                let owned: HashSet<String> = self
                    .owned_rows(v)
                    .await?
                    .into_iter()
                    .map(|(id, _)| id)
                    .collect();
                (owned, self.wear_row(v).await?)
            }
            None => (HashSet::new(), decor::AccountWear::default()),
        };
        Ok(ShopPage {
            items: page
                .iter()
                .map(|o| ShopItem {
                    owned: owned.contains(&o.ornament_id),
                    worn: wear.get(o.slot) == Some(&o.ornament_id),
                    ornament: o.clone(),
                })
                .collect(),
            next_cursor: next,
        })
    }

    /// `ornament-shop/other-list`: what another account owns and wears
    /// (retired ornaments too), worn first, then by the shop's order.
    pub async fn other_list(&self, account: &str) -> Result<Vec<ShopItem>, ApiError> {
        let owned = self.owned_rows(account).await?;
        let wear = self.wear_row(account).await?;
        let catalogue: HashMap<String, Ornament> = self
            .decor
            .read_catalogue()
            .await?
            .into_iter()
            .map(|o| (o.ornament_id.clone(), o))
            .collect();
        let mut items: Vec<ShopItem> = owned
            .into_iter()
            .filter_map(|(id, _)| catalogue.get(&id).cloned())
            .map(|o| ShopItem {
                worn: wear.get(o.slot) == Some(&o.ornament_id),
                owned: true,
                ornament: o,
            })
            .collect();
        items.sort_by(|a, b| {
            b.worn
                .cmp(&a.worn)
                .then_with(|| ornament::shop_order(&a.ornament, &b.ornament))
        });
        Ok(items)
    }

    /// `ornament-shop/buy`.
    pub async fn buy(&self, account: &str, id: &str) -> Result<BuyResult, ApiError> {
        let o = self.ornament(id).await?;
        let (pk, ck) = (Key::of(account), Key::of(id));
        if self.owned.get(&pk, &ck).await?.is_some() {
            return Ok(BuyResult {
                ornament_id: o.ornament_id,
                charged: 0,
                bought: false,
                balance: self.ledger.balance(account).await?.balance,
            });
        }
        ornament::check_buyable(&o)?;
        let claimed_now = if o.limited.is_some() {
            self.claim_stock(account, &o).await?
        } else {
            false
        };
        let key = ornament::ledger_key(account, id);
        let mut charged = 0;
        if o.price > 0 {
            if let Err(e) = self.ledger.hold(account, &key, o.price).await {
                if claimed_now {
                    self.release_stock(account, id).await;
                }
                return Err(e);
            }
            // The key is never voided: `Already` means paid by an earlier
            // or concurrent attempt.
            if let crate::credits::Resolved::Now(n) = self.ledger.settle(account, &key).await? {
                charged = n;
            }
        }
        let row = OwnedRow {
            slot: o.slot,
            price: o.price,
            at: now_millis(),
        };
        // A concurrent attempt may have written it first: the same purchase.
        let _ = self.owned.insert_if_absent(&pk, &ck, &row).await?;
        Ok(BuyResult {
            ornament_id: o.ornament_id,
            charged,
            bought: true,
            balance: self.ledger.balance(account).await?.balance,
        })
    }

    /// Claims one stock unit of a limited ornament for `account`. True when
    /// this call claimed it (false: an earlier or concurrent attempt did).
    async fn claim_stock(&self, account: &str, o: &Ornament) -> Result<bool, ApiError> {
        let (pk, ck) = (Key::of(&o.ornament_id), Key::of(account));
        if self
            .claims
            .insert_if_absent(&pk, &ck, &now_millis())
            .await?
            .is_err()
        {
            return Ok(false);
        }
        let mut sold_out = false;
        self.decor
            .ornaments_table()
            .update(&Key::of(BUCKET), &Key::of(&o.ornament_id), None, |row| {
                sold_out = !row.in_stock();
                if !sold_out {
                    row.sold += 1;
                }
            })
            .await?;
        if sold_out {
            self.claims.delete(&pk, &ck).await?;
            return Err(ErrorCode::OrnamentSoldOut.into());
        }
        Ok(true)
    }

    /// Gives back a unit claimed by a purchase the credits did not cover.
    async fn release_stock(&self, account: &str, id: &str) {
        let undo = async {
            self.decor
                .ornaments_table()
                .update(&Key::of(BUCKET), &Key::of(id), None, |row| {
                    row.sold = row.sold.saturating_sub(1);
                })
                .await?;
            self.claims.delete(&Key::of(id), &Key::of(account)).await
        };
        if let Err(e) = undo.await {
            tracing::warn!(error = %e, ornament = id, "ornaments: releasing a stock unit failed");
        }
    }

    /// `ornament-shop/order-list`: the caller's purchases, newest first.
    pub async fn orders(&self, account: &str, r: &OrderListRequest) -> Result<OrderPage, ApiError> {
        let mut owned = self.owned_rows(account).await?;
        owned.sort_by(|(ia, a), (ib, b)| (b.at, ib).cmp(&(a.at, ia)));
        let start = match r.cursor.as_deref().filter(|c| !c.is_empty()) {
            None => 0,
            Some(c) => {
                let (at, id) = c
                    .split_once(':')
                    .and_then(|(at, id)| Some((at.parse::<i64>().ok()?, id)))
                    .ok_or(ErrorCode::InvalidParams)?;
                owned.partition_point(|(i, o)| (o.at, i.as_str()) >= (at, id))
            }
        };
        let size = ornament::page_size(r.page_size);
        let rest = owned.get(start..).unwrap_or(&[]);
        let page = rest.get(..size.min(rest.len())).unwrap_or(&[]);
        let next = (rest.len() > page.len())
            .then(|| page.last().map(|(id, o)| format!("{}:{id}", o.at)))
            .flatten();
        let catalogue: HashMap<String, Ornament> = self
            .decor
            .read_catalogue()
            .await?
            .into_iter()
            .map(|o| (o.ornament_id.clone(), o))
            .collect();
        Ok(OrderPage {
            items: page
                .iter()
                .map(|(id, row)| {
                    let o = catalogue.get(id);
                    OrnamentOrder {
                        ornament_id: id.clone(),
                        slot: row.slot,
                        name: o.map(|o| o.name.clone()).unwrap_or_default(),
                        image: o.map(|o| o.image.clone()).unwrap_or_default(),
                        price: row.price,
                        ledger_key: ornament::ledger_key(account, id),
                        at: row.at,
                    }
                })
                .collect(),
            next_cursor: next,
        })
    }

    /// What `account` wears, as URLs and ids.
    pub async fn worn(&self, account: &str) -> Result<Worn, ApiError> {
        let w = self.wear_row(account).await?;
        Ok(Worn {
            avatar: self.image_of(w.avatar.as_deref()).await,
            work_frame: self.image_of(w.work_frame.as_deref()).await,
            avatar_id: w.avatar,
            work_frame_id: w.work_frame,
        })
    }

    async fn image_of(&self, id: Option<&str>) -> Option<String> {
        self.decor.ornament(id?).await.map(|o| o.image.url)
    }

    /// `ornament-shop/wear`: wears an owned ornament in its slot (replacing
    /// what was worn there).
    pub async fn wear(&self, account: &str, id: &str) -> Result<Worn, ApiError> {
        let o = self.ornament(id).await?;
        let owned = self.owned.get(&Key::of(account), &Key::of(id)).await?;
        if owned.is_none() {
            return Err(ErrorCode::OrnamentNotOwned.into());
        }
        let row = WornRow {
            ornament_id: o.ornament_id.clone(),
            at: now_millis(),
        };
        self.decor
            .worn_table()
            .put(&Key::of(account), &Key::of(o.slot.as_str()), &row)
            .await?;
        self.decor.set_worn(account, o.slot, Some(o.ornament_id));
        self.worn(account).await
    }

    /// `ornament-shop/cancel-wear`: by slot, or by the ornament (only if it
    /// is the one worn in its slot).
    pub async fn cancel_wear(
        &self,
        account: &str,
        r: &CancelWearRequest,
    ) -> Result<Worn, ApiError> {
        let slot = match (&r.slot, &r.ornament_id) {
            (Some(s), _) => *s,
            (None, Some(id)) => {
                let o = self.ornament(id).await?;
                let worn = self.wear_row(account).await?;
                if worn.get(o.slot) != Some(&o.ornament_id) {
                    return self.worn(account).await;
                }
                o.slot
            }
            (None, None) => {
                return Err(ApiError::with_msg(
                    ErrorCode::InvalidParams,
                    "give slot or ornament_id",
                ))
            }
        };
        self.decor
            .worn_table()
            .delete(&Key::of(account), &Key::of(slot.as_str()))
            .await?;
        self.decor.set_worn(account, slot, None);
        self.worn(account).await
    }

    /// `ornament-shop/wear-work-frame`: sets (or, with no ornament, takes
    /// off) the frame of one of the caller's own works. Another's work
    /// answers NotFound, as a missing one does.
    pub async fn wear_work_frame(
        &self,
        account: &str,
        r: &WearWorkFrameRequest,
    ) -> Result<Option<Ornament>, ApiError> {
        let work = self
            .works
            .get(&Key::of(&r.work_id), &Key::empty())
            .await?
            .filter(|w| w.author == account)
            .ok_or(ErrorCode::NotFound)?;
        let pk = Key::of(&work.id);
        match &r.ornament_id {
            None => {
                self.decor.frames_table().delete(&pk, &Key::empty()).await?;
                self.decor.set_frame(&work.id, None);
                Ok(None)
            }
            Some(id) => {
                let o = self.ornament(id).await?;
                if o.slot != Slot::WorkFrame {
                    return Err(invalid("this ornament is not a work frame"));
                }
                if self
                    .owned
                    .get(&Key::of(account), &Key::of(id))
                    .await?
                    .is_none()
                {
                    return Err(ErrorCode::OrnamentNotOwned.into());
                }
                let row = WorkFrameRow {
                    ornament_id: o.ornament_id.clone(),
                    account: account.to_owned(),
                    at: now_millis(),
                };
                self.decor
                    .frames_table()
                    .put(&pk, &Key::empty(), &row)
                    .await?;
                self.decor.set_frame(&work.id, Some(o.ornament_id.clone()));
                Ok(Some(o))
            }
        }
    }

    /// `ornament-shop/worn-of`: account id → the image URL of the avatar
    /// ornament it wears, for those wearing one (from the cache).
    pub async fn worn_of(&self, ids: &[String]) -> Result<HashMap<String, String>, ApiError> {
        if ids.len() > ornament::WORN_OF_MAX {
            return Err(ApiError::with_msg(
                ErrorCode::InvalidParams,
                format!("at most {} account_ids", ornament::WORN_OF_MAX),
            ));
        }
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        let wear = self.decor.wear_of(&ids).await;
        let mut out = HashMap::new();
        for (account, w) in wear {
            if let Some(url) = self.image_of(w.avatar.as_deref()).await {
                out.insert(account, url);
            }
        }
        Ok(out)
    }

    /// The frame a work wears (its own, else its author's default).
    pub async fn work_frame(&self, work: &str, author: &str) -> Option<Ornament> {
        let id = self.decor.frame_id(work, author).await?;
        self.decor.ornament(&id).await
    }
}
