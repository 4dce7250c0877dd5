//! Random prompts (`/api/v1/tool/prompt/rand`): a comma-separated prompt
//! drawn from the dictionary by category, following a recipe chosen by the
//! model's family, so an anime checkpoint gets illustration tags and a
//! photographic one gets camera and lens terms.

use protocol::task::catalogue::{catalogue, family_ids};
use rand::seq::IndexedRandom;
use rand::Rng;

use super::dictionary::{Dictionary, Entry};

/// What kind of prompt suits a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Flavour {
    /// Illustrious, NoobAI, Pony and anime checkpoints: tag lists.
    Anime,
    /// Photographic checkpoints (Realistic Vision, Juggernaut).
    Photo,
    /// Flux, SD 3.5, HiDream, SeaDream: long descriptive prompts.
    Descriptive,
    /// Anything else, and unknown models.
    General,
}

/// The flavour of `art_model_no` (a model number or a version number from
/// the catalogue); unknown models are `General`.
pub fn flavour_of(art_model_no: &str) -> Flavour {
    let c = catalogue();
    let Some(ck) = c
        .checkpoint_by_model_no(art_model_no)
        .or_else(|| c.checkpoint(art_model_no))
    else {
        return Flavour::General;
    };
    let name = format!("{} {} {}", ck.name, ck.variant, ck.model_no).to_lowercase();
    if ck.family == family_ids::IL
        || ck.family == family_ids::IL3
        || ["anime", "pony", "illustrious", "noob", "niji"]
            .iter()
            .any(|w| name.contains(w))
    {
        Flavour::Anime
    } else if ["realistic", "juggernaut", "photo"]
        .iter()
        .any(|w| name.contains(w))
    {
        Flavour::Photo
    } else if [
        family_ids::FLUX,
        family_ids::SD35,
        family_ids::HIDREAM,
        family_ids::SEADREAM,
    ]
    .contains(&ck.family.as_str())
    {
        Flavour::Descriptive
    } else {
        Flavour::General
    }
}

/// A recipe step: how many terms (at least, at most) from which category.
type Step = (&'static str, usize, usize);

fn recipe(f: Flavour) -> &'static [Step] {
    match f {
        Flavour::Anime => &[
            ("quality", 2, 3),
            ("anime", 1, 2),
            ("character", 2, 3),
            ("clothing", 1, 2),
            ("pose", 1, 1),
            ("place", 1, 1),
            ("time", 0, 1),
            ("lighting", 1, 1),
            ("effect", 0, 1),
            ("composition", 0, 1),
        ],
        Flavour::Photo => &[
            ("photography", 1, 2),
            ("subject", 1, 1),
            ("clothing", 0, 1),
            ("pose", 0, 1),
            ("place", 1, 1),
            ("time", 0, 1),
            ("weather", 0, 1),
            ("lighting", 1, 2),
            ("camera", 1, 2),
            ("mood", 0, 1),
            ("quality", 1, 1),
        ],
        Flavour::Descriptive => &[
            ("subject", 1, 1),
            ("pose", 0, 1),
            ("place", 1, 1),
            ("architecture", 0, 1),
            ("time", 0, 1),
            ("weather", 0, 1),
            ("lighting", 1, 1),
            ("style", 1, 1),
            ("medium", 0, 1),
            ("color", 0, 1),
            ("mood", 1, 1),
            ("composition", 0, 1),
        ],
        Flavour::General => &[
            ("quality", 1, 2),
            ("subject", 1, 1),
            ("animal", 0, 1),
            ("place", 1, 1),
            ("nature", 0, 1),
            ("time", 0, 1),
            ("lighting", 1, 1),
            ("style", 1, 1),
            ("medium", 0, 1),
            ("color", 0, 1),
            ("mood", 0, 1),
            ("camera", 0, 1),
        ],
    }
}

/// A random prompt for a flavour: each recipe step draws distinct terms of
/// its category. Categories the dictionary lacks are skipped.
pub fn random_prompt(dict: &Dictionary, flavour: Flavour, rng: &mut impl Rng) -> String {
    let mut words: Vec<&str> = Vec::new();
    for (category, min, max) in recipe(flavour) {
        let pool: Vec<&Entry> = dict.in_category(category).collect();
        let n = rng.random_range(*min..=*max);
        for e in pool.choose_multiple(rng, n) {
            if !words.contains(&e.term.as_str()) {
                words.push(&e.term);
            }
        }
    }
    words.join(", ")
}

/// A short negative prompt to go with it.
pub fn random_negative(dict: &Dictionary, rng: &mut impl Rng) -> String {
    let pool: Vec<&Entry> = dict.in_category("negative").collect();
    let n = rng.random_range(3..=6).min(pool.len());
    pool.choose_multiple(rng, n)
        .map(|e| e.term.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn flavours_follow_the_catalogue() {
        assert_eq!(flavour_of("illustrious-xl"), Flavour::Anime);
        assert_eq!(flavour_of("pony-xl"), Flavour::Anime);
        assert_eq!(flavour_of("realistic-vision"), Flavour::Photo);
        assert_eq!(flavour_of("flux-dev"), Flavour::Descriptive);
        assert_eq!(
            flavour_of("flux-dev-1"),
            Flavour::Descriptive,
            "by version number too"
        );
        assert_eq!(flavour_of("sd15"), Flavour::General);
        assert_eq!(flavour_of("no-such-model"), Flavour::General);
        assert_eq!(flavour_of(""), Flavour::General);
    }

    #[test]
    fn prompts_draw_from_the_recipe_categories() {
        let d = Dictionary::builtin().unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for f in [
            Flavour::Anime,
            Flavour::Photo,
            Flavour::Descriptive,
            Flavour::General,
        ] {
            let cats: Vec<&str> = recipe(f).iter().map(|(c, _, _)| *c).collect();
            for _ in 0..20 {
                let p = random_prompt(d, f, &mut rng);
                assert!(!p.is_empty());
                for w in p.split(", ") {
                    let e = d.lookup(w).unwrap_or_else(|| panic!("{w} not a term"));
                    assert!(cats.contains(&e.category), "{w} ({}) in {f:?}", e.category);
                }
            }
        }
        let anime = random_prompt(d, Flavour::Anime, &mut rng);
        assert!(anime
            .split(", ")
            .any(|w| d.lookup(w).unwrap().category == "anime"));
        let neg = random_negative(d, &mut rng);
        assert!(neg
            .split(", ")
            .all(|w| d.lookup(w).unwrap().category == "negative"));
    }
}
