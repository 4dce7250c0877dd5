//! Voices (spec 3 §7 Timbre): the built-in voices (eSpeak per language and
//! gender, Piper joe, the Kokoro Japanese voices; public, owned by
//! "system"), users' voices in the store (private ones answer NotFound to
//! everyone but their owner), `timbre/tts` (60 s deadline, AAC in M4A under
//! `/files/tts/...`), and the lists with their filters.

use std::time::Duration;

use audio::speech::{engine_label, Speaker};
use engines::Cancel;
use infra::objects::{DynObjects, ObjectKey};
use infra::store::{tables, Counters, DynStore, Key, ScanRange, Table};
use protocol::audio::timbre::{
    self as rules, EngineLabel, TimbreFields, TimbreFilter, TimbreOrder, TimbreView,
};
use protocol::audio::VoiceSpec;
use protocol::character::OwnerView;
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};

use crate::accounts::now_millis;
use crate::error::ApiError;

mod builtins;
pub mod chat;
mod speak;

pub use builtins::{builtins, DEFAULT_VOICE};
pub use speak::{speak_m4a, Spoken};

/// How long `timbre/tts` may take.
pub const TTS_DEADLINE: Duration = Duration::from_secs(60);
/// Rows a list reads per call at most.
const MAX_LIST: usize = 100;

/// A user's voice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimbreRow {
    pub id: String,
    pub owner: String,
    pub owner_name: String,
    pub name: String,
    pub description: String,
    pub gender: String,
    pub age: String,
    pub language: String,
    pub intonation: String,
    pub is_public: bool,
    pub status: String,
    pub voice: VoiceSpec,
    #[serde(default)]
    pub preview_url: String,
    #[serde(default)]
    pub preview_duration: f64,
    #[serde(default)]
    pub train_task_id: Option<String>,
    #[serde(default)]
    pub samples: Vec<String>,
    /// Each sample's length in seconds (same order as `samples`).
    #[serde(default)]
    pub sample_secs: Vec<f64>,
    pub create_at: i64,
}

fn invalid(msg: impl Into<String>) -> ApiError {
    ApiError::with_msg(ErrorCode::InvalidParams, msg)
}

pub fn view(r: &TimbreRow, viewer: Option<&str>) -> TimbreView {
    TimbreView {
        id: r.id.clone(),
        name: r.name.clone(),
        description: r.description.clone(),
        gender: r.gender.clone(),
        age: r.age.clone(),
        language: r.language.clone(),
        intonation: r.intonation.clone(),
        is_public: r.is_public,
        status: r.status.clone(),
        engine: r.voice.engine.clone(),
        base: r.voice.base.clone(),
        neural: r.voice.engine != "espeak",
        label: engine_label(&r.voice.engine).into(),
        preview_url: r.preview_url.clone(),
        preview_duration: r.preview_duration,
        params: r.voice.params.clone(),
        owner: OwnerView {
            id: r.owner.clone(),
            name: r.owner_name.clone(),
        },
        is_mine: viewer == Some(r.owner.as_str()),
        uses: 0,
        create_at: r.create_at,
        train_task_id: r.train_task_id.clone(),
    }
}

/// What `timbre/tts` answers.
#[derive(Debug, Clone, Serialize)]
pub struct TtsAnswer {
    pub url: String,
    pub duration: f64,
    pub timbre_id: String,
    pub engine: EngineLabel,
    /// What of speed and emotion the engine honoured, and how.
    pub applied: serde_json::Value,
}

#[derive(Clone)]
pub struct TimbreService {
    rows: Table<TimbreRow>,
    by_owner: Table<()>,
    public: Table<()>,
    uploads: Table<crate::uploads::UploadRow>,
    tasks: Table<crate::tasks::row::TaskRow>,
    /// Preview clip key → its duration (seconds).
    previews: Table<f64>,
    /// Uses per voice (pk [`USES`], ck voice id): speech, chat replies,
    /// lip-sync and songs. They rank `hot` and `recommend`.
    uses: Counters,
    objects: DynObjects,
}

/// The counters row of voice uses.
const USES: &str = "timbre_uses";
/// Public voices read at most to rank a `hot` or `recommend` list.
const MAX_RANKED: usize = 500;

fn ck(at: i64, id: &str) -> Key {
    Key::empty().i64(at).str(id)
}

impl TimbreService {
    pub fn new(store: DynStore, objects: DynObjects) -> TimbreService {
        TimbreService {
            rows: Table::new(store.clone(), &tables::TIMBRES),
            by_owner: Table::new(store.clone(), &tables::TIMBRES_BY_OWNER),
            public: Table::new(store.clone(), &tables::TIMBRES_PUBLIC),
            uploads: Table::new(store.clone(), &tables::UPLOADS),
            previews: Table::new(store.clone(), &tables::TIMBRE_PREVIEWS),
            uses: Counters::new(store.clone(), &tables::COUNTERS),
            tasks: Table::new(store, &tables::TASKS),
            objects,
        }
    }

    /// Counts one use of a voice (best effort: a failed count is logged).
    pub async fn record_use(&self, id: &str) {
        if let Err(e) = self.uses.add(&Key::of(USES), &Key::of(id), 1).await {
            tracing::warn!(error = %e, voice = id, "counting a voice's use failed");
        }
    }

    /// Fills each view's `uses` from the counters.
    async fn fill_uses(&self, views: &mut [TimbreView]) -> Result<(), ApiError> {
        for v in views.iter_mut() {
            v.uses = self.uses.get(&Key::of(USES), &Key::of(&v.id)).await?;
        }
        Ok(())
    }

    /// A voice `viewer` may use: built-in, public, or their own; else NotFound.
    pub async fn visible(&self, viewer: Option<&str>, id: &str) -> Result<TimbreRow, ApiError> {
        let id = id.trim();
        if let Some(b) = builtins().into_iter().find(|b| b.id == id) {
            return Ok(b);
        }
        if id.is_empty() || id.len() > 64 {
            return Err(ErrorCode::NotFound.into());
        }
        self.rows
            .get(&Key::of(id), &Key::empty())
            .await?
            .filter(|r| r.is_public || viewer == Some(r.owner.as_str()))
            .ok_or_else(|| ErrorCode::NotFound.into())
    }

    /// The voice that speaks for `timbre_id` (none or empty = the default
    /// voice) when `viewer` asks: one they may use (else NotFound) that is
    /// ready (else TimbreNotReady). Lip-sync and sung songs use it.
    pub async fn voice_for(
        &self,
        viewer: Option<&str>,
        timbre_id: Option<&str>,
    ) -> Result<VoiceSpec, ApiError> {
        let id = timbre_id
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .unwrap_or(DEFAULT_VOICE);
        let r = self.visible(viewer, id).await?;
        if r.status != "ready" {
            return Err(ErrorCode::TimbreNotReady.into());
        }
        self.record_use(&r.id).await;
        Ok(r.voice)
    }

    async fn own(&self, owner: &str, id: &str) -> Result<TimbreRow, ApiError> {
        self.visible(Some(owner), id).await.and_then(|r| {
            if r.owner == owner {
                Ok(r)
            } else {
                Err(ErrorCode::NotFound.into())
            }
        })
    }

    /// `timbre/edit` without an id: a new voice on a stock base voice
    /// (`base`: a built-in voice id, default the language's eSpeak voice).
    pub async fn create(
        &self,
        owner: &str,
        owner_name: &str,
        f: TimbreFields,
        is_public: bool,
        base: Option<&str>,
    ) -> Result<TimbreRow, ApiError> {
        let voice = self.base_voice(&f, base)?;
        let r = TimbreRow {
            id: uuid::Uuid::now_v7().simple().to_string(),
            owner: owner.into(),
            owner_name: owner_name.into(),
            name: f.name,
            description: f.description,
            gender: f.gender,
            age: f.age,
            language: f.language,
            intonation: f.intonation,
            is_public,
            status: "ready".into(),
            voice,
            preview_url: String::new(),
            preview_duration: 0.0,
            train_task_id: None,
            samples: Vec::new(),
            sample_secs: Vec::new(),
            create_at: now_millis(),
        };
        self.store_new(&r).await?;
        Ok(r)
    }

    async fn store_new(&self, r: &TimbreRow) -> Result<(), ApiError> {
        self.rows.put(&Key::of(&r.id), &Key::empty(), r).await?;
        self.by_owner
            .put(&Key::of(&r.owner), &ck(r.create_at, &r.id), &())
            .await?;
        if r.is_public {
            self.public
                .put(&Key::empty().u64(0), &ck(r.create_at, &r.id), &())
                .await?;
        }
        Ok(())
    }

    fn base_voice(&self, f: &TimbreFields, base: Option<&str>) -> Result<VoiceSpec, ApiError> {
        let base = base.map(str::trim).filter(|b| !b.is_empty());
        let found = match base {
            Some(b) => builtins().into_iter().find(|x| x.id == b),
            None => builtins().into_iter().find(|x| {
                x.voice.engine == "espeak" && x.language == f.language && x.gender == f.gender
            }),
        };
        let found = found.or_else(|| {
            builtins()
                .into_iter()
                .find(|x| x.voice.engine == "espeak" && x.language == f.language)
        });
        let mut v = found
            .map(|x| x.voice)
            .ok_or_else(|| invalid("base must be a built-in voice id"))?;
        if v.engine == "espeak" {
            let (dp, dr, rf) = rules::intonation_prosody(&f.intonation);
            v.params = serde_json::json!({
                "espeak_pitch": 50 + dp,
                "espeak_range": 50 + dr,
                "rate_wpm": (175.0 * rf).round(),
            });
        }
        Ok(v)
    }

    /// `timbre/edit` with an id (owner only).
    pub async fn edit(
        &self,
        owner: &str,
        id: &str,
        f: TimbreFields,
        is_public: bool,
    ) -> Result<TimbreRow, ApiError> {
        let before = self.own(owner, id).await?;
        let was_public = before.is_public;
        let after = self
            .rows
            .update(&Key::of(id), &Key::empty(), Some(before), |r| {
                r.name = f.name.clone();
                r.description = f.description.clone();
                r.gender = f.gender.clone();
                r.age = f.age.clone();
                r.language = f.language.clone();
                r.voice.language = f.language.clone();
                r.intonation = f.intonation.clone();
                r.is_public = is_public;
            })
            .await?
            .ok_or(ErrorCode::NotFound)?;
        let pk = Key::empty().u64(0);
        let c = ck(after.create_at, &after.id);
        if is_public && !was_public {
            self.public.put(&pk, &c, &()).await?;
        } else if !is_public && was_public {
            self.public.delete(&pk, &c).await?;
        }
        Ok(after)
    }

    /// Stores a finished training's voice on the row (idempotent).
    pub async fn apply_training(
        &self,
        id: &str,
        voice: Option<VoiceSpec>,
        preview: Option<(String, f64)>,
    ) -> Result<(), ApiError> {
        let Some(before) = self.rows.get(&Key::of(id), &Key::empty()).await? else {
            return Ok(());
        };
        if before.status != "training" {
            return Ok(());
        }
        self.rows
            .update(
                &Key::of(id),
                &Key::empty(),
                Some(before),
                |r| match &voice {
                    Some(v) => {
                        r.voice = v.clone();
                        r.status = "ready".into();
                        if let Some((url, d)) = &preview {
                            r.preview_url = url.clone();
                            r.preview_duration = *d;
                        }
                    }
                    None => r.status = "failed".into(),
                },
            )
            .await?;
        Ok(())
    }

    /// A voice sample: the caller's own confirmed category-59 upload
    /// (`/files/u/{file_id}/...`), decodable audio of 3-60 s. Answers its
    /// object key and length; anything else is TimbreSamplesInvalid.
    pub async fn check_sample(&self, owner: &str, url: &str) -> Result<(String, f64), ApiError> {
        let bad = |m: &str| ApiError::with_msg(ErrorCode::TimbreSamplesInvalid, m.to_string());
        let key =
            crate::tasks::object_key_of_url(url).ok_or_else(|| bad("not a file of this server"))?;
        let file_id = key
            .strip_prefix("u/")
            .and_then(|k| k.split('/').next())
            .ok_or_else(|| bad("a sample must be an uploaded file"))?;
        let row = self
            .uploads
            .get(&Key::of(file_id), &Key::empty())
            .await?
            .filter(|u| u.owner == owner && u.key.as_deref() == Some(key.as_str()))
            .ok_or_else(|| bad("no such upload"))?;
        if row.category != rules::SAMPLE_CATEGORY {
            return Err(bad("samples are audio uploads (category 59)"));
        }
        let k = ObjectKey::parse(&key).map_err(|e| ApiError::internal(e.to_string()))?;
        let obj = self
            .objects
            .get(&k)
            .await
            .map_err(|e| ApiError::internal(e.to_string()))?
            .ok_or_else(|| bad("no such upload"))?;
        let secs = tokio::task::spawn_blocking(move || {
            audio::ffmpeg::decode(&obj.bytes, 8_000, 1, &Cancel::new()).map(|p| p.duration())
        })
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?
        .map_err(|_| bad("a sample is not audio"))?;
        if !(rules::MIN_SAMPLE_SECS - 0.05..=rules::MAX_SAMPLE_SECS + 0.5).contains(&secs) {
            return Err(bad(&format!(
                "a sample lasts {secs:.1} s; samples last 3 to 60 seconds"
            )));
        }
        Ok((key, secs))
    }

    /// A training task's row (read straight from the store).
    pub async fn task(&self, id: &str) -> Result<Option<crate::tasks::row::TaskRow>, ApiError> {
        Ok(self.tasks.get(&Key::of(id), &Key::empty()).await?)
    }

    /// The voice's preview clip (its language's preview sentence), made on
    /// first request and cached under a key of the voice's parameters.
    /// A voice whose engine is unavailable keeps no preview (not an error).
    pub async fn with_preview(&self, speaker: &dyn Speaker, mut r: TimbreRow) -> TimbreRow {
        if !r.preview_url.is_empty() || r.status != "ready" {
            return r;
        }
        let spec = serde_json::to_string(&r.voice).unwrap_or_default();
        let hash = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            spec.hash(&mut h);
            h.finish()
        };
        let key = format!("timbre-preview/{}-{hash:016x}.m4a", r.id);
        let Ok(k) = ObjectKey::parse(&key) else {
            return r;
        };
        let dur_key = Key::of(&key);
        if let Ok(Some(d)) = self.previews.get(&dur_key, &Key::empty()).await {
            r.preview_url = format!("/files/{key}");
            r.preview_duration = d;
            return r;
        }
        let text = audio::speech::training::preview_text(&r.language);
        match speak_m4a(speaker, text, r.voice.clone(), 1.0, "").await {
            Ok(Spoken {
                bytes, duration: d, ..
            }) => {
                let stored = self
                    .objects
                    .put(&k, bytes, audio::ffmpeg::Format::M4a.mime())
                    .await;
                if stored.is_ok() && self.previews.put(&dur_key, &Key::empty(), &d).await.is_ok() {
                    r.preview_url = format!("/files/{key}");
                    r.preview_duration = d;
                }
            }
            Err(e) => tracing::info!(voice = %r.id, code = %e.code, "no preview for this voice"),
        }
        r
    }

    /// Marks a voice as training on `task_id` with its samples.
    pub async fn start_training(
        &self,
        id: &str,
        task_id: &str,
        samples: &[String],
        secs: &[f64],
    ) -> Result<(), ApiError> {
        self.rows
            .update(&Key::of(id), &Key::empty(), None, |r| {
                r.status = "training".into();
                r.train_task_id = Some(task_id.to_string());
                r.samples = samples.to_vec();
                r.sample_secs = secs.to_vec();
            })
            .await?
            .ok_or(ErrorCode::NotFound)?;
        Ok(())
    }

    /// `timbre/voice/delete`: removes one sample (by its index) from the
    /// owner's voice.
    pub async fn delete_sample(&self, owner: &str, id: &str, sample: &str) -> Result<(), ApiError> {
        let r = self.own(owner, id).await?;
        let i: usize = sample.trim().parse().map_err(|_| ErrorCode::NotFound)?;
        if i >= r.samples.len() {
            return Err(ErrorCode::NotFound.into());
        }
        self.rows
            .update(&Key::of(id), &Key::empty(), Some(r), |r| {
                if i < r.samples.len() {
                    r.samples.remove(i);
                }
                if i < r.sample_secs.len() {
                    r.sample_secs.remove(i);
                }
            })
            .await?;
        Ok(())
    }

    pub async fn delete(&self, owner: &str, id: &str) -> Result<(), ApiError> {
        let r = self.own(owner, id).await?;
        self.rows.delete(&Key::of(id), &Key::empty()).await?;
        self.by_owner
            .delete(&Key::of(owner), &ck(r.create_at, id))
            .await?;
        self.public
            .delete(&Key::empty().u64(0), &ck(r.create_at, id))
            .await?;
        Ok(())
    }

    /// Index entries → rows, newest first, filtered; `cursor` = the number
    /// of matching voices already shown.
    async fn scan_index(
        &self,
        index: &Table<()>,
        pk: Key,
        viewer: Option<&str>,
        filter: &TimbreFilter,
        out: &mut Vec<TimbreView>,
        want: usize,
    ) -> Result<(), ApiError> {
        let mut paging = None;
        loop {
            let page = index
                .scan(&pk, &ScanRange::all(200).desc().after(paging))
                .await?;
            for (k, ()) in page.rows {
                let mut reader = k.reader();
                let Some(id) = reader.i64().and_then(|_| reader.str()) else {
                    continue;
                };
                if let Some(r) = self.rows.get(&Key::of(&id), &Key::empty()).await? {
                    let v = view(&r, viewer);
                    if filter.matches(&v) {
                        out.push(v);
                    }
                }
                if out.len() >= want {
                    return Ok(());
                }
            }
            match page.paging {
                Some(p) => paging = Some(p),
                None => return Ok(()),
            }
        }
    }

    /// Public voices, filtered: `new` lists users' newest first, then the
    /// built-ins; `hot` and `recommend` rank the newest [`MAX_RANKED`]
    /// public voices and the built-ins by their uses
    /// (`rules::order_voices`).
    pub async fn public_list(
        &self,
        viewer: Option<&str>,
        filter: &TimbreFilter,
        order: TimbreOrder,
        cursor: usize,
        limit: usize,
    ) -> Result<(Vec<TimbreView>, Option<usize>), ApiError> {
        let limit = limit.clamp(1, MAX_LIST);
        let want = match order {
            TimbreOrder::New => cursor + limit + 1,
            TimbreOrder::Hot | TimbreOrder::Recommend => MAX_RANKED,
        };
        let mut all = Vec::new();
        self.scan_index(
            &self.public,
            Key::empty().u64(0),
            viewer,
            filter,
            &mut all,
            want,
        )
        .await?;
        all.extend(
            builtins()
                .iter()
                .map(|b| view(b, viewer))
                .filter(|v| filter.matches(v)),
        );
        if order == TimbreOrder::New {
            let (mut items, next) = page(all, cursor, limit);
            self.fill_uses(&mut items).await?;
            return Ok((items, next));
        }
        self.fill_uses(&mut all).await?;
        rules::order_voices(&mut all, order, now_millis());
        Ok(page(all, cursor, limit))
    }

    /// The caller's own voices, any state, newest first.
    pub async fn mine(
        &self,
        owner: &str,
        filter: &TimbreFilter,
        cursor: usize,
        limit: usize,
    ) -> Result<(Vec<TimbreView>, Option<usize>), ApiError> {
        let limit = limit.clamp(1, MAX_LIST);
        let mut all = Vec::new();
        self.scan_index(
            &self.by_owner,
            Key::of(owner),
            Some(owner),
            filter,
            &mut all,
            cursor + limit + 1,
        )
        .await?;
        let (mut items, next) = page(all, cursor, limit);
        self.fill_uses(&mut items).await?;
        Ok((items, next))
    }

    /// `timbre/tts`: speaks `text` in a voice the caller may use, stores
    /// the M4A and answers its URL and duration.
    pub async fn tts(
        &self,
        speaker: &dyn Speaker,
        viewer: &str,
        text: &str,
        timbre_id: Option<&str>,
        speed: f32,
        emotion: &str,
    ) -> Result<TtsAnswer, ApiError> {
        let id = timbre_id
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .unwrap_or(DEFAULT_VOICE);
        let r = self.visible(Some(viewer), id).await?;
        if r.status != "ready" {
            return Err(ErrorCode::TimbreNotReady.into());
        }
        self.record_use(&r.id).await;
        let Spoken {
            bytes,
            duration,
            engine,
            applied,
        } = speak_m4a(speaker, text, r.voice.clone(), speed, emotion).await?;
        let key = format!("tts/{}/{}.m4a", viewer, uuid::Uuid::now_v7().simple());
        let k = ObjectKey::parse(&key).map_err(|e| ApiError::internal(e.to_string()))?;
        self.objects
            .put(&k, bytes, audio::ffmpeg::Format::M4a.mime())
            .await
            .map_err(|e| ApiError::internal(e.to_string()))?;
        Ok(TtsAnswer {
            url: format!("/files/{key}"),
            duration,
            timbre_id: r.id,
            engine: EngineLabel {
                label: engine_label(&engine).into(),
                neural: engine != "espeak",
                name: engine,
            },
            applied,
        })
    }
}

fn page(all: Vec<TimbreView>, cursor: usize, limit: usize) -> (Vec<TimbreView>, Option<usize>) {
    let more = all.len() > cursor + limit;
    let items: Vec<TimbreView> = all.into_iter().skip(cursor).take(limit).collect();
    let next = more.then_some(cursor + items.len());
    (items, next)
}
