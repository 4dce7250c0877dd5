//! Search over works, articles, characters, accounts and tags (spec 3 §7
//! Search, Tags): the full-text index of the `easel-search` crate (tantivy,
//! kept in `EASEL_DATA/search`, rebuilt from the Store when missing or of an
//! older schema), completion, the viewer's history, hot terms and tags.
//! Every hit is checked against the Store's truth (the feed index, the
//! character service) before it is answered, so a work deleted, hidden or
//! banned since it was indexed never shows.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use infra::store::{Key, ScanRange};
use protocol::square::card::{Card, CardAuthor, Cover, ObjType};
use protocol::square::feed::FeedPage;
use protocol::square::search::{clean_keyword, SearchRequest, TagGroup, TermCount};
use protocol::square::work::tag_key;
use search::{DocKind, SearchDoc, SearchQuery};

use super::cursor::Cursor;
use super::row::WorkRow;
use super::{count, SquareService};
use crate::accounts::now_millis;
use crate::error::ApiError;

/// Search history entries kept per account.
pub const HISTORY_LEN: u32 = 20;
/// Longest keyword counted towards hot terms.
const HOT_TERM_CHARS: usize = 40;
/// Card obj_type of a tag result.
pub const TAG_OBJ_TYPE: u8 = 101;

fn day(ms: i64) -> i64 {
    ms.div_euclid(86_400_000)
}

fn vis(v: protocol::square::Visibility) -> search::Visibility {
    match v {
        protocol::square::Visibility::Public => search::Visibility::Public,
        protocol::square::Visibility::Followers => search::Visibility::Followers,
        protocol::square::Visibility::Private => search::Visibility::Private,
    }
}

impl SquareService {
    fn search_index(&self) -> Option<&search::SearchIndex> {
        self.inner.search.as_ref()
    }

    fn work_doc(&self, w: &WorkRow, author_name: String, popularity: f64) -> SearchDoc {
        SearchDoc {
            kind: if w.kind == protocol::square::PostKind::Article {
                DocKind::Article
            } else {
                DocKind::Work
            },
            id: w.id.clone(),
            title: w.title.clone(),
            body: w.body.chars().take(20_000).collect(),
            tags: w.tags.clone(),
            author_id: w.author.clone(),
            author_name,
            // Hidden or banned from feeds: out of search (the author finds
            // their works on their profile).
            visibility: if w.moderation.is_some() {
                search::Visibility::Private
            } else {
                vis(w.visibility)
            },
            nsfw: w.nsfw,
            created_ms: w.create_at,
            popularity,
        }
    }

    pub(crate) async fn search_upsert_work(&self, w: &WorkRow) {
        let Some(ix) = self.search_index() else {
            return;
        };
        let author = self.card_author(&w.author).await;
        let pop = self.counts(&w.id).await.map(|c| c.points()).unwrap_or(0.0);
        ix.upsert(self.work_doc(w, author.name, pop));
        self.search_upsert_account(&w.author).await;
    }

    pub(crate) async fn search_delete_work(&self, id: &str) {
        let Some(ix) = self.search_index() else {
            return;
        };
        for kind in [DocKind::Work, DocKind::Article] {
            ix.delete(kind, id);
        }
    }

    pub(crate) async fn search_upsert_account(&self, id: &str) {
        let Some(ix) = self.search_index() else {
            return;
        };
        let Ok(Some(a)) = self.inner.t.accounts.get(&Key::of(id), &Key::empty()).await else {
            return;
        };
        let bio = self
            .inner
            .t
            .profiles
            .get(&Key::of(id), &Key::empty())
            .await
            .ok()
            .flatten()
            .map(|p| p.bio)
            .unwrap_or_default();
        let followers = self.account_count(id, count::FOLLOWERS).await.unwrap_or(0);
        let banned = a.status == protocol::account::status::DISABLED;
        let doc = SearchDoc {
            kind: DocKind::Account,
            id: a.id.clone(),
            title: a.name.clone(),
            body: bio,
            tags: Vec::new(),
            author_id: a.id.clone(),
            author_name: a.name.clone(),
            visibility: if banned {
                search::Visibility::Private
            } else {
                search::Visibility::Public
            },
            nsfw: false,
            created_ms: a.create_at,
            popularity: followers as f64,
        };
        ix.upsert(doc);
    }

    /// Fills the search index from the Store when it is new (or of an older
    /// schema): every work, its authors, the published characters and the
    /// tags in use.
    pub async fn rebuild_search_if_needed(
        &self,
        characters: &crate::characters::CharacterService,
    ) -> Result<(), ApiError> {
        let Some(ix) = self.search_index() else {
            return Ok(());
        };
        if !ix.needs_rebuild() {
            return Ok(());
        }
        self.rebuild_search(characters).await
    }

    /// Rebuilds the search index from the Store.
    pub async fn rebuild_search(
        &self,
        characters: &crate::characters::CharacterService,
    ) -> Result<(), ApiError> {
        let Some(ix) = self.search_index() else {
            return Ok(());
        };
        let mut docs = Vec::new();
        let mut authors: HashMap<String, String> = HashMap::new();
        for id in self.all_work_ids().await? {
            let Some(w) = self.inner.t.works.get(&Key::of(&id), &Key::empty()).await? else {
                continue;
            };
            let name = match authors.get(&w.author) {
                Some(n) => n.clone(),
                None => {
                    let n = self.card_author(&w.author).await.name;
                    authors.insert(w.author.clone(), n.clone());
                    n
                }
            };
            let pop = self.counts(&id).await?.points();
            docs.push(self.work_doc(&w, name, pop));
        }
        for c in characters.search_docs().await? {
            docs.push(c);
        }
        let tags = self
            .inner
            .index
            .read()
            .map(|ix| ix.tag_counts(None, 10_000))
            .unwrap_or_default();
        for (tag, n) in tags {
            docs.push(tag_doc(&tag, n));
        }
        let n = docs.len();
        let ixc = ix.clone();
        tokio::task::spawn_blocking(move || ixc.rebuild(docs))
            .await
            .map_err(ApiError::internal)?
            .map_err(ApiError::internal)?;
        for a in authors.keys() {
            self.search_upsert_account(a).await;
        }
        tracing::info!(documents = n, "search: index rebuilt from the store");
        Ok(())
    }

    /// Indexes a character as it is now (published: found; otherwise gone).
    pub async fn search_character(
        &self,
        characters: &crate::characters::CharacterService,
        id: &str,
    ) {
        let Some(ix) = self.search_index() else {
            return;
        };
        match characters.row_for_search(id).await {
            Ok(Some(row)) if row.published => match characters.search_doc(&row).await {
                Ok(doc) => ix.upsert(doc),
                Err(e) => tracing::warn!(error = %e, "search: a character was not indexed"),
            },
            Ok(_) => ix.delete(DocKind::Character, id),
            Err(e) => tracing::warn!(error = %e, "search: a character was not read"),
        }
    }

    /// Keeps a tag's document's popularity current.
    pub(crate) fn search_upsert_tags(&self, tags: &[String]) {
        let Some(ix) = self.search_index() else {
            return;
        };
        let counts: Vec<i64> = match self.inner.index.read() {
            Ok(i) => tags.iter().map(|t| i.tag_total(&tag_key(t))).collect(),
            Err(_) => return,
        };
        for (t, n) in tags.iter().zip(counts) {
            if n > 0 {
                ix.upsert(tag_doc(t, n));
            } else {
                ix.delete(DocKind::Tag, &t.to_lowercase());
            }
        }
    }

    /// `square/v3/search/list`: cards of works, articles, characters,
    /// accounts and tags matching the keyword, best first.
    pub async fn search(
        &self,
        viewer: Option<&str>,
        req: &SearchRequest,
        characters: &crate::characters::CharacterService,
    ) -> Result<FeedPage, ApiError> {
        self.ready().await;
        let Some(keyword) = clean_keyword(&req.keyword) else {
            return Ok(FeedPage {
                items: Vec::new(),
                next_cursor: None,
            });
        };
        let Some(ix) = self.search_index() else {
            return Ok(FeedPage {
                items: Vec::new(),
                next_cursor: None,
            });
        };
        let kinds = match req.kind.as_deref().map(str::trim).unwrap_or("all") {
            "work" | "works" | "picture" => vec![DocKind::Work],
            "article" | "articles" => vec![DocKind::Article],
            "post" | "posts" => vec![DocKind::Work, DocKind::Article],
            "character" | "characters" => vec![DocKind::Character],
            "account" | "accounts" | "user" | "users" => vec![DocKind::Account],
            "tag" | "tags" => vec![DocKind::Tag],
            _ => Vec::new(),
        };
        let n = req.page_size.unwrap_or(20).clamp(1, 60) as usize;
        let offset = match Cursor::parse(req.cursor.as_deref())? {
            Some(Cursor::Ranked { offset, .. }) => offset,
            None => 0,
            Some(_) => {
                return Err(ApiError::with_msg(
                    protocol::ErrorCode::InvalidParams,
                    "the cursor is not valid",
                ))
            }
        };
        let follows: Vec<String> = match viewer {
            Some(v) => self.follows_of(v).await?.into_iter().collect(),
            None => Vec::new(),
        };
        let q = SearchQuery {
            keyword: keyword.clone(),
            kinds,
            viewer: viewer.map(str::to_owned),
            viewer_follows: follows.clone(),
            show_nsfw: self
                .nsfw_view(viewer, req.nsfw_mode)
                .await?
                .search_shows_nsfw(),
            offset,
            limit: n,
        };
        let ixc = ix.clone();
        let page = tokio::task::spawn_blocking(move || ixc.search(&q))
            .await
            .map_err(ApiError::internal)?
            .map_err(ApiError::internal)?;
        let follows: std::collections::HashSet<String> = follows.into_iter().collect();
        let mut items = Vec::new();
        for hit in &page.hits {
            match hit.kind {
                DocKind::Work | DocKind::Article => {
                    let id: Arc<str> = Arc::from(hit.id.as_str());
                    let ok = self.inner.index.read().ok().is_some_and(|ix| {
                        ix.get(&hit.id)
                            .is_some_and(|e| ix.visible(e, viewer, follows.contains(&*e.author)))
                    });
                    if ok {
                        items.extend(self.cards(&[id], viewer).await?);
                    }
                }
                DocKind::Character => {
                    if let Ok(c) = characters.detail(viewer, &hit.id).await {
                        items.push(Card {
                            obj_type: ObjType::CHARACTER,
                            sub_obj_type: None,
                            content_sub_type: None,
                            channel: None,
                            sub_channel: None,
                            id: c.id.clone(),
                            title: c.name.clone(),
                            cover: Cover {
                                url: c.avatar.clone(),
                                width: 0,
                                height: 0,
                            },
                            stream: None,
                            image_count: 1,
                            author: CardAuthor {
                                id: c.owner.id.clone(),
                                name: c.owner.name.clone(),
                                avatar: None,
                                ornament: None,
                            },
                            tags: c.tags.clone(),
                            nsfw: false,
                            likes: 0,
                            collects: 0,
                            comments: 0,
                            views: c.chat_count as i64,
                            liked: false,
                            collected: false,
                            create_at: c.publish_at,
                            frame: None,
                            rating: protocol::square::nsfw::RATING_SAFE.into(),
                            activity_mark: None,
                        });
                    }
                }
                DocKind::Account => {
                    let Ok(p) = self.profile(viewer, &hit.id).await else {
                        continue;
                    };
                    items.push(Card {
                        obj_type: ObjType::ACCOUNT,
                        sub_obj_type: None,
                        content_sub_type: None,
                        channel: None,
                        sub_channel: None,
                        id: p.id.clone(),
                        title: p.name.clone(),
                        cover: Cover {
                            url: p.avatar.clone().unwrap_or_default(),
                            width: 0,
                            height: 0,
                        },
                        stream: None,
                        image_count: 0,
                        author: CardAuthor {
                            id: p.id.clone(),
                            name: p.name.clone(),
                            avatar: p.avatar.clone(),
                            ornament: None,
                        },
                        tags: Vec::new(),
                        nsfw: false,
                        likes: p.likes_received,
                        collects: 0,
                        comments: 0,
                        views: p.followers,
                        liked: false,
                        collected: p.followed,
                        create_at: p.create_at,
                        frame: None,
                        rating: protocol::square::nsfw::RATING_SAFE.into(),
                        activity_mark: None,
                    });
                }
                DocKind::Tag => items.push(Card {
                    obj_type: TAG_OBJ_TYPE,
                    sub_obj_type: None,
                    content_sub_type: None,
                    channel: None,
                    sub_channel: None,
                    id: hit.id.clone(),
                    title: hit.id.clone(),
                    cover: Cover::default(),
                    stream: None,
                    image_count: 0,
                    author: CardAuthor::default(),
                    tags: Vec::new(),
                    nsfw: false,
                    likes: 0,
                    collects: 0,
                    comments: 0,
                    views: 0,
                    liked: false,
                    collected: false,
                    create_at: 0,
                    frame: None,
                    rating: protocol::square::nsfw::RATING_SAFE.into(),
                    activity_mark: None,
                }),
            }
        }
        if offset == 0 {
            self.record_search(viewer, &keyword, page.total > 0).await;
        }
        let next = offset + page.hits.len();
        Ok(FeedPage {
            items,
            next_cursor: (next < page.total && !page.hits.is_empty()).then(|| {
                Cursor::Ranked {
                    epoch: 0,
                    offset: next,
                }
                .encode()
            }),
        })
    }

    /// Completion as you type.
    pub async fn complete(&self, keyword: &str) -> Result<Vec<String>, ApiError> {
        let (Some(ix), Some(k)) = (self.search_index().cloned(), clean_keyword(keyword)) else {
            return Ok(Vec::new());
        };
        tokio::task::spawn_blocking(move || ix.complete(&k, 10))
            .await
            .map_err(ApiError::internal)?
            .map_err(ApiError::internal)
    }

    async fn record_search(&self, viewer: Option<&str>, keyword: &str, found: bool) {
        let now = now_millis();
        if let Some(v) = viewer {
            let t = &self.inner.search_history;
            let _ = t.put(&Key::of(v), &Key::of(keyword), &now).await;
            // Keep the newest HISTORY_LEN.
            if let Ok(page) = t.scan(&Key::of(v), &ScanRange::all(200)).await {
                if page.rows.len() > HISTORY_LEN as usize {
                    let mut rows: Vec<(i64, Key)> =
                        page.rows.into_iter().map(|(k, at)| (at, k)).collect();
                    rows.sort_by_key(|r| std::cmp::Reverse(r.0));
                    for (_, k) in rows.into_iter().skip(HISTORY_LEN as usize) {
                        let _ = t.delete(&Key::of(v), &k).await;
                    }
                }
            }
        }
        if found && keyword.chars().count() <= HOT_TERM_CHARS {
            let k = keyword.to_lowercase();
            let d = day(now);
            let _ = self
                .inner
                .search_terms
                .put(&Key::empty().i64(d), &Key::of(&k), &())
                .await;
            let _ = self
                .inner
                .search_counts
                .add(&Key::empty().i64(d), &Key::of(&k), 1)
                .await;
        }
    }

    /// `search/history`: the viewer's newest searches.
    pub async fn history(&self, who: &str) -> Result<Vec<TermCount>, ApiError> {
        let page = self
            .inner
            .search_history
            .scan(&Key::of(who), &ScanRange::all(200))
            .await?;
        let mut rows: Vec<(i64, String)> = page
            .rows
            .into_iter()
            .filter_map(|(k, at)| k.reader().str().map(|s| (at, s)))
            .collect();
        rows.sort_by_key(|r| std::cmp::Reverse(r.0));
        Ok(rows
            .into_iter()
            .take(HISTORY_LEN as usize)
            .map(|(at, text)| TermCount { text, count: at })
            .collect())
    }

    pub async fn history_clear(&self, who: &str) -> Result<(), ApiError> {
        Ok(self
            .inner
            .search_history
            .delete_partition(&Key::of(who))
            .await?)
    }

    pub async fn history_del(&self, who: &str, keyword: &str) -> Result<(), ApiError> {
        let k = clean_keyword(keyword).unwrap_or_default();
        Ok(self
            .inner
            .search_history
            .delete(&Key::of(who), &Key::of(&k))
            .await?)
    }

    /// `search/hot/v2`: the terms searched most (with results) today and
    /// yesterday.
    pub async fn hot_terms(&self, limit: usize) -> Result<Vec<TermCount>, ApiError> {
        let today = day(now_millis());
        let mut counts: BTreeMap<String, i64> = BTreeMap::new();
        for d in [today - 1, today] {
            let page = self
                .inner
                .search_terms
                .scan(&Key::empty().i64(d), &ScanRange::all(2000))
                .await?;
            for (k, ()) in page.rows {
                let Some(term) = k.reader().str() else {
                    continue;
                };
                let n = self
                    .inner
                    .search_counts
                    .get(&Key::empty().i64(d), &Key::of(&term))
                    .await?;
                *counts.entry(term).or_default() += n;
            }
        }
        let mut v: Vec<TermCount> = counts
            .into_iter()
            .map(|(text, count)| TermCount { text, count })
            .collect();
        v.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.text.cmp(&b.text)));
        v.truncate(limit);
        Ok(v)
    }

    /// Tags in use (public works), most used first; `since_days` narrows to recent works.
    pub fn tags(&self, since_days: Option<i64>, limit: usize) -> Vec<TermCount> {
        let since = since_days.map(|d| now_millis() - d * 86_400_000);
        self.inner
            .index
            .read()
            .map(|ix| ix.tag_counts(since, limit))
            .unwrap_or_default()
            .into_iter()
            .map(|(text, count)| TermCount { text, count })
            .collect()
    }

    /// `tag/get_by_group`: tags in use grouped by the prompt dictionary's
    /// categories (others under "other"), in the asked language where the
    /// dictionary has the term.
    pub fn tags_by_group(
        &self,
        dict: &crate::prompts::dictionary::Dictionary,
        lang: crate::prompts::lang::Lang,
    ) -> Vec<TagGroup> {
        let mut groups: BTreeMap<String, Vec<TermCount>> = BTreeMap::new();
        for t in self.tags(None, 2000) {
            let (group, text) = match dict.lookup(&t.text) {
                Some(e) => (
                    e.category.to_owned(),
                    e.text_in(lang).unwrap_or(&t.text).to_owned(),
                ),
                None => ("other".to_owned(), t.text.clone()),
            };
            groups.entry(group).or_default().push(TermCount {
                text,
                count: t.count,
            });
        }
        groups
            .into_iter()
            .map(|(group, tags)| TagGroup { group, tags })
            .collect()
    }
}

fn tag_doc(tag: &str, n: i64) -> SearchDoc {
    SearchDoc {
        kind: DocKind::Tag,
        id: tag.to_lowercase(),
        title: tag.to_owned(),
        body: String::new(),
        tags: vec![tag.to_owned()],
        author_id: String::new(),
        author_name: String::new(),
        visibility: search::Visibility::Public,
        nsfw: false,
        created_ms: 0,
        popularity: n as f64,
    }
}
