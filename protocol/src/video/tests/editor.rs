//! The video editor's rules: names, output sizes, timelines against their
//! materials, the export job and its cost, the operation log.

use serde_json::json;

use crate::task::codes::TaskStatus;
use crate::video::editor::*;

fn facts(id: &str) -> Option<MaterialFacts> {
    match id {
        "v10" => Some(MaterialFacts {
            kind: MaterialKind::Video,
            duration: 10.0,
            has_audio: false,
        }),
        "v4" => Some(MaterialFacts {
            kind: MaterialKind::Video,
            duration: 4.0,
            has_audio: true,
        }),
        "song" => Some(MaterialFacts {
            kind: MaterialKind::Audio,
            duration: 30.0,
            has_audio: true,
        }),
        _ => None,
    }
}

fn clip(id: &str, start: f64, end: f64) -> Clip {
    Clip {
        material_id: id.into(),
        start,
        end,
    }
}

fn music(id: &str, start: f64, volume: f64) -> Option<Music> {
    Some(Music {
        material_id: id.into(),
        start,
        volume,
    })
}

#[test]
fn timelines_are_checked_against_their_materials() {
    let ok = |t: Timeline| check_timeline(&t, &facts);
    let invalid = |t: Timeline, want: &str| match check_timeline(&t, &facts) {
        Err(TimelineError::Invalid(m)) => assert!(m.contains(want), "{m:?} lacks {want:?}"),
        other => panic!("{other:?} for {want}"),
    };
    // Two clips and music: kept, rounded to milliseconds.
    let t = ok(Timeline {
        clips: vec![clip("v10", 1.00049, 3.5), clip("v4", 0.0, 4.0)],
        music: music("song", 2.0, 0.8),
    })
    .unwrap();
    assert_eq!(t.clips[0].start, 1.0);
    assert!((t.duration() - 6.5).abs() < 1e-9);
    // An empty timeline is a valid draft.
    assert_eq!(ok(Timeline::default()).unwrap().duration(), 0.0);
    // A material that is not the caller's is unknown, not invalid.
    assert_eq!(
        ok(Timeline {
            clips: vec![clip("someone-elses", 0.0, 1.0)],
            music: None
        }),
        Err(TimelineError::UnknownMaterial("someone-elses".into()))
    );
    assert_eq!(
        ok(Timeline {
            clips: vec![],
            music: music("nope", 0.0, 1.0)
        }),
        Err(TimelineError::UnknownMaterial("nope".into()))
    );
    let one = |c: Clip| Timeline {
        clips: vec![c],
        music: None,
    };
    invalid(one(clip("v10", -1.0, 2.0)), "start must be 0");
    invalid(one(clip("v10", 2.0, 2.05)), "at least");
    invalid(one(clip("v10", 3.0, 2.0)), "at least");
    invalid(one(clip("v10", 0.0, 10.5)), "after the video's end");
    invalid(one(clip("v10", f64::NAN, 2.0)), "start");
    invalid(one(clip("song", 0.0, 2.0)), "only videos");
    // The end may overshoot by the probe's rounding, and is clamped.
    assert_eq!(
        ok(one(clip("v10", 0.0, 10.0004))).unwrap().clips[0].end,
        10.0
    );
    // Music must have sound, start inside it, and a sane volume.
    let with_music = |m: Option<Music>| Timeline {
        clips: vec![clip("v10", 0.0, 1.0)],
        music: m,
    };
    invalid(with_music(music("v10", 0.0, 1.0)), "no sound");
    invalid(with_music(music("song", 30.0, 1.0)), "outside the material");
    invalid(with_music(music("song", 0.0, 2.5)), "volume");
    invalid(with_music(music("song", 0.0, -0.1)), "volume");
    assert!(ok(with_music(music("v4", 1.0, 0.0))).is_ok());
    // Limits: clips and total length.
    invalid(
        Timeline {
            clips: (0..=MAX_CLIPS).map(|_| clip("v4", 0.0, 1.0)).collect(),
            music: None,
        },
        "at most 50 clips",
    );
    invalid(
        Timeline {
            clips: (0..31).map(|_| clip("v10", 0.0, 10.0)).collect(),
            music: None,
        },
        "at most 300",
    );
}

#[test]
fn names_and_sizes() {
    assert_eq!(clean_name(None, DEFAULT_NAME), "Untitled edit");
    assert_eq!(clean_name(Some("  \n "), "x"), "x");
    assert_eq!(clean_name(Some(" Trip\u{7}  "), "x"), "Trip");
    assert_eq!(clean_name(Some(&"é".repeat(100)), "x").chars().count(), 80);
    assert_eq!(output_size(None, None), Ok((1280, 720)));
    assert_eq!(output_size(Some(720), Some(1280)), Ok((720, 1280)));
    for (w, h, want) in [
        (Some(127), None, "outside"),
        (Some(1922), None, "outside"),
        (None, Some(721), "even"),
        (Some(0), Some(0), "outside"),
    ] {
        let e = output_size(w, h).unwrap_err();
        assert!(e.contains(want), "{w:?}x{h:?}: {e}");
    }
}

#[test]
fn the_export_job_and_its_cost() {
    let t = check_timeline(
        &Timeline {
            clips: vec![clip("v10", 0.0, 4.0), clip("v4", 1.0, 3.5)],
            music: music("song", 5.0, 0.5),
        },
        &facts,
    )
    .unwrap();
    let job = edit_job(&t, 1280, 720, 24).unwrap();
    assert_eq!(job.clips.len(), 2);
    assert_eq!(
        job.clips[1],
        EditClip {
            start: 1.0,
            end: 3.5
        }
    );
    assert_eq!(
        job.music,
        Some(EditMusic {
            start: 5.0,
            volume: 0.5
        })
    );
    // 6.5 s: two started 5-second blocks; doubled above 720p.
    assert_eq!(export_cost(&job), 2);
    assert_eq!(
        export_cost(&EditJob {
            width: 1920,
            height: 1080,
            ..job.clone()
        }),
        4
    );
    let short = EditJob {
        clips: vec![EditClip {
            start: 0.0,
            end: 0.5,
        }],
        ..job
    };
    assert_eq!(export_cost(&short), 1);
    assert_eq!(edit_job(&Timeline::default(), 1280, 720, 24), None);
}

#[test]
fn the_operation_log_keeps_the_newest() {
    let mut log = Vec::new();
    let ops: Vec<_> = (0..50).map(|i| json!({"op": "trim", "i": i})).collect();
    for _ in 0..5 {
        append_operations(&mut log, &ops).unwrap();
    }
    assert_eq!(log.len(), MAX_OPERATIONS);
    assert_eq!(log[0], json!({"op": "trim", "i": 0}));
    assert_eq!(log.last(), Some(&json!({"op": "trim", "i": 49})));
    let too_many: Vec<_> = (0..51).map(|i| json!(i)).collect();
    assert!(append_operations(&mut log, &too_many).is_err());
    let big = json!({"text": "x".repeat(MAX_OPERATION_BYTES)});
    assert!(append_operations(&mut log, &[big])
        .unwrap_err()
        .contains("bytes"));
    assert_eq!(log.len(), MAX_OPERATIONS);
}

#[test]
fn requests_are_lenient_and_status_words_fixed() {
    let e: EditRequest = serde_json::from_value(json!({
        "workspace_id": 12, "width": "640", "height": 360,
        "timeline": {"clips": [{"material_id": "a", "start": "0.5", "end": 2}], "music": null}
    }))
    .unwrap();
    assert_eq!(e.workspace_id.as_deref(), Some("12"));
    assert_eq!((e.width, e.height), (Some(640), Some(360)));
    assert_eq!(e.timeline.unwrap().clips[0].start, 0.5);
    assert!(serde_json::from_value::<CreateRequest>(json!({"width": -5})).is_err());
    let m: Music = serde_json::from_value(json!({"material_id": "s"})).unwrap();
    assert_eq!((m.start, m.volume), (0.0, 1.0));
    for (s, cancelled, want) in [
        (TaskStatus::Queued, false, "queued"),
        (TaskStatus::Running, false, "running"),
        (TaskStatus::Success, false, "succeeded"),
        (TaskStatus::Ended, false, "failed"),
        (TaskStatus::Ended, true, "cancelled"),
    ] {
        assert_eq!(export_status_word(s, cancelled), want);
    }
}
