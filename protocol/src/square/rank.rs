//! The ranking formulas of the square, as pure functions (ARCHITECTURE.md
//! "The square" cites them):
//!
//! - **points** = likes + 2·collects + 1.5·comments + 0.05·views: a collect
//!   says more than a like, a comment more than a like, a view little.
//! - **hot** = 10000 · log10(3 + points) / (age_hours + 2)^1.8, Lemmy's
//!   published rank (itself Hacker News's gravity 1.8 with a logarithm so
//!   the thousandth like counts less than the tenth). A new work with no
//!   points starts above zero and sinks with age, so it gets its chance.
//! - **recommend** = hot · boost, boost = 1 + 1.5 when the viewer follows
//!   the author, + 0.4 per tag the work shares with the works the viewer
//!   liked (at most 3 counted). Visitors see hot.
//! - **new** is publish time; **follows** is publish time over the followed
//!   accounts' works.

/// Weights of [`points`].
pub const LIKE_WEIGHT: f64 = 1.0;
pub const COLLECT_WEIGHT: f64 = 2.0;
pub const COMMENT_WEIGHT: f64 = 1.5;
pub const VIEW_WEIGHT: f64 = 0.05;
/// Gravity of [`hot`].
pub const GRAVITY: f64 = 1.8;
/// Boost for a followed author, and per shared liked tag (at most [`MAX_TAG_MATCHES`]).
pub const FOLLOW_BOOST: f64 = 1.5;
pub const TAG_BOOST: f64 = 0.4;
pub const MAX_TAG_MATCHES: usize = 3;

/// The engagement points of a work.
pub fn points(likes: i64, collects: i64, comments: i64, views: i64) -> f64 {
    let n = |v: i64| v.max(0) as f64;
    LIKE_WEIGHT * n(likes)
        + COLLECT_WEIGHT * n(collects)
        + COMMENT_WEIGHT * n(comments)
        + VIEW_WEIGHT * n(views)
}

/// The hot score of a work with `points` published `age_ms` ago (a future
/// time counts as now).
pub fn hot(points: f64, age_ms: i64) -> f64 {
    let hours = age_ms.max(0) as f64 / 3_600_000.0;
    10_000.0 * (3.0 + points.max(0.0)).log10() / (hours + 2.0).powf(GRAVITY)
}

/// The viewer's boost of a work in recommend.
pub fn recommend_boost(follows_author: bool, shared_liked_tags: usize) -> f64 {
    let f = if follows_author { FOLLOW_BOOST } else { 0.0 };
    1.0 + f + TAG_BOOST * shared_liked_tags.min(MAX_TAG_MATCHES) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: i64 = 3_600_000;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6 * b.abs().max(1.0)
    }

    #[test]
    fn points_weights() {
        for (l, c, m, v, want) in [
            (0, 0, 0, 0, 0.0),
            (1, 0, 0, 0, 1.0),
            (0, 1, 0, 0, 2.0),
            (0, 0, 1, 0, 1.5),
            (0, 0, 0, 20, 1.0),
            (10, 5, 4, 100, 31.0),
            (-3, 0, 0, 0, 0.0),
        ] {
            assert!(close(points(l, c, m, v), want), "{l} {c} {m} {v}");
        }
    }

    #[test]
    fn hot_values_match_the_formula() {
        // 10000 * log10(3) / 2^1.8 at age 0 with no points.
        assert!(close(hot(0.0, 0), 10_000.0 * 3f64.log10() / 2f64.powf(1.8)));
        for (p, age_h, want) in [
            (0.0, 0, 1370.171001),
            (7.0, 0, 2871.745887),
            (97.0, 0, 5743.491775),
            (7.0, 22, 32.780816),
            (0.0, -5, 1370.171001),
        ] {
            let got = hot(p, age_h * H);
            assert!((got - want).abs() < 1e-3, "points {p} age {age_h}h: {got}");
        }
    }

    #[test]
    fn hot_orders_as_documented() {
        // More points, same age: higher.
        assert!(hot(10.0, H) > hot(5.0, H));
        // Same points, older: lower.
        assert!(hot(10.0, 2 * H) < hot(10.0, H));
        // A day-old work needs far more points than a new one to rank above it.
        assert!(hot(100.0, 24 * H) < hot(0.0, 0));
        // The logarithm: the thousandth like adds less than the tenth.
        assert!(hot(1000.0, 0) - hot(999.0, 0) < hot(10.0, 0) - hot(9.0, 0));
    }

    #[test]
    fn boosts() {
        assert!(close(recommend_boost(false, 0), 1.0));
        assert!(close(recommend_boost(true, 0), 2.5));
        assert!(close(recommend_boost(false, 2), 1.8));
        assert!(close(recommend_boost(true, 9), 1.0 + 1.5 + 1.2));
    }
}
