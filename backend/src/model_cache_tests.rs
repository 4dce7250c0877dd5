//! Tests of the model cache: verified fetches, reuse, tampering, LRU bounds.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]
use super::*;
use infra::objects::LocalObjects;

fn sha(b: &[u8]) -> String {
    hex::encode(Sha256::digest(b))
}

async fn setup(max: u64) -> (tempfile::TempDir, DynObjects, Arc<ModelCache>) {
    let dir = tempfile::tempdir().unwrap();
    let objects: DynObjects = Arc::new(LocalObjects::new(dir.path().join("objects")).unwrap());
    let cache = ModelCache::new(dir.path().join("model-cache"), max).unwrap();
    (dir, objects, cache)
}

async fn stored(objects: &DynObjects, key: &str, bytes: &[u8]) -> ModelFileRef {
    objects
        .put(
            &ObjectKey::parse(key).unwrap(),
            bytes.to_vec(),
            "application/octet-stream",
        )
        .await
        .unwrap();
    ModelFileRef {
        key: key.into(),
        sha256: sha(bytes),
        size: bytes.len() as u64,
        name: format!("{key}.safetensors").replace('/', "_"),
        local_path: None,
    }
}

#[tokio::test]
async fn fetches_verifies_and_reuses() {
    let (_d, objects, cache) = setup(1 << 20).await;
    let bytes: Vec<u8> = (0..50_000u32).map(|i| (i % 251) as u8).collect();
    let f = stored(&objects, "m/a/one", &bytes).await;
    let (path, _pin) = cache.fetch(&objects, &f).await.unwrap();
    assert_eq!(path, cache.dir().join(format!("{}.safetensors", f.sha256)));
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
    // Reused: the object may go, the cached file still serves.
    objects
        .delete(&ObjectKey::parse("m/a/one").unwrap())
        .await
        .unwrap();
    let (again, _p) = cache.fetch(&objects, &f).await.unwrap();
    assert_eq!(again, path);
    // No temporary files are left.
    let names: Vec<String> = std::fs::read_dir(cache.dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

#[tokio::test]
async fn a_tampered_object_is_refused_and_not_cached() {
    let (_d, objects, cache) = setup(1 << 20).await;
    let good = b"the real weights".to_vec();
    let f = stored(&objects, "m/a/two", &good).await;
    // Same size, other bytes.
    let mut bad = good.clone();
    bad[0] ^= 1;
    stored(&objects, "m/a/two", &bad).await;
    let e = cache.fetch(&objects, &f).await.unwrap_err();
    assert!(!e.retryable());
    assert!(e.to_string().contains("SHA-256 mismatch"), "{e}");
    // Another size.
    stored(&objects, "m/a/two", b"short").await;
    let e = cache.fetch(&objects, &f).await.unwrap_err();
    assert!(e.to_string().contains("was changed"), "{e}");
    // Gone.
    objects
        .delete(&ObjectKey::parse("m/a/two").unwrap())
        .await
        .unwrap();
    let e = cache.fetch(&objects, &f).await.unwrap_err();
    assert!(e.to_string().contains("gone"), "{e}");
    assert_eq!(std::fs::read_dir(cache.dir()).unwrap().count(), 0);
    // A hash that is not one.
    let mut odd = f.clone();
    odd.sha256 = "../../etc/passwd".into();
    assert!(cache.fetch(&objects, &odd).await.is_err());
}

#[tokio::test]
async fn the_least_recently_used_unpinned_files_go_first() {
    let (_d, objects, cache) = setup(2500).await;
    let a = stored(&objects, "m/l/a", &[1u8; 1000]).await;
    let b = stored(&objects, "m/l/b", &[2u8; 1000]).await;
    let c = stored(&objects, "m/l/c", &[3u8; 1000]).await;
    let (pa, pin_a) = cache.fetch(&objects, &a).await.unwrap();
    let (pb, pin_b) = cache.fetch(&objects, &b).await.unwrap();
    drop(pin_b);
    // `a` is older but pinned (in use): `b` goes.
    let old = SystemTime::now() - std::time::Duration::from_secs(60);
    std::fs::File::options()
        .append(true)
        .open(&pa)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let (pc, _pin_c) = cache.fetch(&objects, &c).await.unwrap();
    assert!(pa.exists() && pc.exists());
    assert!(
        !pb.exists(),
        "the unpinned least recently used file is evicted"
    );
    drop(pin_a);
    // Now `a` is free and the oldest: fetching `b` again evicts it.
    let (pb2, _p) = cache.fetch(&objects, &b).await.unwrap();
    assert!(pb2.exists() && !pa.exists() && pc.exists());
}

#[test]
fn the_bound_setting_is_checked() {
    assert_eq!(parse_cache_bytes(None).unwrap(), DEFAULT_CACHE_BYTES);
    assert_eq!(parse_cache_bytes(Some(" 4096 ")).unwrap(), 4096);
    for bad in ["", "0", "-1", "lots", "1.5"] {
        let e = parse_cache_bytes(Some(bad)).unwrap_err().to_string();
        assert!(e.contains(CACHE_BYTES_ENV), "{bad}: {e}");
    }
}
