//! The viewer's NSFW viewing mode (`blur`, `hide`, `show`) and the content
//! ratings cards carry (`safe`, `suggestive`, `nsfw`), as on the wire.
//!
//! Signed-in accounts keep their mode on their profile; visitors send theirs
//! with feed requests and may blur or hide, never show (like Civitai, which
//! shows mature content only to accounts that opted in).

use serde::{Deserialize, Deserializer, Serialize};

pub const RATING_SAFE: &str = "safe";
pub const RATING_SUGGESTIVE: &str = "suggestive";
pub const RATING_NSFW: &str = "nsfw";

/// How a viewer sees NSFW works.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NsfwMode {
    /// Shown blurred with a reveal control (the default).
    #[default]
    Blur,
    /// Left out of feeds, lists and search by the server.
    Hide,
    /// Shown as they are (accounts only).
    Show,
}

impl NsfwMode {
    pub fn as_str(self) -> &'static str {
        match self {
            NsfwMode::Blur => "blur",
            NsfwMode::Hide => "hide",
            NsfwMode::Show => "show",
        }
    }

    /// Strictly one of the three names (any case, trimmed).
    pub fn parse(s: &str) -> Option<NsfwMode> {
        match s.trim().to_ascii_lowercase().as_str() {
            "blur" => Some(NsfwMode::Blur),
            "hide" => Some(NsfwMode::Hide),
            "show" => Some(NsfwMode::Show),
            _ => None,
        }
    }

    /// The mode an account row without one had: `show_nsfw` true is show,
    /// false is blur.
    pub fn from_show(show_nsfw: bool) -> NsfwMode {
        if show_nsfw {
            NsfwMode::Show
        } else {
            NsfwMode::Blur
        }
    }

    /// What a visitor may ask for: show reads as blur.
    pub fn for_visitor(self) -> NsfwMode {
        match self {
            NsfwMode::Show => NsfwMode::Blur,
            m => m,
        }
    }
}

/// Lenient reading of a feed request's `nsfw_mode`: a known name (any case)
/// or `null`; anything else is ignored (read as no choice), so an old or
/// odd client never fails a feed call over it.
pub fn lenient_mode<'de, D: Deserializer<'de>>(d: D) -> Result<Option<NsfwMode>, D::Error> {
    let v = Option::<serde_json::Value>::deserialize(d)?;
    Ok(match v {
        Some(serde_json::Value::String(s)) => NsfwMode::parse(&s),
        _ => None,
    })
}

/// A card's rating: the author's mark (or the classifier's verdict at
/// publish, `nsfw`) makes it `nsfw`; otherwise the score against the
/// thresholds; unscored is `safe`.
pub fn rating(
    marked_nsfw: bool,
    score: Option<f32>,
    threshold: f32,
    suggestive: f32,
) -> &'static str {
    match score {
        _ if marked_nsfw => RATING_NSFW,
        Some(s) if s >= threshold => RATING_NSFW,
        Some(s) if s >= suggestive => RATING_SUGGESTIVE,
        _ => RATING_SAFE,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn modes_parse_strictly_and_feed_requests_leniently() {
        assert_eq!(NsfwMode::parse(" HIDE "), Some(NsfwMode::Hide));
        assert_eq!(NsfwMode::parse("show"), Some(NsfwMode::Show));
        assert_eq!(NsfwMode::parse("off"), None);
        assert_eq!(NsfwMode::from_show(true), NsfwMode::Show);
        assert_eq!(NsfwMode::from_show(false), NsfwMode::Blur);
        assert_eq!(NsfwMode::Show.for_visitor(), NsfwMode::Blur);
        assert_eq!(NsfwMode::Hide.for_visitor(), NsfwMode::Hide);
        for (body, want) in [
            (r#"{"nsfw_mode":"hide"}"#, Some(NsfwMode::Hide)),
            (r#"{"nsfw_mode":"Blur"}"#, Some(NsfwMode::Blur)),
            (r#"{"nsfw_mode":"sideways"}"#, None),
            (r#"{"nsfw_mode":3}"#, None),
            (r#"{"nsfw_mode":null}"#, None),
            ("{}", None),
        ] {
            let r: crate::square::feed::FeedRequest = serde_json::from_str(body).unwrap();
            assert_eq!(r.nsfw_mode, want, "{body}");
        }
    }

    #[test]
    fn ratings_follow_the_thresholds_and_the_mark() {
        for (marked, score, want) in [
            (false, None, RATING_SAFE),
            (true, None, RATING_NSFW),
            (false, Some(0.1), RATING_SAFE),
            (false, Some(0.2), RATING_SUGGESTIVE),
            (false, Some(0.49), RATING_SUGGESTIVE),
            (false, Some(0.5), RATING_NSFW),
            (true, Some(0.0), RATING_NSFW),
        ] {
            assert_eq!(rating(marked, score, 0.5, 0.2), want, "{marked} {score:?}");
        }
    }
}
