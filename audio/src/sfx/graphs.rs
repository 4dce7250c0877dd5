//! The `fundsp` graph of each effect kind, and how it is laid over the
//! length: beds (continuous graphs with slow movement) and events (short
//! graphs with their own envelopes, scheduled by a seeded generator and
//! panned across the stereo field).

use fundsp::audiounit::AudioUnit;
use fundsp::prelude32::{
    bandpass, bandpass_hz, brown, dc, highpass_hz, lfo, lowpass_hz, noise, pink, saw, sine,
    sine_hz, square,
};

use crate::music::theory::Rng;

/// An effect kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Rain,
    Wind,
    Thunder,
    Footsteps,
    Knock,
    Bell,
    Laser,
    Whoosh,
    Birds,
    Water,
    Engine,
    Alarm,
    Applause,
    Heartbeat,
    Fire,
}

/// Each kind and the words that ask for it (a word also matches with an
/// inflection: "raining", "bells", "knocked").
pub const KINDS: [(Kind, &[&str]); 15] = [
    (
        Kind::Rain,
        &["rain", "drizzle", "storm", "downpour", "shower"],
    ),
    (
        Kind::Wind,
        &["wind", "windy", "breeze", "gust", "blizzard", "howling"],
    ),
    (
        Kind::Thunder,
        &[
            "thunder",
            "explosion",
            "boom",
            "blast",
            "rumble",
            "lightning",
        ],
    ),
    (
        Kind::Footsteps,
        &[
            "footstep",
            "footsteps",
            "steps",
            "walking",
            "running",
            "walk",
        ],
    ),
    (Kind::Knock, &["knock", "knocking", "door", "tap", "hammer"]),
    (
        Kind::Bell,
        &["bell", "bells", "chime", "chimes", "ding", "gong"],
    ),
    (
        Kind::Laser,
        &[
            "laser",
            "blaster",
            "sci",
            "zap",
            "spaceship",
            "robot",
            "beam",
        ],
    ),
    (
        Kind::Whoosh,
        &[
            "whoosh",
            "swoosh",
            "swish",
            "transition",
            "swipe",
            "fly",
            "flying",
        ],
    ),
    (
        Kind::Birds,
        &[
            "bird", "birds", "chirp", "tweet", "forest", "morning", "songbird",
        ],
    ),
    (
        Kind::Water,
        &[
            "water", "stream", "river", "brook", "bubble", "bubbles", "ocean", "waves", "splash",
        ],
    ),
    (
        Kind::Engine,
        &[
            "engine", "motor", "car", "hum", "machine", "drone", "truck", "factory",
        ],
    ),
    (
        Kind::Alarm,
        &["alarm", "beep", "siren", "warning", "alert", "buzzer"],
    ),
    (
        Kind::Applause,
        &[
            "applause", "clapping", "clap", "crowd", "audience", "cheer", "cheering",
        ],
    ),
    (
        Kind::Heartbeat,
        &["heartbeat", "heart", "pulse", "heartbeats"],
    ),
    (
        Kind::Fire,
        &[
            "fire",
            "campfire",
            "crackle",
            "crackling",
            "fireplace",
            "burning",
        ],
    ),
];

/// `n` samples of a source graph (no inputs, one output).
fn take(mut unit: Box<dyn AudioUnit>, rate: u32, n: usize) -> Vec<f32> {
    unit.set_sample_rate(f64::from(rate));
    unit.allocate();
    (0..n).map(|_| unit.get_mono()).collect()
}

/// Adds mono `sig` (times `env(t)` and `gain`) into interleaved stereo
/// `buf` at frame `at`, panned (-1 left .. 1 right).
fn place(
    buf: &mut [f32],
    at: usize,
    sig: &[f32],
    gain: f32,
    pan: f32,
    rate: u32,
    env: &dyn Fn(f32) -> f32,
) {
    let (l, r) = (((1.0 - pan) / 2.0).sqrt(), ((1.0 + pan) / 2.0).sqrt());
    for (i, s) in sig.iter().enumerate() {
        let f = at + i;
        let g = gain * env(i as f32 / rate as f32) * s;
        match (buf.get(f * 2), buf.get(f * 2 + 1)) {
            (Some(_), Some(_)) => {}
            _ => break,
        }
        if let Some(x) = buf.get_mut(f * 2) {
            *x += g * l;
        }
        if let Some(x) = buf.get_mut(f * 2 + 1) {
            *x += g * r;
        }
    }
}

fn decay(k: f32) -> impl Fn(f32) -> f32 {
    move |t| (-t * k).exp() * (t * 2000.0).min(1.0)
}

/// Seconds between events: `mean` with ±`spread` (fraction) jitter.
fn schedule(rng: &mut Rng, secs: f32, first: f32, mean: f32, spread: f32) -> Vec<f32> {
    let mut out = Vec::new();
    let mut t = first;
    while t < secs {
        out.push(t);
        t += mean * (1.0 + spread * (2.0 * rng.unit() as f32 - 1.0)).max(0.05);
    }
    out
}

/// Renders one kind into `buf` (interleaved stereo of `buf.len() / 2`
/// frames at `rate`).
pub fn render(kind: Kind, buf: &mut [f32], rate: u32, rng: &mut Rng) {
    let frames = buf.len() / 2;
    let secs = frames as f32 / rate as f32;
    let seed = rng.next_u64();
    let sec = |t: f32| (t * rate as f32) as usize;
    let flat = |_: f32| 1.0;
    match kind {
        Kind::Rain => {
            let bed = take(
                Box::new(pink().seed(seed) >> lowpass_hz(2800.0, 0.7)),
                rate,
                frames,
            );
            place(buf, 0, &bed, 0.5, 0.0, rate, &flat);
            for t in schedule(rng, secs, 0.0, 0.025, 0.9) {
                let f = 2000.0 + 4000.0 * rng.unit() as f32;
                let drop = take(
                    Box::new(noise().seed(rng.next_u64()) >> bandpass_hz(f, 4.0)),
                    rate,
                    sec(0.03),
                );
                let pan = 2.0 * rng.unit() as f32 - 1.0;
                place(
                    buf,
                    sec(t),
                    &drop,
                    0.6 * rng.unit() as f32,
                    pan,
                    rate,
                    &decay(120.0),
                );
            }
        }
        Kind::Wind => {
            let rate_hz = 0.1 + (seed % 7) as f32 * 0.03;
            let g = (noise().seed(seed)
                | lfo(move |t: f32| 500.0 + 350.0 * (t * rate_hz * std::f32::consts::TAU).sin())
                | dc(2.0))
                >> bandpass();
            let bed = take(Box::new(g), rate, frames);
            let swell =
                move |t: f32| 0.55 + 0.45 * (t * rate_hz * 1.7 * std::f32::consts::TAU).sin();
            place(buf, 0, &bed, 1.0, -0.2, rate, &swell);
        }
        Kind::Thunder => {
            let first = 0.3 * rng.unit() as f32;
            for t in schedule(rng, secs, first, 5.0, 0.4) {
                let len = 3.5;
                let rumble = take(
                    Box::new(brown().seed(rng.next_u64()) >> lowpass_hz(260.0, 0.8)),
                    rate,
                    sec(len),
                );
                let sub = take(
                    Box::new(sine_hz(38.0 + 10.0 * rng.unit() as f32)),
                    rate,
                    sec(len),
                );
                let crack = take(
                    Box::new(noise().seed(rng.next_u64()) >> highpass_hz(800.0, 0.7)),
                    rate,
                    sec(0.25),
                );
                let pan = rng.unit() as f32 - 0.5;
                place(buf, sec(t), &rumble, 3.0, pan, rate, &|x| {
                    (-x * 1.2).exp() * (x * 40.0).min(1.0)
                });
                place(buf, sec(t), &sub, 0.5, 0.0, rate, &decay(1.5));
                place(buf, sec(t), &crack, 0.5, pan, rate, &decay(18.0));
            }
        }
        Kind::Footsteps => {
            for (i, t) in schedule(rng, secs, 0.1, 0.55, 0.08).into_iter().enumerate() {
                let f = 180.0 + 80.0 * rng.unit() as f32;
                let step = take(
                    Box::new(noise().seed(rng.next_u64()) >> bandpass_hz(f, 1.5)),
                    rate,
                    sec(0.12),
                );
                let grit = take(
                    Box::new(noise().seed(rng.next_u64()) >> highpass_hz(2500.0, 0.7)),
                    rate,
                    sec(0.06),
                );
                let pan = if i.is_multiple_of(2) { -0.3 } else { 0.3 };
                place(buf, sec(t), &step, 2.5, pan, rate, &decay(35.0));
                place(buf, sec(t), &grit, 0.25, pan, rate, &decay(60.0));
            }
        }
        Kind::Knock => {
            for t in schedule(rng, secs, 0.2, 2.5, 0.3) {
                for k in 0..3 {
                    let hit = take(
                        Box::new(noise().seed(rng.next_u64()) >> bandpass_hz(420.0, 3.0)),
                        rate,
                        sec(0.1),
                    );
                    place(
                        buf,
                        sec(t + k as f32 * 0.18),
                        &hit,
                        3.0,
                        0.1,
                        rate,
                        &decay(45.0),
                    );
                }
            }
        }
        Kind::Bell => {
            let base = 330.0 + 330.0 * rng.unit() as f32;
            for t in schedule(rng, secs, 0.0, 2.2, 0.3) {
                let f = base
                    * [1.0, 1.25, 1.5, 2.0]
                        .get(rng.below(4))
                        .copied()
                        .unwrap_or(1.0);
                // Inharmonic partials of a bell, higher ones dying faster.
                for (j, (ratio, amp)) in [
                    (0.5, 0.4),
                    (1.0, 1.0),
                    (1.19, 0.5),
                    (1.56, 0.4),
                    (2.0, 0.3),
                    (2.74, 0.25),
                    (5.4, 0.12),
                ]
                .iter()
                .enumerate()
                {
                    let p = take(Box::new(sine_hz(f * ratio)), rate, sec(3.0));
                    place(
                        buf,
                        sec(t),
                        &p,
                        amp * 0.3,
                        0.0,
                        rate,
                        &decay(0.8 + j as f32 * 0.6),
                    );
                }
            }
        }
        Kind::Laser => {
            for t in schedule(rng, secs, 0.05, 0.7, 0.4) {
                let (hi, lo) = (
                    1800.0 + 1500.0 * rng.unit() as f32,
                    150.0 + 150.0 * rng.unit() as f32,
                );
                let sweep = take(
                    Box::new(
                        lfo(move |x: f32| lo + (hi - lo) * (-x * 14.0).exp())
                            >> saw()
                            >> lowpass_hz(5000.0, 0.7),
                    ),
                    rate,
                    sec(0.35),
                );
                place(
                    buf,
                    sec(t),
                    &sweep,
                    0.5,
                    rng.unit() as f32 - 0.5,
                    rate,
                    &decay(8.0),
                );
            }
        }
        Kind::Whoosh => {
            for t in schedule(rng, secs, 0.1, 1.8, 0.3) {
                let len = 0.9;
                let g = (noise().seed(rng.next_u64())
                    | lfo(move |x: f32| {
                        300.0 + 3000.0 * (x / len * std::f32::consts::PI).sin().max(0.0)
                    })
                    | dc(1.5))
                    >> bandpass();
                let w = take(Box::new(g), rate, sec(len));
                let pan_from = rng.unit() as f32 - 0.5;
                place(buf, sec(t), &w, 3.0, pan_from, rate, &move |x| {
                    (x / len * std::f32::consts::PI).sin().max(0.0).powi(2)
                });
            }
        }
        Kind::Birds => {
            for t in schedule(rng, secs, 0.2, 1.4, 0.6) {
                let chirps = 2 + rng.below(4);
                let f = 2500.0 + 2000.0 * rng.unit() as f32;
                let pan = 1.6 * rng.unit() as f32 - 0.8;
                for c in 0..chirps {
                    let up = 1.0 + 0.6 * rng.unit() as f32;
                    let chirp = take(
                        Box::new(
                            lfo(move |x: f32| {
                                f * (1.0 + (up - 1.0) * (x / 0.08).min(1.0))
                                    + 200.0 * (x * 90.0).sin()
                            }) >> sine(),
                        ),
                        rate,
                        sec(0.08),
                    );
                    place(
                        buf,
                        sec(t + c as f32 * 0.11),
                        &chirp,
                        0.35,
                        pan,
                        rate,
                        &|x| (x / 0.08 * std::f32::consts::PI).sin().max(0.0),
                    );
                }
            }
        }
        Kind::Water => {
            let bed = take(
                Box::new(pink().seed(seed) >> bandpass_hz(1100.0, 0.6)),
                rate,
                frames,
            );
            place(buf, 0, &bed, 1.2, 0.0, rate, &flat);
            for t in schedule(rng, secs, 0.0, 0.09, 0.9) {
                let f = 300.0 + 600.0 * rng.unit() as f32;
                let bubble = take(
                    Box::new(lfo(move |x: f32| f * (1.0 + 6.0 * x)) >> sine()),
                    rate,
                    sec(0.05),
                );
                place(
                    buf,
                    sec(t),
                    &bubble,
                    0.12,
                    1.4 * rng.unit() as f32 - 0.7,
                    rate,
                    &decay(60.0),
                );
            }
        }
        Kind::Engine => {
            let f = 40.0 + (seed % 30) as f32;
            let g = (lfo(move |t: f32| f + 2.5 * (t * 7.0).sin()) >> saw())
                + (lfo(move |t: f32| f * 2.01 + 3.0 * (t * 5.0).sin()) >> saw()) * 0.5;
            let bed = take(Box::new(g >> lowpass_hz(420.0, 0.9)), rate, frames);
            place(buf, 0, &bed, 0.6, 0.0, rate, &|t| {
                0.85 + 0.15 * (t * 11.0).sin()
            });
        }
        Kind::Alarm => {
            let (a, b) = (880.0, 660.0);
            let g = lfo(move |t: f32| if (t * 2.0) as i64 % 2 == 0 { a } else { b })
                >> square()
                >> lowpass_hz(3500.0, 0.7);
            let bed = take(Box::new(g), rate, frames);
            place(buf, 0, &bed, 0.3, 0.0, rate, &|t| {
                if (t * 4.0).fract() < 0.85 {
                    1.0
                } else {
                    0.3
                }
            });
        }
        Kind::Applause => {
            let bed = take(
                Box::new(noise().seed(seed) >> bandpass_hz(1800.0, 0.5)),
                rate,
                frames,
            );
            place(buf, 0, &bed, 0.5, 0.0, rate, &flat);
            for t in schedule(rng, secs, 0.0, 0.012, 0.95) {
                let f = 1000.0 + 2000.0 * rng.unit() as f32;
                let clap = take(
                    Box::new(noise().seed(rng.next_u64()) >> bandpass_hz(f, 2.0)),
                    rate,
                    sec(0.03),
                );
                place(
                    buf,
                    sec(t),
                    &clap,
                    0.9 * rng.unit() as f32,
                    1.8 * rng.unit() as f32 - 0.9,
                    rate,
                    &decay(110.0),
                );
            }
        }
        Kind::Heartbeat => {
            let period = 60.0 / (62.0 + (seed % 20) as f32);
            for t in schedule(rng, secs, 0.1, period, 0.02) {
                for (dt, amp) in [(0.0, 1.0), (0.26, 0.7)] {
                    let thump = take(
                        Box::new(lfo(|x: f32| 62.0 - 20.0 * x) >> sine()),
                        rate,
                        sec(0.18),
                    );
                    place(buf, sec(t + dt), &thump, amp, 0.0, rate, &|x| {
                        (-x * 22.0).exp() * (x * 300.0).min(1.0)
                    });
                }
            }
        }
        Kind::Fire => {
            let bed = take(
                Box::new(brown().seed(seed) >> lowpass_hz(500.0, 0.7)),
                rate,
                frames,
            );
            place(buf, 0, &bed, 2.0, 0.0, rate, &|t| {
                0.8 + 0.2 * (t * 1.3).sin() * (t * 0.7).sin()
            });
            for t in schedule(rng, secs, 0.0, 0.07, 0.95) {
                let crack = take(
                    Box::new(noise().seed(rng.next_u64()) >> highpass_hz(1500.0, 0.7)),
                    rate,
                    sec(0.012),
                );
                place(
                    buf,
                    sec(t),
                    &crack,
                    0.8 * (rng.unit() as f32).powi(2),
                    1.2 * rng.unit() as f32 - 0.6,
                    rate,
                    &decay(250.0),
                );
            }
        }
    }
}

/// A textured ambience for a description with no known word: a noise bed
/// whose colour and movement, a two-tone drone and sparse grains all come
/// from `h` (the prompt's hash).
pub fn ambience(buf: &mut [f32], rate: u32, h: u64, rng: &mut Rng) {
    let frames = buf.len() / 2;
    let secs = frames as f32 / rate as f32;
    let centre = 250.0 + (h % 2000) as f32;
    let speed = 0.05 + ((h >> 12) % 10) as f32 * 0.02;
    let g = (pink().seed(h)
        | lfo(move |t: f32| centre * (1.0 + 0.5 * (t * speed * std::f32::consts::TAU).sin()))
        | dc(0.8))
        >> bandpass();
    let bed = take(Box::new(g), rate, frames);
    place(buf, 0, &bed, 1.0, 0.0, rate, &|_| 1.0);
    let root = 55.0 * 2f32.powf(((h >> 20) % 24) as f32 / 12.0);
    let fifth = root
        * if (h >> 30).is_multiple_of(2) {
            1.5
        } else {
            1.2
        };
    for (f, pan) in [(root, -0.4), (fifth, 0.4)] {
        let tone = take(
            Box::new(sine_hz(f) + sine_hz(f * 2.003) * 0.3),
            rate,
            frames,
        );
        place(buf, 0, &tone, 0.08, pan, rate, &move |t| {
            0.6 + 0.4 * (t * speed * 3.0).sin()
        });
    }
    let grain_f = 800.0 + ((h >> 40) % 3000) as f32;
    for t in schedule(rng, secs, 0.0, 0.4, 0.9) {
        let grain = take(
            Box::new(noise().seed(rng.next_u64()) >> bandpass_hz(grain_f, 6.0)),
            rate,
            (0.08 * rate as f32) as usize,
        );
        place(
            buf,
            (t * rate as f32) as usize,
            &grain,
            0.6 * rng.unit() as f32,
            1.6 * rng.unit() as f32 - 0.8,
            rate,
            &|x| (x / 0.08 * std::f32::consts::PI).sin().max(0.0),
        );
    }
}
