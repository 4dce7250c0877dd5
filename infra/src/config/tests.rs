//! Tests of `config.rs`.
use super::*;
use std::collections::HashMap;

fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let m: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    move |k| m.get(k).cloned()
}

#[test]
fn defaults_match_the_readme() {
    let s = Settings::load_from(env(&[])).unwrap();
    assert_eq!(s.addr, "127.0.0.1:8080");
    assert_eq!(s.data_dir, PathBuf::from("data"));
    assert_eq!(s.store, StoreConfig::Embedded);
    assert_eq!(s.socket.auth_timeout_ms, 10_000);
    assert_eq!(s.socket.idle_timeout_ms, 45_000);
}

#[test]
fn file_then_env_layering() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("easel.toml");
    std::fs::write(&path, "addr = \"0.0.0.0:9000\"\nstore = \"scylla://a:9042,b:9042/prod\"\n[socket]\nidle_timeout_ms = 5\n").unwrap();
    let p = path.to_string_lossy().into_owned();
    let s = Settings::load_from(env(&[
        ("EASEL_CONFIG", &p),
        ("EASEL_ADDR", "127.0.0.1:0"),
        ("EASEL_REDIS", "redis://x"),
    ]))
    .unwrap();
    assert_eq!(s.addr, "127.0.0.1:0", "env beats file");
    assert_eq!(
        s.store,
        StoreConfig::Scylla {
            nodes: vec!["a:9042".into(), "b:9042".into()],
            keyspace: "prod".into()
        }
    );
    assert_eq!(s.socket.idle_timeout_ms, 5);
    assert_eq!(
        s.socket.auth_timeout_ms, 10_000,
        "unset file fields keep defaults"
    );
    assert_eq!(s.redis.as_ref().map(Secret::expose), Some("redis://x"));
    assert_eq!(format!("{:?}", s.redis), "Some(Secret(***))");
}

#[test]
fn square_settings_from_file_and_env() {
    let s = Settings::load_from(env(&[])).unwrap();
    assert_eq!(s.square.comments_per_min, 20);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("easel.toml");
    std::fs::write(&path, "[square]\ncomments_per_min = 5\n").unwrap();
    let p = path.to_string_lossy().into_owned();
    let s = Settings::load_from(env(&[("EASEL_CONFIG", &p)])).unwrap();
    assert_eq!(s.square.comments_per_min, 5);
    let s = Settings::load_from(env(&[
        ("EASEL_CONFIG", &p),
        ("EASEL_COMMENTS_PER_MIN", "7"),
    ]))
    .unwrap();
    assert_eq!(s.square.comments_per_min, 7, "env beats file");
    assert!(Settings::load_from(env(&[("EASEL_COMMENTS_PER_MIN", "many")])).is_err());
}

#[test]
fn translate_settings_from_file_and_env() {
    let s = Settings::load_from(env(&[])).unwrap();
    assert_eq!(s.translate, TranslateSettings::default());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("easel.toml");
    std::fs::write(
        &path,
        "[translate]\nurl = \"http://lt:5000\"\ntimeout_ms = 50\n",
    )
    .unwrap();
    let p = path.to_string_lossy().into_owned();
    let s = Settings::load_from(env(&[
        ("EASEL_CONFIG", &p),
        ("EASEL_TRANSLATE_API_KEY", "k"),
        ("EASEL_TRANSLATE_CACHE_ENTRIES", "10"),
    ]))
    .unwrap();
    assert_eq!(s.translate.url.as_deref(), Some("http://lt:5000"));
    assert_eq!(s.translate.timeout_ms, 50);
    assert_eq!(s.translate.cache_entries, 10);
    assert_eq!(s.translate.api_key.as_ref().map(Secret::expose), Some("k"));
    let s = Settings::load_from(env(&[("EASEL_CONFIG", &p), ("EASEL_TRANSLATE_URL", "")])).unwrap();
    assert_eq!(
        s.translate.url, None,
        "an empty variable turns the service off"
    );
    assert!(Settings::load_from(env(&[("EASEL_TRANSLATE_TIMEOUT_MS", "x")])).is_err());
}

#[test]
fn the_pacer_engine_only_by_explicit_setting() {
    assert!(Settings::load_from(env(&[])).unwrap().engines.is_empty());
    let s = Settings::load_from(env(&[
        ("EASEL_ENGINE", "pacer"),
        ("EASEL_PACER_STEP_MS", "50"),
        ("EASEL_PACER_STEPS", "10"),
    ]))
    .unwrap();
    assert_eq!(
        s.engines.first().map(|e| &e.kind),
        Some(&engines::EngineKind::Pacer {
            step_ms: 50,
            steps: 10
        })
    );
    assert!(Settings::load_from(env(&[("EASEL_ENGINE", "fast")])).is_err());
    assert!(Settings::load_from(env(&[
        ("EASEL_ENGINE", "pacer"),
        ("EASEL_PACER_STEP_MS", "x")
    ]))
    .is_err());
}

#[test]
fn bad_settings_are_errors() {
    assert!(Settings::load_from(env(&[("EASEL_STORE", "mysql://x")])).is_err());
    assert!(Settings::load_from(env(&[("EASEL_STORE", "scylla:///bad-ks")])).is_err());
    assert!(Settings::load_from(env(&[("EASEL_WS_IDLE_TIMEOUT_MS", "soon")])).is_err());
    assert!(Settings::load_from(env(&[("EASEL_OBJECTS", "ftp://x")])).is_err());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.toml");
    std::fs::write(&path, "no_such_setting = 1\n").unwrap();
    assert!(Settings::load_from(env(&[("EASEL_CONFIG", &path.to_string_lossy())])).is_err());
}

#[test]
fn comfyui_lip_sync_by_env_or_toml() {
    let s = Settings::load_from(env(&[
        ("EASEL_COMFYUI_URL", "http://gpu:8188"),
        ("EASEL_COMFYUI_S2V", "1"),
    ]))
    .unwrap();
    match s.engines.first().map(|e| &e.kind) {
        Some(engines::EngineKind::Comfyui { s2v, ace, .. }) => {
            assert_eq!(s2v, &Some(engines::comfyui::S2vModels::default()));
            assert_eq!(ace, &None);
        }
        other => panic!("{other:?}"),
    }
    let s = Settings::load_from(env(&[("EASEL_COMFYUI_URL", "http://gpu:8188")])).unwrap();
    assert!(matches!(
        s.engines.first().map(|e| &e.kind),
        Some(engines::EngineKind::Comfyui { s2v: None, .. })
    ));

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("easel.toml");
    std::fs::write(
        &path,
        "[[engines]]\nkind = \"comfyui\"\nurl = \"http://gpu:8188\"\n[engines.s2v]\n\
         diffusion_model = \"wan2.2_s2v_14B_bf16.safetensors\"\nsteps = 4\ncfg = 1.0\n",
    )
    .unwrap();
    let p = path.to_string_lossy().into_owned();
    let s = Settings::load_from(env(&[("EASEL_CONFIG", &p)])).unwrap();
    match s.engines.first().map(|e| &e.kind) {
        Some(engines::EngineKind::Comfyui { s2v: Some(m), .. }) => {
            assert_eq!(m.diffusion_model, "wan2.2_s2v_14B_bf16.safetensors");
            assert_eq!((m.steps, m.chunk_length), (4, 77));
            assert_eq!(m.audio_encoder, "wav2vec2_large_english_fp16.safetensors");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn remote_store_setting() {
    let s = Settings::load_from(env(&[
        ("EASEL_STORE", "easel://10.0.0.5:7700"),
        ("EASEL_STORE_TOKEN", "s3cret"),
        ("EASEL_STORE_TIMEOUT_MS", "2500"),
    ]))
    .unwrap();
    assert_eq!(
        s.store,
        StoreConfig::Remote {
            addr: "10.0.0.5:7700".into()
        }
    );
    assert_eq!(s.store_token.as_ref().map(Secret::expose), Some("s3cret"));
    assert_eq!(s.store_timeout_ms, 2500);
    let d = Settings::load_from(env(&[])).unwrap();
    assert_eq!(d.store_token, None);
    assert_eq!(d.store_timeout_ms, 10_000);
    for bad in [
        "easel://",
        "easel://host",
        "easel://host:0",
        "easel://:7700",
        "easel://h:1/x",
    ] {
        assert!(StoreConfig::parse(bad).is_err(), "{bad}");
    }
    assert_eq!(
        StoreConfig::parse("easel://store.internal:7700/").unwrap(),
        StoreConfig::Remote {
            addr: "store.internal:7700".into()
        }
    );
}
