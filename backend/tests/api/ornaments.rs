//! The ornament shop: an operator adds ornaments with their pictures, users
//! buy them with credits (once, however the calls race), wear and take them
//! off, and the worn ornament and work frames show on cards, work pages,
//! comments and the account's own info.

use protocol::client::RestClient;
use serde_json::{json, Value};

use crate::helpers::{spawn_app_with, TestApp};
use crate::tasks::test_png;

async fn app() -> TestApp {
    spawn_app_with(&[
        ("EASEL_SIGNUP_CREDITS", "0"),
        ("EASEL_SQUARE_WRITES_PER_MIN", "100000"),
    ])
    .await
}

async fn post(c: &RestClient, path: &str, body: Value) -> Value {
    c.post::<_, Value>(path, &body)
        .await
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The (http status, code, key) of a refused call.
async fn refused(c: &RestClient, path: &str, body: Value) -> (u16, i32, String) {
    let (http, env) = c.post_raw::<_, Value>(path, &body).await.unwrap();
    assert!(
        !env.status.is_ok(),
        "{path} should have been refused: {:?}",
        env.data
    );
    (
        http,
        env.status.code,
        env.status.key.clone().unwrap_or_default(),
    )
}

/// Available credits (no hold stays open after a purchase, so this is the balance).
async fn balance(c: &RestClient) -> i64 {
    post(c, "/api/v1/payment/assets/get", json!({})).await["available"]
        .as_i64()
        .unwrap()
}

/// An ornament added by the operator, its picture uploaded first.
async fn add(op: &RestClient, slot: &str, name: &str, price: i64, limited: Option<u64>) -> Value {
    let url = op
        .upload(&test_png(32, 32), &format!("{name}.png"), "image/png")
        .await
        .unwrap();
    assert!(url.contains("/files/"), "{url}");
    post(
        op,
        "/api/v1/admin/ornament/upsert",
        json!({"slot": slot, "name": name, "description": "shiny", "price": price,
               "image": {"url": url}, "limited": limited}),
    )
    .await
}

#[tokio::test]
async fn buy_once_wear_and_show_everywhere() {
    let app = app().await;
    let op = app.operator().await;
    let (rich, rich_c) = app.user("Rich").await;
    let (_, poor_c) = app.user("Poor").await;
    let (_, other_c) = app.user("Other").await;

    // A non-operator cannot add ornaments.
    let (http, code, key) = refused(
        &rich_c,
        "/api/v1/admin/ornament/upsert",
        json!({"slot": "avatar", "name": "Fake", "price": 1, "image": {"url": "/files/x.png"}}),
    )
    .await;
    assert_eq!((http, code, key.as_str()), (403, 40300, "NoPermission"));
    // The operator's validation: another host's picture is refused.
    let (_, code, key) = refused(
        &op,
        "/api/v1/admin/ornament/upsert",
        json!({"slot": "avatar", "name": "Far", "price": 1, "image": {"url": "https://elsewhere.example/x.png"}}),
    )
    .await;
    assert_eq!((code, key.as_str()), (40050, "OrnamentInvalid"));

    let halo = add(&op, "avatar", "Halo", 300, None).await;
    let halo_id = halo["ornament_id"].as_str().unwrap().to_owned();
    let halo_url = halo["image"]["url"].as_str().unwrap().to_owned();
    assert!(
        halo_url.starts_with("/files/"),
        "stored site-relative: {halo_url}"
    );
    let gilt = add(&op, "work_frame", "Gilt", 50, None).await;
    let gilt_id = gilt["ornament_id"].as_str().unwrap().to_owned();
    let gilt_url = gilt["image"]["url"].as_str().unwrap().to_owned();
    let admin = post(&op, "/api/v1/admin/ornament/list", json!({})).await;
    assert_eq!(admin["items"].as_array().unwrap().len(), 2);

    // The shop lists both to visitors, one per slot when asked.
    let shop = post(&app.client, "/api/v1/ornament-shop/list", json!({})).await;
    assert_eq!(shop["items"].as_array().unwrap().len(), 2);
    let avatars = post(
        &app.client,
        "/api/v1/ornament-shop/list",
        json!({"slot": "avatar", "page_size": 1}),
    )
    .await;
    assert_eq!(avatars["items"][0]["ornament_id"], halo_id.as_str());
    assert_eq!(avatars["items"][0]["owned"], false);
    assert!(avatars["next_cursor"].is_null());

    // Without credits: CoinsNotEnough, nothing owned.
    let (http, code, key) = refused(
        &poor_c,
        "/api/v1/ornament-shop/buy",
        json!({"ornament_id": halo_id}),
    )
    .await;
    assert_eq!((http, code, key.as_str()), (403, 40301, "CoinsNotEnough"));
    let poor_orders = post(&poor_c, "/api/v1/ornament-shop/order-list", json!({})).await;
    assert!(poor_orders["items"].as_array().unwrap().is_empty());
    let (_, code, _) = refused(
        &poor_c,
        "/api/v1/ornament-shop/wear",
        json!({"ornament_id": halo_id}),
    )
    .await;
    assert_eq!(code, 40350);

    // Credits granted; two concurrent buys charge once.
    post(
        &op,
        "/api/v1/admin/credits/grant",
        json!({"account_id": rich.account.id, "amount": 1000, "key": "ornament-test"}),
    )
    .await;
    assert_eq!(balance(&rich_c).await, 1000);
    let body = json!({"ornament_id": halo_id});
    let (a, b) = tokio::join!(
        post(&rich_c, "/api/v1/ornament-shop/buy", body.clone()),
        post(&rich_c, "/api/v1/ornament-shop/buy", body.clone()),
    );
    assert_eq!(
        a["charged"].as_i64().unwrap() + b["charged"].as_i64().unwrap(),
        300,
        "{a} {b}"
    );
    assert_eq!(balance(&rich_c).await, 700);
    // A third buy of an owned ornament succeeds without charging.
    let again = post(&rich_c, "/api/v1/ornament-shop/buy", body.clone()).await;
    assert_eq!(
        (again["charged"].as_i64(), again["bought"].as_bool()),
        (Some(0), Some(false))
    );
    assert_eq!(balance(&rich_c).await, 700);
    post(
        &rich_c,
        "/api/v1/ornament-shop/buy",
        json!({"ornament_id": gilt_id}),
    )
    .await;
    assert_eq!(balance(&rich_c).await, 650);
    let orders = post(
        &rich_c,
        "/api/v1/ornament-shop/order-list",
        json!({"page_size": 1}),
    )
    .await;
    assert_eq!(orders["items"].as_array().unwrap().len(), 1);
    assert_eq!(
        orders["items"][0]["ornament_id"],
        gilt_id.as_str(),
        "newest first"
    );
    let rest = post(
        &rich_c,
        "/api/v1/ornament-shop/order-list",
        json!({"page_size": 5, "cursor": orders["next_cursor"]}),
    )
    .await;
    assert_eq!(rest["items"][0]["ornament_id"], halo_id.as_str());
    assert_eq!(rest["items"][0]["price"], 300);
    assert!(rest["next_cursor"].is_null());

    // Wear: the shop, the account's info, another's view of it.
    let worn = post(
        &rich_c,
        "/api/v1/ornament-shop/wear",
        json!({"ornament_id": halo_id}),
    )
    .await;
    assert_eq!(worn["avatar"], halo_url.as_str());
    let mine = post(
        &rich_c,
        "/api/v1/ornament-shop/list",
        json!({"slot": "avatar"}),
    )
    .await;
    assert_eq!(
        (
            mine["items"][0]["owned"].as_bool(),
            mine["items"][0]["worn"].as_bool()
        ),
        (Some(true), Some(true))
    );
    let info = post(&rich_c, "/api/v1/account/info", json!({})).await;
    assert_eq!(info["ornament"], halo_url.as_str());
    // Channel member lists ask for many accounts at once.
    let of = post(
        &app.client,
        "/api/v1/ornament-shop/worn-of",
        json!({"account_ids": [rich.account.id, "nobody"]}),
    )
    .await;
    assert_eq!(
        of["items"],
        json!({ rich.account.id.as_str(): halo_url.as_str() })
    );
    let theirs = post(
        &other_c,
        "/api/v1/ornament-shop/other-list",
        json!({"account_id": rich.account.id}),
    )
    .await;
    assert_eq!(theirs["items"].as_array().unwrap().len(), 2);
    assert_eq!(
        theirs["items"][0]["ornament_id"],
        halo_id.as_str(),
        "worn first"
    );
    assert_eq!(theirs["items"][0]["worn"], true);

    // A work of Rich's, framed; its card, page and comments show it all.
    let work = post(
        &rich_c,
        "/api/v1/post/article/add",
        json!({"title": "Framed", "content": "Words.", "tags": ["t"], "visibility": "public"}),
    )
    .await;
    let work_id = work["id"].as_str().unwrap().to_owned();
    let framed = post(
        &rich_c,
        "/api/v1/ornament-shop/wear-work-frame",
        json!({"work_id": work_id, "ornament_id": gilt_id}),
    )
    .await;
    assert_eq!(framed["frame"]["ornament_id"], gilt_id.as_str());
    let wf = post(
        &app.client,
        "/api/v1/ornament-shop/work-frame-work",
        json!({"work_id": work_id}),
    )
    .await;
    assert_eq!(wf["frame"]["image"]["url"], gilt_url.as_str());
    // Another's work answers NotFound, as a missing work does.
    let (http, code, _) = refused(
        &other_c,
        "/api/v1/ornament-shop/wear-work-frame",
        json!({"work_id": work_id, "ornament_id": gilt_id}),
    )
    .await;
    assert_eq!((http, code), (404, 40400));
    let (http, code, _) = refused(
        &rich_c,
        "/api/v1/ornament-shop/wear-work-frame",
        json!({"work_id": "no-such-work", "ornament_id": gilt_id}),
    )
    .await;
    assert_eq!((http, code), (404, 40400));
    let (_, code, _) = refused(
        &rich_c,
        "/api/v1/ornament-shop/wear-work-frame",
        json!({"work_id": work_id, "ornament_id": halo_id}),
    )
    .await;
    assert_eq!(code, 40050, "an avatar ornament is not a frame");

    let feed = post(
        &other_c,
        "/api/v1/square/v3/recommend",
        json!({"order_by": "new", "time_type": "all", "page_size": 5}),
    )
    .await;
    let card = feed["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == work_id.as_str())
        .unwrap_or_else(|| panic!("{feed}"));
    assert_eq!(card["author"]["ornament"], halo_url.as_str());
    assert_eq!(card["frame"], gilt_url.as_str());
    let detail = post(&other_c, "/api/v1/post/detail", json!({"id": work_id})).await;
    assert_eq!(detail["author"]["ornament"], halo_url.as_str());
    assert_eq!(detail["frame"], gilt_url.as_str());
    post(
        &rich_c,
        "/api/v1/comment2/create",
        json!({"obj_id": work_id, "obj_type": 4, "content": "Mine", "parent_id": null}),
    )
    .await;
    let comments = post(
        &other_c,
        "/api/v1/comment2/list",
        json!({"obj_id": work_id, "obj_type": 4, "page_size": 10}),
    )
    .await;
    assert_eq!(
        comments["items"][0]["author"]["ornament"],
        halo_url.as_str()
    );

    // Taking it off removes it everywhere.
    let off = post(
        &rich_c,
        "/api/v1/ornament-shop/cancel-wear",
        json!({"slot": "avatar"}),
    )
    .await;
    assert!(off["avatar"].is_null());
    let info = post(&rich_c, "/api/v1/account/info", json!({})).await;
    assert!(info.get("ornament").is_none(), "{info}");
    let detail = post(&other_c, "/api/v1/post/detail", json!({"id": work_id})).await;
    assert!(detail["author"].get("ornament").is_none(), "{detail}");
    let off = post(
        &rich_c,
        "/api/v1/ornament-shop/wear-work-frame",
        json!({"work_id": work_id, "ornament_id": null}),
    )
    .await;
    assert!(off["frame"].is_null());
    let detail = post(&other_c, "/api/v1/post/detail", json!({"id": work_id})).await;
    assert!(detail.get("frame").is_none(), "{detail}");
    // Cancel by ornament id works too, and is a no-op when it is not worn.
    post(
        &rich_c,
        "/api/v1/ornament-shop/wear",
        json!({"ornament_id": halo_id}),
    )
    .await;
    let off = post(
        &rich_c,
        "/api/v1/ornament-shop/cancel-wear",
        json!({"ornament_id": halo_id}),
    )
    .await;
    assert!(off["avatar"].is_null());
}

#[tokio::test]
async fn limited_stock_sells_out_and_retired_ornaments_are_not_sold() {
    let app = app().await;
    let op = app.operator().await;
    let one = add(&op, "avatar", "Crown", 10, Some(1)).await;
    let id = one["ornament_id"].as_str().unwrap().to_owned();
    let mut buyers = Vec::new();
    for name in ["A", "B"] {
        let (d, c) = app.user(name).await;
        post(
            &op,
            "/api/v1/admin/credits/grant",
            json!({"account_id": d.account.id, "amount": 100, "key": format!("k-{name}")}),
        )
        .await;
        buyers.push(c);
    }
    let body = json!({"ornament_id": id});
    let (a, b) = tokio::join!(
        buyers[0].post_raw::<_, Value>("/api/v1/ornament-shop/buy", &body),
        buyers[1].post_raw::<_, Value>("/api/v1/ornament-shop/buy", &body),
    );
    let codes = [a.unwrap().1.status.code, b.unwrap().1.status.code];
    let mut sorted = codes;
    sorted.sort_unstable();
    assert_eq!(sorted, [10000, 40950], "one sold, one sold out: {codes:?}");
    let balances = [balance(&buyers[0]).await, balance(&buyers[1]).await];
    let mut sorted = balances;
    sorted.sort_unstable();
    assert_eq!(sorted, [90, 100]);
    let admin = post(&op, "/api/v1/admin/ornament/list", json!({})).await;
    assert_eq!(admin["items"][0]["sold"], 1);

    // Retired: off the shop, not for sale; an edit keeps the sold count.
    let retired = post(
        &op,
        "/api/v1/admin/ornament/upsert",
        json!({"ornament_id": id, "slot": "avatar", "name": "Crown", "price": 10,
               "image": one["image"], "active": false, "limited": 2}),
    )
    .await;
    assert_eq!(
        (retired["sold"].as_i64(), retired["active"].as_bool()),
        (Some(1), Some(false))
    );
    let shop = post(&app.client, "/api/v1/ornament-shop/list", json!({})).await;
    assert!(shop["items"].as_array().unwrap().is_empty());
    // The one who did not get it cannot buy it now (an owner's repeat buy
    // would answer success without charging).
    let loser = if codes[0] == 10000 { 1 } else { 0 };
    let (_, code, key) = refused(
        &buyers[loser],
        "/api/v1/ornament-shop/buy",
        json!({"ornament_id": id}),
    )
    .await;
    assert_eq!((code, key.as_str()), (40450, "OrnamentNotFound"));
    // The slot of an ornament cannot change.
    let (_, code, _) = refused(
        &op,
        "/api/v1/admin/ornament/upsert",
        json!({"ornament_id": id, "slot": "work_frame", "name": "Crown", "price": 10,
               "image": one["image"]}),
    )
    .await;
    assert_eq!(code, 40050);
}
