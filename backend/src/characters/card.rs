//! Character cards as other tools exchange them: the V2 format
//! (`{"spec": "chara_card_v2", "spec_version": "2.0", "data": {...}}`), the
//! older flat V1 format, and PNG files carrying either as base64 in a `tEXt`
//! chunk named `chara`. Pure functions: parsing, the mapping to and from
//! Easel's character, and the generated portrait used when a character has
//! no avatar.
//!
//! Mapping. Import: persona = `description` (+ "\n\n" + `personality` when
//! present), greeting = `first_mes`, example dialogue = `mes_example`, the
//! other V2 fields by name. Export: persona → `description`, `personality`
//! empty (nothing is split). Easel's own fields (the card blurb, gender,
//! character type, chat settings) travel in `data.extensions.easel`, so an
//! Easel → Easel round trip is lossless; other tools keep extensions they
//! do not know, as the V2 spec asks. Other extensions of an imported card
//! are not kept (the character row has no place for them).

use image::{Rgba, RgbaImage};
use protocol::character::{
    normalise_publish, ChatSettingsView, Gender, PublishRequest, RuleError, MAX_CARD_IMAGE_SIDE,
    MAX_DESCRIPTION_CHARS, MAX_TAGS, MAX_TAG_CHARS,
};
use serde_json::{json, Map, Value};

use super::png::{self, PngError};
use super::row::CharacterRow;
use super::{gender_to_wire, settings_to_wire};

/// The `tEXt` keyword holding the card in a PNG.
pub const PNG_KEYWORD: &str = "chara";
/// Side of the generated portrait, in pixels.
pub const PORTRAIT_SIDE: u32 = 512;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CardError {
    #[error("the file is not JSON: {0}")]
    Json(String),
    #[error("the JSON is not a character card (V2 or V1)")]
    NotACard,
    #[error("the card's field {0} has the wrong type")]
    Field(&'static str),
    #[error("{0}")]
    Png(#[from] PngError),
    #[error("the PNG has no character card (no `chara` text chunk)")]
    NoCardInPng,
    #[error("the card in the PNG is not valid base64 JSON")]
    Base64,
    #[error("the picture cannot be read: {0}")]
    Image(String),
    #[error("the picture may be at most {MAX_CARD_IMAGE_SIDE} px a side")]
    ImageTooLarge,
    #[error("the card breaks a rule: {0}")]
    Rule(#[from] RuleError),
}

/// A card's fields, whichever format it came in.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CardData {
    pub name: String,
    pub description: String,
    pub personality: String,
    pub scenario: String,
    pub first_mes: String,
    pub mes_example: String,
    pub creator_notes: String,
    pub system_prompt: String,
    pub post_history_instructions: String,
    pub alternate_greetings: Vec<String>,
    pub tags: Vec<String>,
    pub creator: String,
    pub character_version: String,
    /// `data.extensions.easel`, when the card came from Easel.
    pub easel: Option<EaselExtension>,
}

/// Easel's fields that V2 has no place for.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct EaselExtension {
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub gender: Gender,
    #[serde(default)]
    pub character_type: u8,
    #[serde(default)]
    pub settings: Option<ChatSettingsView>,
}

/// A string field, leniently: absent or null is empty, numbers and booleans
/// become text (some writers store `character_version: 1`).
fn text(obj: &Map<String, Value>, field: &'static str) -> Result<String, CardError> {
    match obj.get(field) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Number(n)) => Ok(n.to_string()),
        Some(Value::Bool(b)) => Ok(b.to_string()),
        Some(_) => Err(CardError::Field(field)),
    }
}

/// A list of strings: an array (non-strings skipped) or one comma-separated
/// string (some V1 writers).
fn list(obj: &Map<String, Value>, field: &'static str) -> Result<Vec<String>, CardError> {
    match obj.get(field) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(a)) => Ok(a
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect()),
        Some(Value::String(s)) => Ok(s
            .split(',')
            .map(|t| t.trim().to_owned())
            .filter(|t| !t.is_empty())
            .collect()),
        Some(_) => Err(CardError::Field(field)),
    }
}

fn fields(obj: &Map<String, Value>) -> Result<CardData, CardError> {
    let easel = obj
        .get("extensions")
        .and_then(|e| e.get("easel"))
        .and_then(|e| serde_json::from_value::<EaselExtension>(e.clone()).ok());
    Ok(CardData {
        name: text(obj, "name")?,
        description: text(obj, "description")?,
        personality: text(obj, "personality")?,
        scenario: text(obj, "scenario")?,
        first_mes: text(obj, "first_mes")?,
        mes_example: text(obj, "mes_example")?,
        creator_notes: text(obj, "creator_notes")?,
        system_prompt: text(obj, "system_prompt")?,
        post_history_instructions: text(obj, "post_history_instructions")?,
        alternate_greetings: list(obj, "alternate_greetings")?,
        tags: list(obj, "tags")?,
        creator: text(obj, "creator")?,
        character_version: text(obj, "character_version")?,
        easel,
    })
}

/// Parses a card from JSON: V2 (and V3, whose `data` is a superset of V2's)
/// when `spec` says so, else V1 (flat fields with at least a name and a
/// first message or description).
pub fn parse_json(bytes: &[u8]) -> Result<CardData, CardError> {
    let v: Value = serde_json::from_slice(bytes).map_err(|e| CardError::Json(e.to_string()))?;
    let obj = v.as_object().ok_or(CardError::NotACard)?;
    let spec = obj.get("spec").and_then(Value::as_str).unwrap_or("");
    if spec.starts_with("chara_card_v") {
        let data = obj
            .get("data")
            .and_then(Value::as_object)
            .ok_or(CardError::NotACard)?;
        return fields(data);
    }
    let has = |f: &str| obj.get(f).is_some_and(Value::is_string);
    if has("name") && (has("first_mes") || has("description") || has("char_persona")) {
        let mut card = fields(obj)?;
        // Some V1 writers use the Pygmalion names.
        if card.description.is_empty() {
            card.description = text(obj, "char_persona")?;
        }
        if card.first_mes.is_empty() {
            card.first_mes = text(obj, "char_greeting")?;
        }
        if card.mes_example.is_empty() {
            card.mes_example = text(obj, "example_dialogue")?;
        }
        if card.scenario.is_empty() {
            card.scenario = text(obj, "world_scenario")?;
        }
        return Ok(card);
    }
    Err(CardError::NotACard)
}

/// A card read from a PNG, and the picture to keep as the avatar: the file
/// itself with the card chunks removed (so the served avatar does not carry
/// a draft's text), after checking that it decodes and is at most
/// [`MAX_CARD_IMAGE_SIDE`] a side.
pub fn parse_png(bytes: &[u8]) -> Result<(CardData, Vec<u8>), CardError> {
    let texts = png::text_chunks(bytes)?;
    let encoded = texts
        .iter()
        .find(|(k, _)| k == PNG_KEYWORD)
        .map(|(_, t)| t)
        .ok_or(CardError::NoCardInPng)?;
    let json = png::base64_decode(encoded).ok_or(CardError::Base64)?;
    let card = parse_json(&json)?;
    let reader =
        image::ImageReader::with_format(std::io::Cursor::new(bytes), image::ImageFormat::Png);
    let (w, h) = reader
        .into_dimensions()
        .map_err(|e| CardError::Image(e.to_string()))?;
    if w == 0 || h == 0 || w > MAX_CARD_IMAGE_SIDE || h > MAX_CARD_IMAGE_SIDE {
        return Err(CardError::ImageTooLarge);
    }
    image::load_from_memory_with_format(bytes, image::ImageFormat::Png)
        .map_err(|e| CardError::Image(e.to_string()))?;
    let mut picture = png::replace_text_chunk(bytes, PNG_KEYWORD, None)?;
    // SillyTavern also writes the V3 card under `ccv3`; drop that copy too.
    picture = png::replace_text_chunk(&picture, "ccv3", None)?;
    Ok((card, picture))
}

/// Either kind of file, told apart by its first bytes (the Content-Type
/// header decides only when the bytes do not).
pub fn parse_any(bytes: &[u8]) -> Result<(CardData, Option<Vec<u8>>), CardError> {
    if bytes.starts_with(&png::SIGNATURE) {
        let (card, picture) = parse_png(bytes)?;
        Ok((card, Some(picture)))
    } else {
        Ok((parse_json(bytes)?, None))
    }
}

impl CardData {
    /// The character this card describes, checked by the same rules as the
    /// form. Tags beyond the form's limits (count, length) are dropped
    /// rather than refusing a whole card for them.
    pub fn into_publish_request(self) -> Result<PublishRequest, RuleError> {
        let personality = self.personality.trim();
        let persona = if personality.is_empty() {
            self.description.trim().to_owned()
        } else {
            format!("{}\n\n{personality}", self.description.trim())
        };
        let easel = self.easel.unwrap_or_default();
        let description = if easel.description.is_empty() {
            // A blurb for the card grid: the creator's notes, cut short.
            self.creator_notes
                .trim()
                .chars()
                .take(MAX_DESCRIPTION_CHARS.min(200))
                .collect()
        } else {
            easel.description
        };
        let tags = self
            .tags
            .into_iter()
            .map(|t| t.trim().to_owned())
            .filter(|t| !t.is_empty() && t.chars().count() <= MAX_TAG_CHARS)
            .take(MAX_TAGS)
            .collect();
        normalise_publish(PublishRequest {
            id: None,
            name: self.name,
            description,
            persona,
            scenario: self.scenario,
            greeting: self.first_mes,
            alternate_greetings: self.alternate_greetings,
            example_dialogue: self.mes_example,
            system_prompt: self.system_prompt,
            post_history_instructions: self.post_history_instructions,
            creator_notes: self.creator_notes,
            tags,
            gender: easel.gender,
            character_type: if easel.character_type == 0 {
                1
            } else {
                easel.character_type
            },
            avatar: String::new(),
            settings: easel.settings,
            published: false,
        })
    }
}

/// The V2 card of a character (with the V1 fields repeated at the top level
/// for tools that only read V1). `creator` is the owner's display name.
pub fn to_v2_json(row: &CharacterRow, creator: &str) -> Value {
    let easel = EaselExtension {
        description: row.description.clone(),
        gender: gender_to_wire(row.gender),
        character_type: row.character_type,
        settings: Some(settings_to_wire(&row.settings)),
    };
    json!({
        "spec": "chara_card_v2",
        "spec_version": "2.0",
        "name": row.name,
        "description": row.persona,
        "personality": "",
        "scenario": row.scenario,
        "first_mes": row.greeting,
        "mes_example": row.example_dialogue,
        "data": {
            "name": row.name,
            "description": row.persona,
            "personality": "",
            "scenario": row.scenario,
            "first_mes": row.greeting,
            "mes_example": row.example_dialogue,
            "creator_notes": row.creator_notes,
            "system_prompt": row.system_prompt,
            "post_history_instructions": row.post_history_instructions,
            "alternate_greetings": row.alternate_greetings,
            "tags": row.tags,
            "creator": creator,
            "character_version": "",
            "extensions": { "easel": easel },
        }
    })
}

/// A PNG card: `picture` encoded as PNG with the card in a `chara` chunk.
pub fn to_png(picture: &RgbaImage, card: &Value) -> Result<Vec<u8>, CardError> {
    let mut bytes = Vec::new();
    picture
        .write_to(
            &mut std::io::Cursor::new(&mut bytes),
            image::ImageFormat::Png,
        )
        .map_err(|e| CardError::Image(e.to_string()))?;
    let json = serde_json::to_vec(card).map_err(|e| CardError::Json(e.to_string()))?;
    let text = png::base64_encode(&json);
    Ok(png::replace_text_chunk(
        &bytes,
        PNG_KEYWORD,
        Some(text.as_bytes()),
    )?)
}

/// FNV-1a: a small, stable hash (the portrait must not change between
/// builds, so not `DefaultHasher`).
fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// A colour from a hue (0..360) at fixed saturation and lightness.
fn hue_rgb(hue: f32, light: f32) -> [f32; 3] {
    let s = 0.55f32;
    let c = (1.0 - (2.0 * light - 1.0).abs()) * s;
    let h = hue / 60.0;
    let x = c * (1.0 - (h % 2.0 - 1.0).abs());
    let (r, g, b) = match h as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = light - c / 2.0;
    [r + m, g + m, b + m]
}

fn to_px(c: [f32; 3]) -> Rgba<u8> {
    let q = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    let [r, g, b] = c;
    Rgba([q(r), q(g), q(b), 255])
}

/// A deterministic portrait for a character without an avatar: a diagonal
/// gradient between two colours chosen by the name's hash, with a head and
/// shoulders silhouette. Same name, same picture.
pub fn portrait(name: &str) -> RgbaImage {
    let h = fnv1a(name);
    let hue_a = (h % 360) as f32;
    let hue_b = (hue_a + 40.0 + ((h >> 16) % 120) as f32) % 360.0;
    let top = hue_rgb(hue_a, 0.62);
    let bottom = hue_rgb(hue_b, 0.38);
    let figure = hue_rgb((hue_a + 180.0) % 360.0, 0.22);
    let n = PORTRAIT_SIDE as f32;
    RgbaImage::from_fn(PORTRAIT_SIDE, PORTRAIT_SIDE, |x, y| {
        let (fx, fy) = (x as f32 / n, y as f32 / n);
        let t = ((fx + fy) / 2.0).clamp(0.0, 1.0);
        let bg = [
            top[0] + (bottom[0] - top[0]) * t,
            top[1] + (bottom[1] - top[1]) * t,
            top[2] + (bottom[2] - top[2]) * t,
        ];
        let head = (fx - 0.5).powi(2) + ((fy - 0.4) / 1.1).powi(2) < 0.16f32.powi(2);
        let shoulders =
            fy > 0.62 && ((fx - 0.5) / 0.36).powi(2) + ((fy - 1.0) / 0.36).powi(2) < 1.0;
        if head || shoulders {
            to_px(figure)
        } else {
            to_px(bg)
        }
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::super::row::{ChatSettings, Gender as RowGender};
    use super::*;

    fn v2() -> Value {
        json!({
            "spec": "chara_card_v2",
            "spec_version": "2.0",
            "data": {
                "name": "Seraphina",
                "description": "A guardian of the forest.",
                "personality": "Kind, protective.",
                "scenario": "The forest glade.",
                "first_mes": "*She smiles.* You're safe now.",
                "mes_example": "<START>\n{{user}}: Hi\n{{char}}: Hello.",
                "creator_notes": "Made for testing.",
                "system_prompt": "",
                "post_history_instructions": "Stay in character.",
                "alternate_greetings": ["Welcome back."],
                "tags": ["fantasy", "  ", "guardian"],
                "creator": "someone",
                "character_version": 3,
                "extensions": {"talkativeness": "0.5"}
            }
        })
    }

    fn row() -> CharacterRow {
        CharacterRow {
            id: "c1".into(),
            owner: "a1".into(),
            name: "Ada".into(),
            description: "Blurb".into(),
            persona: "Persona text.\n\nMore.".into(),
            scenario: "Scene".into(),
            greeting: "Hello!".into(),
            alternate_greetings: vec!["Hi again".into()],
            example_dialogue: "<START>".into(),
            system_prompt: "Be Ada.".into(),
            post_history_instructions: "Short replies.".into(),
            creator_notes: "Notes".into(),
            tags: vec!["math".into(), "history".into()],
            gender: RowGender::Female,
            character_type: 2,
            avatar: String::new(),
            settings: ChatSettings {
                temperature: 1.25,
                top_p: 0.5,
                max_reply_tokens: 300,
            },
            published: true,
            publish_at: 1,
            create_at: 1,
            update_at: 1,
            chat_count: 5,
            deleted: false,
        }
    }

    /// The editable fields of a row, as a publish request would carry them.
    fn editable(r: &CharacterRow) -> PublishRequest {
        PublishRequest {
            id: None,
            name: r.name.clone(),
            description: r.description.clone(),
            persona: r.persona.clone(),
            scenario: r.scenario.clone(),
            greeting: r.greeting.clone(),
            alternate_greetings: r.alternate_greetings.clone(),
            example_dialogue: r.example_dialogue.clone(),
            system_prompt: r.system_prompt.clone(),
            post_history_instructions: r.post_history_instructions.clone(),
            creator_notes: r.creator_notes.clone(),
            tags: r.tags.clone(),
            gender: gender_to_wire(r.gender),
            character_type: r.character_type,
            avatar: String::new(),
            settings: Some(settings_to_wire(&r.settings)),
            published: false,
        }
    }

    #[test]
    fn v2_maps_to_a_character() {
        let card = parse_json(v2().to_string().as_bytes()).unwrap();
        assert_eq!(card.character_version, "3");
        let r = card.into_publish_request().unwrap();
        assert_eq!(r.name, "Seraphina");
        assert_eq!(r.persona, "A guardian of the forest.\n\nKind, protective.");
        assert_eq!(r.greeting, "*She smiles.* You're safe now.");
        assert_eq!(
            r.example_dialogue,
            "<START>\n{{user}}: Hi\n{{char}}: Hello."
        );
        assert_eq!(r.alternate_greetings, vec!["Welcome back.".to_owned()]);
        assert_eq!(r.tags, vec!["fantasy".to_owned(), "guardian".to_owned()]);
        assert_eq!(r.post_history_instructions, "Stay in character.");
        assert_eq!(r.description, "Made for testing.");
        assert_eq!(r.character_type, 1);
        assert!(!r.published);
    }

    #[test]
    fn v1_cards_are_accepted() {
        let v1 = json!({"name": "Old", "description": "Persona", "personality": "",
                        "scenario": "S", "first_mes": "Hey", "mes_example": "",
                        "tags": "a, b"});
        let r = parse_json(v1.to_string().as_bytes())
            .unwrap()
            .into_publish_request()
            .unwrap();
        assert_eq!((r.name.as_str(), r.persona.as_str()), ("Old", "Persona"));
        assert_eq!(r.greeting, "Hey");
        assert_eq!(r.tags, vec!["a".to_owned(), "b".to_owned()]);
    }

    #[test]
    fn non_cards_are_refused() {
        assert!(matches!(parse_json(b"not json"), Err(CardError::Json(_))));
        assert_eq!(parse_json(b"[1,2]"), Err(CardError::NotACard));
        assert_eq!(parse_json(br#"{"hello": 1}"#), Err(CardError::NotACard));
        assert_eq!(
            parse_json(br#"{"spec": "chara_card_v2", "data": 5}"#),
            Err(CardError::NotACard)
        );
        assert_eq!(
            parse_json(br#"{"spec": "chara_card_v2", "data": {"name": {"x": 1}}}"#),
            Err(CardError::Field("name"))
        );
        // A card that breaks a rule (no greeting) says which.
        let no_greeting = br#"{"spec": "chara_card_v2", "data": {"name": "X"}}"#;
        assert_eq!(
            parse_json(no_greeting).unwrap().into_publish_request(),
            Err(RuleError::Greeting)
        );
    }

    #[test]
    fn export_then_import_is_lossless() {
        let r = row();
        let json = to_v2_json(&r, "Owner");
        assert_eq!(json["spec"], "chara_card_v2");
        assert_eq!(json["data"]["description"], "Persona text.\n\nMore.");
        assert_eq!(json["data"]["creator"], "Owner");
        let back = parse_json(json.to_string().as_bytes())
            .unwrap()
            .into_publish_request()
            .unwrap();
        assert_eq!(back, editable(&r));
    }

    #[test]
    fn png_round_trip() {
        let r = row();
        let png = to_png(&portrait(&r.name), &to_v2_json(&r, "Owner")).unwrap();
        let (card, picture) = parse_any(&png).unwrap();
        let picture = picture.unwrap();
        assert_eq!(card.into_publish_request().unwrap(), editable(&r));
        // The kept picture has no card in it, and is the same image.
        assert!(png::text_chunks(&picture).unwrap().is_empty());
        assert_eq!(
            image::load_from_memory(&picture).unwrap().to_rgba8(),
            portrait(&r.name)
        );
    }

    #[test]
    fn png_failures() {
        let plain = {
            let mut b = Vec::new();
            image::DynamicImage::ImageRgba8(portrait("x"))
                .write_to(&mut std::io::Cursor::new(&mut b), image::ImageFormat::Png)
                .unwrap();
            b
        };
        assert_eq!(parse_png(&plain).unwrap_err(), CardError::NoCardInPng);
        let not_b64 = png::replace_text_chunk(&plain, "chara", Some(b"!!!")).unwrap();
        assert_eq!(parse_png(&not_b64).unwrap_err(), CardError::Base64);
        let not_card = png::replace_text_chunk(
            &plain,
            "chara",
            Some(png::base64_encode(b"{\"a\":1}").as_bytes()),
        )
        .unwrap();
        assert_eq!(parse_png(&not_card).unwrap_err(), CardError::NotACard);
        let mut garbage = png::SIGNATURE.to_vec();
        garbage.extend_from_slice(b"garbage garbage garbage");
        assert!(matches!(parse_any(&garbage), Err(CardError::Png(_))));
    }

    #[test]
    fn oversize_pictures_are_refused() {
        let big = RgbaImage::from_pixel(MAX_CARD_IMAGE_SIDE + 1, 1, Rgba([0, 0, 0, 255]));
        let png = to_png(&big, &to_v2_json(&row(), "o")).unwrap();
        assert_eq!(parse_png(&png).unwrap_err(), CardError::ImageTooLarge);
    }

    #[test]
    fn portraits_are_deterministic_and_differ_by_name() {
        assert_eq!(portrait("Ada"), portrait("Ada"));
        assert_ne!(portrait("Ada"), portrait("Bob"));
        let p = portrait("Ada");
        assert_eq!(p.dimensions(), (PORTRAIT_SIDE, PORTRAIT_SIDE));
    }
}
