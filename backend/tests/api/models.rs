//! Shared models (issue 19): model files through the chunked upload
//! (category 60), checked at confirmation (pickles, damaged headers and
//! non-safetensors refused, nothing kept), `resource/createModel`'s
//! contract, declarations checked against the file, another account's
//! draft answering NotFound everywhere, publish into the model feed with
//! its filters, delist and downloads. Imports from a URL are
//! `models_import.rs`.

use std::collections::BTreeMap;

use modelfile::Dtype;
use protocol::client::RestClient;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::helpers::spawn_app;

/// A tiny SD 1.x LoRA (kohya layout, rank 2) with kohya metadata.
pub(crate) fn lora() -> Vec<u8> {
    let t: &[(&str, Dtype, &[usize])] = &[
        (
            "lora_unet_down_blocks_0_attentions_0_transformer_blocks_0_attn2_to_k.lora_down.weight",
            Dtype::F16,
            &[2, 768],
        ),
        (
            "lora_unet_down_blocks_0_attentions_0_transformer_blocks_0_attn2_to_k.lora_up.weight",
            Dtype::F16,
            &[320, 2],
        ),
        (
            "lora_unet_down_blocks_0_attentions_0_transformer_blocks_0_attn2_to_k.alpha",
            Dtype::F16,
            &[],
        ),
        (
            "lora_te_text_model_encoder_layers_0_mlp_fc1.lora_down.weight",
            Dtype::F16,
            &[2, 768],
        ),
        (
            "lora_te_text_model_encoder_layers_0_mlp_fc1.lora_up.weight",
            Dtype::F16,
            &[3072, 2],
        ),
    ];
    let data: Vec<Vec<u8>> = t
        .iter()
        .enumerate()
        .map(|(i, (_, d, s))| {
            let n = s.iter().product::<usize>() * d.bitsize() / 8;
            (0..n).map(|j| ((i * 31 + j * 7) % 251) as u8).collect()
        })
        .collect();
    let views: Vec<(&str, Dtype, &[usize], &[u8])> = t
        .iter()
        .zip(&data)
        .map(|((n, d, s), b)| (*n, *d, *s, b.as_slice()))
        .collect();
    let meta: BTreeMap<String, String> = [
        ("ss_network_dim", "2"),
        ("ss_network_alpha", "1.0"),
        ("ss_base_model_version", "sd_v1"),
        ("ss_output_name", "mychar_v1"),
        (
            "ss_tag_frequency",
            r#"{"10_mychar": {"mychar": 20, "1girl": 18, "smile": 3}}"#,
        ),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    modelfile::write_safetensors(&views, &meta).unwrap()
}

pub(crate) fn sha(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

pub(crate) fn key(e: &protocol::client::ClientError) -> String {
    e.status().and_then(|s| s.key.clone()).unwrap_or_default()
}

/// pre-sign/get (category 60), PUT of each part, confirm: the confirm answer or its error.
pub(crate) async fn upload(
    c: &RestClient,
    bytes: &[u8],
    name: &str,
) -> Result<Value, protocol::client::ClientError> {
    let pre: Value = c
        .post(
            "/api/v1/resource/pre-sign/get",
            &json!({"file_size": bytes.len(), "file_name": name,
                    "content_type": "application/octet-stream", "category": 60}),
        )
        .await?;
    let chunk = pre["chunk_size"].as_u64().unwrap() as usize;
    let http = reqwest::Client::new();
    for (url, part) in pre["pre_signs"]
        .as_array()
        .unwrap()
        .iter()
        .zip(bytes.chunks(chunk))
    {
        let r = http
            .put(url.as_str().unwrap())
            .body(part.to_vec())
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success());
    }
    c.post(
        "/api/v1/resource/pre-sign/confirm",
        &json!({"file_id": pre["file_id"]}),
    )
    .await
}

/// Every file under the data folder whose path names `needle` (empty folders do not count).
fn stored_paths(dir: &std::path::Path, needle: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().contains(needle) {
                out.push(p.to_string_lossy().into_owned());
            }
        }
    }
    out
}

async fn feed_ids(c: &RestClient, path: &str, body: Value) -> Vec<String> {
    let page: Value = c.post(path, &body).await.unwrap();
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            assert_eq!(i["obj_type"], 2);
            i["id"].as_str().unwrap().to_owned()
        })
        .collect()
}

#[tokio::test]
async fn a_lora_is_uploaded_made_a_model_published_found_downloaded_and_delisted() {
    let app = spawn_app().await;
    let (_, alice) = app.user("Alice").await;
    let (bob_data, bob) = app.user("Bob").await;
    let bytes = lora();
    let done = upload(&alice, &bytes, "mychar v1.safetensors")
        .await
        .unwrap();
    assert_eq!(done["status"], 0);
    assert_eq!(done["sha256"], sha(&bytes));
    assert_eq!(done["autov2"], sha(&bytes)[..10].to_uppercase());
    assert_eq!(done["detected_type"], "lora");
    assert_eq!(done["detected_family"], "sd");
    assert_eq!(done["rank"], 2);
    assert!(done["url"].is_null(), "a model file has no public URL");
    let file_id = done["file_id"].as_str().unwrap().to_owned();
    // The private key is never served by /files.
    let (status, _, _) = alice
        .get_bytes(&format!("/files/m/{file_id}/mychar_v1.safetensors"))
        .await
        .unwrap();
    assert_eq!(status, 404);

    // Someone else's file answers NotFound.
    let e = bob
        .post::<_, Value>(
            "/api/v1/resource/createModel",
            &json!({"file_id": file_id, "name": "Stolen", "model_type": "lora", "base_model": "sd"}),
        )
        .await
        .unwrap_err();
    assert_eq!(key(&e), "NotFound");

    // The contract: exactly {model_id, model_ver_no, sha256, autov2}.
    let made: Value = alice
        .post(
            "/api/v1/resource/createModel",
            &json!({"file_id": file_id, "name": "My Char", "model_type": "LORA", "base_model": "SD 1.5",
                    "sha256": sha(&bytes)}),
        )
        .await
        .unwrap();
    let mut keys: Vec<&str> = made
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(keys, ["autov2", "model_id", "model_ver_no", "sha256"]);
    assert_eq!(made["sha256"], sha(&bytes));
    let model_id = made["model_id"].as_str().unwrap().to_owned();
    let ver = made["model_ver_no"].as_str().unwrap().to_owned();
    // A file makes one version.
    let e = alice
        .post::<_, Value>(
            "/api/v1/resource/createModel",
            &json!({"file_id": file_id, "name": "Again", "model_type": "lora"}),
        )
        .await
        .unwrap_err();
    assert_eq!(key(&e), "modelFileInvalid");

    let detail: Value = alice
        .post("/api/v1/model/detail", &json!({"model_id": model_id}))
        .await
        .unwrap();
    assert_eq!(detail["publish_status"], 0);
    assert_eq!(detail["model_type"], "lora");
    assert_eq!(detail["base_model"], "sd");
    assert_eq!(
        detail["versions"][0]["trained_words"],
        json!(["mychar", "1girl"])
    );
    assert_eq!(detail["versions"][0]["file"]["size"], bytes.len());

    // Bob sees none of Alice's draft.
    let calls: Vec<(&str, Value)> = vec![
        ("/api/v1/model/detail", json!({"model_id": model_id})),
        (
            "/api/v1/model/detail-with-ver",
            json!({"model_id": model_id}),
        ),
        ("/api/v1/model/versionDetail", json!({"model_ver_no": ver})),
        (
            "/api/v1/model/edit",
            json!({"model_id": model_id, "name": "Mine"}),
        ),
        (
            "/api/v1/model/ver/edit",
            json!({"model_ver_no": ver, "version_name": "x"}),
        ),
        ("/api/v1/model/ver-select", json!({"model_id": model_id})),
        (
            "/api/v1/resource/commitModel",
            json!({"model_id": model_id, "publish": true}),
        ),
        ("/api/v1/resource/publish", json!({"model_id": model_id})),
        ("/api/v1/model/publish", json!({"model_id": model_id})),
        ("/api/v1/model/delist", json!({"model_id": model_id})),
        ("/api/v1/resource/delModel", json!({"model_id": model_id})),
        ("/api/v1/model/save", json!({"model_id": model_id})),
        ("/api/v1/model/save/ver-refer", json!({"model_ver_no": ver})),
        (
            "/api/v1/model/post-join",
            json!({"model_ver_no": ver, "images": []}),
        ),
    ];
    for (path, body) in &calls {
        let e = bob.post::<_, Value>(path, body).await.unwrap_err();
        assert_eq!(key(&e), "NotFound", "{path}");
    }
    let (status, _, _) = bob
        .get_bytes(&format!("/api/v1/model/download?model_ver_no={ver}"))
        .await
        .unwrap();
    assert_eq!(status, 404);
    assert!(!feed_ids(&bob, "/api/v1/square/v3/model/list", json!({}))
        .await
        .contains(&model_id));

    // Finish the draft and publish it.
    let committed: Value = alice
        .post(
            "/api/v1/resource/commitModel",
            &json!({"model_id": model_id, "description": "A character.", "tags": ["anime"],
                    "model_ver_no": ver, "trained_words": ["mychar"], "images": ["https://example.com/a.png"],
                    "publish": true}),
        )
        .await
        .unwrap();
    assert_eq!(committed["publish_status"], 1);
    assert_eq!(committed["versions"][0]["publish_status"], 1);
    assert_eq!(committed["cover"], "https://example.com/a.png");

    let feed = "/api/v1/square/v3/model/list";
    assert!(feed_ids(&bob, feed, json!({})).await.contains(&model_id));
    assert!(feed_ids(
        &bob,
        feed,
        json!({"model_types": ["lora"], "base_models": ["SD 1.5"]})
    )
    .await
    .contains(&model_id));
    assert!(
        !feed_ids(&bob, feed, json!({"model_types": ["checkpoint"]}))
            .await
            .contains(&model_id)
    );
    assert!(!feed_ids(&bob, feed, json!({"base_models": ["sdxl"]}))
        .await
        .contains(&model_id));
    assert!(
        feed_ids(&app.client, "/api/v1/square/model/list", json!({}))
            .await
            .contains(&model_id)
    );
    assert!(
        !feed_ids(&bob, "/api/v1/square/v3/lora/template", json!({}))
            .await
            .contains(&model_id)
    );
    let page: Value = bob.post(feed, &json!({})).await.unwrap();
    let card = page["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == model_id.as_str())
        .unwrap()
        .clone();
    assert_eq!(card["title"], "My Char");
    assert!(card["channel"].is_null());
    assert_eq!(card["cover"]["url"], "https://example.com/a.png");

    // The picker: a LoRA of family sd fits an sd checkpoint, not an sdxl one.
    let pick: Value = bob
        .post(
            "/api/v1/model/config-select",
            &json!({"model_type": "lora", "base_model": "sd"}),
        )
        .await
        .unwrap();
    let entry = pick["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["model_id"] == model_id.as_str())
        .unwrap()
        .clone();
    assert_eq!(entry["model_ver_no"], ver.as_str());
    assert_eq!(entry["status"], 1);
    assert_eq!(entry["publish_status"], 1);
    assert_eq!(entry["weight"], 1.0);
    let pick: Value = bob
        .post(
            "/api/v1/model/config-select",
            &json!({"model_type": "lora", "base_model": "sdxl"}),
        )
        .await
        .unwrap();
    assert!(!pick["items"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["model_id"] == model_id.as_str()));

    // Downloads: refused until the creator allows them; the owner always may.
    let dl = format!("/api/v1/model/download?model_ver_no={ver}");
    assert_eq!(bob.get_bytes(&dl).await.unwrap().0, 404);
    let (status, _, body) = alice.get_bytes(&dl).await.unwrap();
    assert_eq!((status, body == bytes), (200, true));
    let _: Value = alice
        .post(
            "/api/v1/model/edit",
            &json!({"model_id": model_id, "allow_download": true}),
        )
        .await
        .unwrap();
    let (status, _, body) = bob.get_bytes(&dl).await.unwrap();
    assert_eq!((status, body == bytes), (200, true));
    let ranged = reqwest::Client::new()
        .get(format!("{}{dl}", app.base))
        .header("Range", "bytes=0-7")
        .send()
        .await
        .unwrap();
    assert_eq!(ranged.status(), 206);
    assert_eq!(ranged.bytes().await.unwrap().as_ref(), &bytes[..8]);
    // Downloads count for the rankings once per downloader and day (Bob,
    // and the visitor's address); the owner's own do not count.
    let downloads = |n: i64| {
        let alice = alice.clone();
        let model_id = model_id.clone();
        async move {
            let mut seen = Value::Null;
            for _ in 0..100 {
                let d: Value = alice
                    .post("/api/v1/model/detail", &json!({"model_id": model_id}))
                    .await
                    .unwrap();
                seen = d["stats"]["downloads"].clone();
                if seen == n {
                    return;
                }
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
            panic!("downloads {seen}, not {n}");
        }
    };
    downloads(2).await;
    assert_eq!(bob.get_bytes(&dl).await.unwrap().0, 200);
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    downloads(2).await;

    // Bob saves it; it shows as collected on his card.
    let saved: Value = bob
        .post("/api/v1/model/save", &json!({"model_id": model_id}))
        .await
        .unwrap();
    assert_eq!(saved["saved"], true);
    let page: Value = bob.post(feed, &json!({})).await.unwrap();
    assert!(page["items"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["id"] == model_id.as_str() && c["collected"] == true));
    let theirs: Value = bob
        .post(
            "/api/v1/model/list/other",
            &json!({"account_id": committed["owner"]["id"]}),
        )
        .await
        .unwrap();
    assert_eq!(theirs["items"][0]["model_id"], model_id.as_str());
    let mine: Value = alice
        .post("/api/v1/square/model/my", &json!({}))
        .await
        .unwrap();
    assert_eq!(mine["items"][0]["id"], model_id.as_str());
    let none: Value = alice
        .post(
            "/api/v1/square/model/other",
            &json!({"account_id": bob_data.account.id}),
        )
        .await
        .unwrap();
    assert_eq!(none["items"], json!([]));

    // Delisted: gone from the feed and from everyone but its owner.
    let delisted: Value = alice
        .post("/api/v1/model/delist", &json!({"model_id": model_id}))
        .await
        .unwrap();
    assert_eq!(delisted["publish_status"], 2);
    assert!(!feed_ids(&bob, feed, json!({})).await.contains(&model_id));
    let e = bob
        .post::<_, Value>("/api/v1/model/detail", &json!({"model_id": model_id}))
        .await
        .unwrap_err();
    assert_eq!(key(&e), "NotFound");
    assert_eq!(bob.get_bytes(&dl).await.unwrap().0, 404);

    // Deleted: the row and the file.
    let _: Value = alice
        .post("/api/v1/resource/delModel", &json!({"model_id": model_id}))
        .await
        .unwrap();
    let e = alice
        .post::<_, Value>("/api/v1/model/detail", &json!({"model_id": model_id}))
        .await
        .unwrap_err();
    assert_eq!(key(&e), "NotFound");
    assert!(stored_paths(app.data.path(), &file_id).is_empty());
}

#[tokio::test]
async fn refused_files_and_false_declarations_change_nothing() {
    let app = spawn_app().await;
    let (_, alice) = app.user("Alice").await;
    // A raw pickle (protocol 2), a header that lies about its tensors, and text.
    let pickle = b"\x80\x02}q\x00.".repeat(20);
    let lying = {
        let json = r#"{"w":{"dtype":"F32","shape":[4,4],"data_offsets":[0,64]}}"#;
        let mut b = (json.len() as u64).to_le_bytes().to_vec();
        b.extend_from_slice(json.as_bytes());
        b.extend(std::iter::repeat_n(0u8, 16));
        b
    };
    for (bytes, name, want) in [
        (pickle, "model.ckpt", "modelFilePickle"),
        (lying, "broken.safetensors", "modelHeaderInvalid"),
        (
            b"just some text, not a model at all".to_vec(),
            "notes.safetensors",
            "modelFileInvalid",
        ),
    ] {
        let pre: Value = alice
            .post(
                "/api/v1/resource/pre-sign/get",
                &json!({"file_size": bytes.len(), "file_name": name,
                        "content_type": "application/octet-stream", "category": 60}),
            )
            .await
            .unwrap();
        let file_id = pre["file_id"].as_str().unwrap().to_owned();
        let r = reqwest::Client::new()
            .put(pre["pre_signs"][0].as_str().unwrap())
            .body(bytes.clone())
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success());
        let e = alice
            .post::<_, Value>(
                "/api/v1/resource/pre-sign/confirm",
                &json!({"file_id": file_id}),
            )
            .await
            .unwrap_err();
        assert_eq!(key(&e), want, "{name}");
        assert_eq!(
            stored_paths(app.data.path(), &file_id),
            Vec::<String>::new(),
            "{name}"
        );
        let e = alice
            .post::<_, Value>(
                "/api/v1/resource/createModel",
                &json!({"file_id": file_id, "name": "x", "model_type": "lora"}),
            )
            .await
            .unwrap_err();
        assert!(
            ["modelFileInvalid", "NotFound"].contains(&key(&e).as_str()),
            "{name}"
        );
    }

    // A real LoRA declared as something else, or with another hash.
    let bytes = lora();
    let done = upload(&alice, &bytes, "mychar.safetensors").await.unwrap();
    let file_id = done["file_id"].as_str().unwrap();
    for (body, want) in [
        (
            json!({"model_type": "checkpoint", "base_model": "sd"}),
            "modelTypeMismatch",
        ),
        (
            json!({"model_type": "lora", "base_model": "sdxl"}),
            "modelTypeMismatch",
        ),
        (
            json!({"model_type": "lora", "sha256": "0".repeat(64)}),
            "modelHashMismatch",
        ),
        (json!({"model_type": "vae"}), "modelFieldInvalid"),
        (
            json!({"model_type": "lora", "name": ""}),
            "modelFieldInvalid",
        ),
    ] {
        let mut b = json!({"file_id": file_id, "name": "My LoRA"});
        for (k, v) in body.as_object().unwrap() {
            b[k] = v.clone();
        }
        let e = alice
            .post::<_, Value>("/api/v1/resource/createModel", &b)
            .await
            .unwrap_err();
        assert_eq!(key(&e), want, "{body}");
    }
    let list: Value = alice.post("/api/v1/model/list", &json!({})).await.unwrap();
    assert_eq!(list["items"], json!([]), "nothing was made");
    // The file is still there for a correct declaration (family read from the file).
    let made: Value = alice
        .post(
            "/api/v1/resource/createModel",
            &json!({"file_id": file_id, "name": "My LoRA", "model_type": 2}),
        )
        .await
        .unwrap();
    let detail: Value = alice
        .post(
            "/api/v1/model/detail",
            &json!({"model_id": made["model_id"]}),
        )
        .await
        .unwrap();
    assert_eq!(detail["base_model"], "sd");
}
