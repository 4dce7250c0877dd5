//! Prompt tooling: translation thresholds (spec 1 §5), language fallback
//! (spec 3 §9), the per-session cache (spec 3 §4), the LibreTranslate
//! adapter against a fake server and its fallback to the dictionary, input
//! limits, the dictionary's definitions with paging, UI labels, and random
//! prompts that never fail.

use std::sync::{Arc, Mutex};

use actix_web::{web, App, HttpResponse, HttpServer};
use protocol::client::{ClientError, RestClient};
use protocol::ErrorCode;
use serde_json::{json, Value};

use crate::helpers::{spawn_app, spawn_app_with};

const LOCALS: &str = "/api/v1/translate/locals";

fn assert_code<T: std::fmt::Debug>(r: Result<T, ClientError>, code: ErrorCode) {
    let e = r.expect_err("expected an error");
    let st = e
        .status()
        .unwrap_or_else(|| panic!("not an API error: {e}"));
    assert_eq!(st.code, code.code(), "{st:?}");
    assert_eq!(e.http_status(), Some(code.http_status()));
}

async fn locals(c: &RestClient, texts: Value, language: &str) -> Vec<Value> {
    let data: Value = c
        .post(LOCALS, &json!({"texts": texts, "language": language}))
        .await
        .unwrap();
    data["items"].as_array().unwrap().clone()
}

#[tokio::test]
async fn mostly_chinese_goes_to_english_english_gets_a_translation_mixed_stays() {
    let app = spawn_app().await;
    let c = app.client.with_device("device-thresholds-1");
    let items = locals(
        &c,
        json!([
            "一个女孩，红色连衣裙",
            "red dress",
            "red dress 红",
            "--ar 3:4",
            "12345"
        ]),
        "zhCN",
    )
    .await;
    assert_eq!(items.len(), 5);
    // Over 50 % Chinese: translated to English.
    assert_eq!(items[0]["plan"], "to_english");
    assert_eq!(items[0]["source"], "zhCN");
    assert_eq!(items[0]["target"], "en");
    assert_eq!(items[0]["translation"], "1girl, red dress");
    assert_eq!(items[0]["unknown"], json!([]));
    assert_eq!(items[0]["chinese_share"], 1.0);
    // Under 5 %: given a translation in the user's language.
    assert_eq!(items[1]["plan"], "to_local");
    assert_eq!(items[1]["target"], "zhCN");
    assert_eq!(items[1]["translation"], "红色连衣裙");
    // In between (1 of 9 letters): nothing.
    assert_eq!(items[2]["plan"], "keep");
    assert_eq!(items[2]["translation"], Value::Null);
    // Commands and text without letters: nothing.
    assert_eq!(items[3]["plan"], "keep");
    assert_eq!(items[4]["plan"], "keep");
    assert_eq!(items[4]["chinese_share"], Value::Null);

    // Only normal words are given a translation; other types only go to English.
    let data: Value = c
        .post(
            LOCALS,
            &json!({"texts": [{"text": "red dress", "type": "style"}, {"text": "猫", "type": "eg"}, "cat"], "language": "de"}),
        )
        .await
        .unwrap();
    let items = data["items"].as_array().unwrap();
    assert_eq!(items[0]["plan"], "keep");
    assert_eq!(items[1]["translation"], "cat");
    assert_eq!(items[2]["translation"], "Katze");

    // One text.
    let one: Value = c
        .post(
            "/api/v1/translate/local",
            &json!({"text": "猫和狗", "language": "en"}),
        )
        .await
        .unwrap();
    assert_eq!(one["translation"], "cat and dog");
    assert_eq!(one["provider"], "dictionary");
    // Unknown parts stay and are reported.
    let one: Value = c
        .post(
            "/api/v1/translate/local",
            &json!({"text": "猫，阿巴阿巴", "language": "en"}),
        )
        .await
        .unwrap();
    assert_eq!(one["translation"], "cat, 阿巴阿巴");
    assert_eq!(one["unknown"], json!(["阿巴阿巴"]));
}

#[tokio::test]
async fn languages_fall_back_to_english_and_any_chinese_is_zh_cn() {
    let app = spawn_app().await;
    let c = app.client.with_device("device-languages-1");
    let items = locals(&c, json!(["cat"]), "xx").await;
    assert_eq!(items[0]["target"], "en");
    assert_eq!(
        items[0]["plan"], "keep",
        "an English word needs no English translation"
    );
    let items = locals(&c, json!(["cat"]), "zh-TW").await;
    assert_eq!(items[0]["target"], "zhCN");
    assert_eq!(items[0]["translation"], "猫");
    let items = locals(&c, json!(["cat"]), "pt_BR").await;
    assert_eq!(items[0]["translation"], "Gato");
    for (lang, want) in [
        ("ar", "قطة"),
        ("ko", "고양이"),
        ("fr", "Chat"),
        ("ru", "Кошка"),
        ("es", "Gato"),
        ("th", "แมว"),
        ("ja", "猫"),
    ] {
        let items = locals(&c, json!(["cat"]), lang).await;
        assert_eq!(items[0]["translation"], want, "{lang}");
    }
    let d: Value = c
        .post(
            "/api/v1/prompt/definitions",
            &json!({"language": "zh-Hant", "category": "animal", "limit": 1000}),
        )
        .await
        .unwrap();
    assert_eq!(d["language"], "zhCN");
    let d: Value = c
        .post("/api/v1/prompt/definitions", &json!({"language": "xx-YY"}))
        .await
        .unwrap();
    assert_eq!(d["language"], "en");
}

#[tokio::test]
async fn a_text_is_translated_once_per_session() {
    let app = spawn_app().await;
    let (_, alice) = app.user("Alice").await;
    let (_, bob) = app.user("Bob").await;
    let first = locals(&alice, json!(["猫", "狗"]), "en").await;
    assert_eq!(first[0]["cached"], false);
    assert_eq!(first[1]["cached"], false);
    let second = locals(&alice, json!(["猫", "狗", "鸟"]), "en").await;
    assert_eq!(second[0]["cached"], true);
    assert_eq!(second[0]["translation"], "cat");
    assert_eq!(second[1]["cached"], true);
    assert_eq!(second[2]["cached"], false);
    // Another session translates for itself.
    let other = locals(&bob, json!(["猫"]), "en").await;
    assert_eq!(other[0]["cached"], false);
    // Another target language is another entry.
    let de = locals(&alice, json!(["cat"]), "de").await;
    assert_eq!(de[0]["cached"], false);
    let de = locals(&alice, json!(["cat"]), "de").await;
    assert_eq!(de[0]["cached"], true);
    // Visitors have sessions too (their device).
    let v = app.client.with_device("device-cache-1");
    assert_eq!(locals(&v, json!(["猫"]), "en").await[0]["cached"], false);
    assert_eq!(locals(&v, json!(["猫"]), "en").await[0]["cached"], true);
    // A bad token is refused, not treated as a visitor.
    let bad = app.client.with_token("not-a-token");
    assert_code(
        bad.post::<_, Value>(LOCALS, &json!({"texts": ["猫"], "language": "en"}))
            .await,
        ErrorCode::NeedLogin,
    );
}

/// What the fake LibreTranslate saw.
#[derive(Default)]
struct Seen {
    bodies: Vec<Value>,
}

/// A LibreTranslate stand-in: answers `{translatedText}` built from the
/// request, a 500 with `{error}` for texts containing `故障`, and checks the
/// API key.
fn fake_libretranslate() -> (String, Arc<Mutex<Seen>>) {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let s = seen.clone();
    std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            HttpServer::new(move || {
                let s = s.clone();
                App::new().route(
                    "/translate",
                    web::post().to(move |body: web::Json<Value>| {
                        let s = s.clone();
                        async move {
                            s.lock().unwrap().bodies.push(body.0.clone());
                            if body["api_key"] != "secret-key" {
                                return HttpResponse::Forbidden()
                                    .json(json!({"error": "Invalid API key"}));
                            }
                            let q = body["q"].as_str().unwrap_or_default();
                            if q.contains("故障") {
                                return HttpResponse::InternalServerError()
                                    .json(json!({"error": "translation engine crashed"}));
                            }
                            HttpResponse::Ok().json(json!({
                                "translatedText": format!("LT[{}>{}] {q}", body["source"].as_str().unwrap(), body["target"].as_str().unwrap())
                            }))
                        }
                    }),
                )
            })
            .workers(1)
            .listen(listener)
            .unwrap()
            .run()
            .await
            .unwrap();
        });
    });
    (url, seen)
}

#[tokio::test]
async fn libretranslate_is_used_when_configured_and_the_dictionary_covers_its_failures() {
    let (url, seen) = fake_libretranslate();
    let app = spawn_app_with(&[
        ("EASEL_TRANSLATE_URL", url.as_str()),
        ("EASEL_TRANSLATE_API_KEY", "secret-key"),
    ])
    .await;
    let c = app.client.with_device("device-libre-1");
    let data: Value = c
        .post(
            LOCALS,
            &json!({"texts": ["猫", "red dress", "猫故障"], "language": "zh-TW"}),
        )
        .await
        .unwrap();
    assert_eq!(data["provider"], "libretranslate");
    let items = data["items"].as_array().unwrap();
    assert_eq!(items[0]["translation"], "LT[zh>en] 猫");
    assert_eq!(items[0]["provider"], "libretranslate");
    assert_eq!(items[1]["translation"], "LT[en>zh] red dress");
    // The service failed for this one: the dictionary answered.
    assert_eq!(items[2]["provider"], "dictionary");
    assert_eq!(items[2]["translation"], "cat 故障");
    assert_eq!(items[2]["unknown"], json!(["故障"]));
    {
        let seen = seen.lock().unwrap();
        assert_eq!(seen.bodies.len(), 3);
        let first = seen.bodies.iter().find(|b| b["q"] == "猫").unwrap();
        assert_eq!(first["source"], "zh");
        assert_eq!(first["target"], "en");
        assert_eq!(first["format"], "text");
        assert_eq!(first["api_key"], "secret-key");
    }
    // Cached: the service is not asked again in this session.
    let items = locals(&c, json!(["猫"]), "en").await;
    assert_eq!(items[0]["cached"], true);
    assert_eq!(seen.lock().unwrap().bodies.len(), 3);

    // A wrong key: refused by the service, answered by the dictionary.
    let app2 = spawn_app_with(&[
        ("EASEL_TRANSLATE_URL", url.as_str()),
        ("EASEL_TRANSLATE_API_KEY", "wrong"),
    ])
    .await;
    let items = locals(
        &app2.client.with_device("device-libre-2"),
        json!(["猫"]),
        "en",
    )
    .await;
    assert_eq!(items[0]["provider"], "dictionary");
    assert_eq!(items[0]["translation"], "cat");
}

#[tokio::test]
async fn a_service_that_does_not_answer_falls_back_to_the_dictionary() {
    // A port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let app = spawn_app_with(&[
        ("EASEL_TRANSLATE_URL", url.as_str()),
        ("EASEL_TRANSLATE_TIMEOUT_MS", "500"),
    ])
    .await;
    let items = locals(
        &app.client.with_device("device-down-1"),
        json!(["猫"]),
        "en",
    )
    .await;
    assert_eq!(items[0]["provider"], "dictionary");
    assert_eq!(items[0]["translation"], "cat");
}

#[tokio::test]
async fn oversize_and_malformed_input_answers_invalid_params() {
    let app = spawn_app().await;
    let c = app.client.with_device("device-limits-1");
    let many: Vec<String> = (0..101).map(|i| format!("word {i}")).collect();
    assert_code(
        c.post::<_, Value>(LOCALS, &json!({"texts": many, "language": "en"}))
            .await,
        ErrorCode::InvalidParams,
    );
    let hundred: Vec<String> = (0..100).map(|i| format!("word {i}")).collect();
    let ok: Value = c
        .post(LOCALS, &json!({"texts": hundred, "language": "de"}))
        .await
        .unwrap();
    assert_eq!(ok["items"].as_array().unwrap().len(), 100);
    let long = "a".repeat(2001);
    assert_code(
        c.post::<_, Value>(LOCALS, &json!({"texts": [long], "language": "en"}))
            .await,
        ErrorCode::InvalidParams,
    );
    assert_code(
        c.post::<_, Value>(
            "/api/v1/translate/local",
            &json!({"text": "猫".repeat(2001)}),
        )
        .await,
        ErrorCode::InvalidParams,
    );
    let fine: Value = c
        .post(
            "/api/v1/translate/local",
            &json!({"text": "猫".repeat(2000)}),
        )
        .await
        .unwrap();
    assert_eq!(fine["plan"], "to_english");
    assert_code(
        c.post::<_, Value>(
            "/api/v1/translate/18n",
            &json!({"list": {"content": many}, "language": "ja"}),
        )
        .await,
        ErrorCode::InvalidParams,
    );
    assert_code(
        c.post::<_, Value>(LOCALS, &json!({"texts": "not a list"}))
            .await,
        ErrorCode::InvalidParams,
    );
    assert_code(
        c.post::<_, Value>(LOCALS, &json!({"texts": [{"text": "x", "type": "bogus"}]}))
            .await,
        ErrorCode::InvalidParams,
    );
    assert_code(
        c.post::<_, Value>("/api/v1/prompt/definitions", &json!({"limit": 0}))
            .await,
        ErrorCode::InvalidParams,
    );
    assert_code(
        c.post::<_, Value>("/api/v1/prompt/definitions", &json!({"category": "nope"}))
            .await,
        ErrorCode::InvalidParams,
    );
    assert_code(
        c.post::<_, Value>("/api/v1/prompt/definitions", &json!({"cursor": "abc"}))
            .await,
        ErrorCode::InvalidParams,
    );
}

#[tokio::test]
async fn visitors_are_rate_limited_per_address_accounts_per_account() {
    let app = spawn_app_with(&[("EASEL_TRANSLATE_VISITOR_PER_MINUTE", "3")]).await;
    let c = app.client.with_device("device-rate-1");
    for _ in 0..3 {
        locals(&c, json!(["猫"]), "en").await;
    }
    // Another device from the same address shares the limit.
    let other = app.client.with_device("device-rate-2");
    assert_code(
        other
            .post::<_, Value>(LOCALS, &json!({"texts": ["猫"]}))
            .await,
        ErrorCode::TooManyRequests,
    );
    let (_, user) = app.user("Rater").await;
    assert_eq!(
        locals(&user, json!(["猫"]), "en").await[0]["translation"],
        "cat"
    );
}

#[tokio::test]
async fn random_prompts_never_fail_and_vary() {
    let app = spawn_app().await;
    let c = &app.client;
    let mut prompts = std::collections::HashSet::new();
    for _ in 0..8 {
        let d: Value = c
            .post(
                "/api/v1/tool/prompt/rand",
                &json!({"art_model_no": "no-such-model"}),
            )
            .await
            .unwrap();
        let local = d["local"].as_str().unwrap().to_owned();
        assert!(!local.is_empty());
        prompts.insert(local);
    }
    assert!(prompts.len() >= 6, "random prompts repeat: {prompts:?}");

    // Empty, non-JSON and odd bodies still answer success.
    let http = reqwest::Client::new();
    for body in [
        "",
        "not json",
        "[]",
        "{\"art_model_no\": null}",
        "{\"art_model_no\": 42}",
    ] {
        let res = http
            .post(format!("{}/api/v1/tool/prompt/rand", app.base))
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200, "{body:?}");
        let env: Value = res.json().await.unwrap();
        assert_eq!(env["status"]["code"], 10000, "{body:?}");
        assert!(env["data"]["local"].is_string(), "{body:?}");
    }

    // An anime model gets anime tags; the terms come from the dictionary.
    let defs: Value = c
        .post(
            "/api/v1/prompt/definitions",
            &json!({"category": "anime", "limit": 1000}),
        )
        .await
        .unwrap();
    let anime: std::collections::HashSet<String> = defs["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["term"].as_str().unwrap().to_owned())
        .collect();
    let d: Value = c
        .post(
            "/api/v1/tool/prompt/rand",
            &json!({"art_model_no": "illustrious-xl"}),
        )
        .await
        .unwrap();
    assert_eq!(d["flavour"], "anime");
    let local = d["local"].as_str().unwrap();
    assert!(local.split(", ").any(|w| anime.contains(w)), "{local}");
    let d: Value = c
        .post(
            "/api/v1/tool/prompt/rand",
            &json!({"art_model_no": "realistic-vision"}),
        )
        .await
        .unwrap();
    assert_eq!(d["flavour"], "photo");
}

#[tokio::test]
async fn definitions_per_language_and_paging() {
    let app = spawn_app().await;
    let c = &app.client;
    let first: Value = c
        .post(
            "/api/v1/prompt/definitions",
            &json!({"language": "de", "category": "color", "limit": 20}),
        )
        .await
        .unwrap();
    let total = first["total"].as_u64().unwrap() as usize;
    assert!(total > 40, "{total}");
    let cats = first["categories"].as_array().unwrap();
    let all: u64 = cats.iter().map(|c| c["count"].as_u64().unwrap()).sum();
    assert!(all >= 2000, "{all} terms");
    let mut terms = Vec::new();
    let mut page = first;
    loop {
        for item in page["items"].as_array().unwrap() {
            assert_eq!(item["dir"], "color");
            assert_eq!(item["subType"], "normal");
            assert_eq!(item["isAlias"], false);
            terms.push(item["term"].as_str().unwrap().to_owned());
            if item["term"] == "red" {
                assert_eq!(item["lang"], "Rot");
                assert_eq!(item["text"], "red");
                assert_eq!(item["translated"], true);
            }
        }
        let Some(cursor) = page["next_cursor"].as_str().map(str::to_owned) else {
            break;
        };
        page = c
            .post(
                "/api/v1/prompt/definitions",
                &json!({"language": "de", "category": "color", "limit": 20, "cursor": cursor}),
            )
            .await
            .unwrap();
    }
    assert_eq!(terms.len(), total);
    let mut dedup = terms.clone();
    dedup.sort();
    dedup.dedup();
    assert_eq!(dedup.len(), total, "no term twice across pages");

    // Style words carry subType style; negative words eg.
    let neg: Value = c
        .post(
            "/api/v1/prompt/definitions",
            &json!({"category": "negative", "limit": 1}),
        )
        .await
        .unwrap();
    assert_eq!(neg["items"][0]["subType"], "eg");

    // The per-language file of the spec.
    let map: Value = c.get_json("/api/v1/prompt/prompt_zhCN.json").await;
    assert_eq!(map["cat"]["lang"], "猫");
    assert_eq!(map["cat"]["dir"], "animal");
    assert!(map.as_object().unwrap().len() >= 2000);
    let ja: Value = c.get_json("/api/v1/prompt/prompt_ja.json").await;
    assert_eq!(ja["cat"]["lang"], "猫");
    assert_eq!(ja["ultra detailed"]["lang"], "超詳細");
}

#[tokio::test]
async fn ui_labels_in_a_language() {
    let app = spawn_app().await;
    let d: Value = app
        .client
        .post(
            "/api/v1/translate/18n",
            &json!({"list": {"content": ["negative", "Prompt", "no-such-label"]}, "language": "ja"}),
        )
        .await
        .unwrap();
    assert_eq!(d["language"], "ja");
    assert_eq!(
        d["content"],
        json!(["ネガティブ", "プロンプト", "no-such-label"])
    );
    assert_eq!(d["missing"], json!(["no-such-label"]));
    let d: Value = app
        .client
        .post(
            "/api/v1/translate/18n",
            &json!({"list": ["untitled"], "language": "zh-CN"}),
        )
        .await
        .unwrap();
    assert_eq!(d["content"], json!(["未命名"]));
}

trait GetJson {
    async fn get_json(&self, path: &str) -> Value;
}

impl GetJson for RestClient {
    async fn get_json(&self, path: &str) -> Value {
        let res = reqwest::get(format!("{}{path}", self.base()))
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
        let env: Value = res.json().await.unwrap();
        assert_eq!(env["status"]["code"], 10000);
        env["data"].clone()
    }
}
