//! The agent's starter templates (`/gen-agent/prompt/preset-template`):
//! ideas a user can send as a first message, each a different kind of image
//! so the list shows what the agent is for.

use protocol::agent::PresetTemplate;

const TEMPLATES: &[(&str, &str, &str)] = &[
    (
        "portrait",
        "Character portrait",
        "A portrait of a weathered sea captain with a grey beard, looking into the distance",
    ),
    (
        "landscape",
        "Epic landscape",
        "A wide mountain valley at sunrise with mist over a winding river",
    ),
    (
        "product",
        "Product shot",
        "A studio photo of a glass perfume bottle on a marble table with soft reflections",
    ),
    (
        "anime",
        "Anime scene",
        "An anime girl reading under a cherry tree while petals fall, warm afternoon",
    ),
    (
        "interior",
        "Cosy interior",
        "A small reading nook with a window seat, rain outside and a lamp glowing inside",
    ),
    (
        "creature",
        "Fantasy creature",
        "A friendly dragon made of moss and stones sleeping in an old forest",
    ),
    (
        "food",
        "Food photography",
        "A bowl of ramen with a soft egg and steam rising, shot from above on dark wood",
    ),
    (
        "city",
        "Sci-fi city",
        "A neon-lit city street at night in the rain, flying cars and reflections on the ground",
    ),
    (
        "logo",
        "Flat illustration",
        "A flat vector illustration of a fox curled around a coffee cup, two colours",
    ),
];

pub fn templates() -> Vec<PresetTemplate> {
    TEMPLATES
        .iter()
        .map(|(id, title, prompt)| PresetTemplate {
            id: (*id).to_owned(),
            title: (*title).to_owned(),
            prompt: (*prompt).to_owned(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_are_distinct_and_filled() {
        let t = templates();
        assert!(t.len() >= 8);
        let mut ids: Vec<&str> = t.iter().map(|p| p.id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), t.len());
        assert!(t
            .iter()
            .all(|p| !p.title.is_empty() && p.prompt.len() > 20 && !p.prompt.contains('"')));
    }
}
