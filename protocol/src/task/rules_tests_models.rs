//! Tests of users' models in the rules (`prepare_with`, issue 19): the job
//! carries their files, a user LoRA or embedding must fit the checkpoint
//! in every mode, unresolved or unready models answer the spec's keys, and
//! the cost includes the creators' fees (none for the payer's own models).
use super::*;
use crate::models::{ModelType, VersionStatus};
use crate::task::job::ModelFileRef;
use crate::task::user_models::{ModelUse, UserModel, UserModels};

fn file(n: &str) -> ModelFileRef {
    ModelFileRef {
        key: format!("m/{n}.safetensors"),
        sha256: format!("{:0>64}", n.len()),
        size: 1234,
        name: format!("easel-abc-{n}.safetensors"),
        local_path: None,
    }
}

fn model(id: &str, kind: ModelType, family: &str, creator: &str, fee: i64) -> UserModel {
    UserModel {
        named_as: id.into(),
        ver_no: format!("v-{id}"),
        model_id: format!("m-{id}"),
        kind,
        family: family.into(),
        status: VersionStatus::Ready,
        file: Some(file(id)),
        creator: creator.into(),
        fee,
        weight: 0.7,
    }
}

fn users(payer: &str, items: Vec<UserModel>) -> UserModels {
    UserModels {
        items,
        payer: Some(payer.into()),
    }
}

fn with_models(v: serde_json::Value) -> CreateTaskRequest {
    t2i(v)
}

#[test]
fn a_user_lora_rides_with_its_file_and_its_fee() {
    let r =
        with_models(json!({"n_iter": 1, "lora_models": [{"model_ver_no": "ink", "weight": 0.5}]}));
    let base = run(&t2i(json!({"n_iter": 1})), Action::TextToImage, &FREE).unwrap();
    let u = users(
        "payer",
        vec![model("ink", ModelType::Lora, "sd", "creator", 7)],
    );
    let p = prepare_with(&r, Action::TextToImage, &FREE, 777, &u).unwrap();
    assert_eq!(p.job.loras.len(), 1);
    assert_eq!(p.job.loras[0].model, "v-ink");
    assert_eq!(p.job.loras[0].weight, 0.5);
    assert_eq!(p.job.loras[0].file, Some(file("ink")));
    assert_eq!(
        p.cost,
        base.cost + 7,
        "the fee comes on top of the task's cost"
    );
    assert_eq!(
        p.uses,
        vec![ModelUse {
            ver_no: "v-ink".into(),
            model_id: "m-ink".into(),
            creator: "creator".into(),
            fee: 7
        }]
    );
    // Without a weight, the creator's suggestion.
    let r = with_models(json!({"n_iter": 1, "lora_models": [{"model_id": "ink"}]}));
    let p = prepare_with(&r, Action::TextToImage, &FREE, 777, &u).unwrap();
    assert_eq!(p.job.loras[0].weight, 0.7);
}

#[test]
fn own_models_cost_no_fee() {
    let r = with_models(json!({"n_iter": 1, "lora_models": [{"model_ver_no": "ink"}]}));
    let base = run(&t2i(json!({"n_iter": 1})), Action::TextToImage, &FREE).unwrap();
    let u = users(
        "creator",
        vec![model("ink", ModelType::Lora, "sd", "creator", 7)],
    );
    let p = prepare_with(&r, Action::TextToImage, &FREE, 777, &u).unwrap();
    assert_eq!(p.cost, base.cost);
    assert_eq!(p.uses.len(), 1);
    assert_eq!(p.uses[0].fee, 0);
}

#[test]
fn a_lora_of_another_family_is_studio25_in_every_mode() {
    let u = users("payer", vec![model("xl", ModelType::Lora, "sdxl", "c", 0)]);
    let r = with_models(json!({"lora_models": [{"model_ver_no": "xl"}]}));
    assert_eq!(
        prepare_with(&r, Action::TextToImage, &FREE, 1, &u).map(|_| ()),
        Err(ErrorCode::Studio25)
    );
    // Even with LoRA-ignore on (which only excuses catalogue LoRAs in studio).
    let r = with_models(json!({"lora_ignore": true, "lora_models": [{"model_ver_no": "xl"}]}));
    assert_eq!(
        prepare_with(&r, Action::TextToImage, &FREE, 1, &u).map(|_| ()),
        Err(ErrorCode::Studio25)
    );
    // On an SDXL checkpoint it fits, and an Illustrious LoRA too.
    let u = users(
        "payer",
        vec![
            model("xl", ModelType::Lora, "sdxl", "c", 0),
            model("il", ModelType::Lora, "il", "c", 0),
        ],
    );
    let r = req(
        json!({"meta": {"prompt": "a cat", "art_model_ver_no": "sdxl-base-1.0",
        "lora_models": [{"model_ver_no": "xl"}, {"model_ver_no": "il"}]}}),
    );
    let p = prepare_with(&r, Action::TextToImage, &FREE, 1, &u).unwrap();
    assert_eq!(p.job.loras.len(), 2);
}

#[test]
fn unresolved_models_answer_the_spec_keys() {
    let u = users("payer", vec![]);
    let r = with_models(json!({"lora_models": [{"model_ver_no": "someone-elses-draft"}]}));
    assert_eq!(
        prepare_with(&r, Action::TextToImage, &FREE, 1, &u).map(|_| ()),
        Err(ErrorCode::InvalidParams)
    );
    let r = req(json!({"meta": {"prompt": "a cat", "art_model_ver_no": "not-mine"}}));
    assert_eq!(
        prepare_with(&r, Action::TextToImage, &FREE, 1, &u).map(|_| ()),
        Err(ErrorCode::PleaseSelectBaseName)
    );
    // A LoRA is not a checkpoint.
    let u = users("payer", vec![model("ink", ModelType::Lora, "sd", "c", 0)]);
    let r = req(json!({"meta": {"prompt": "a cat", "art_model_ver_no": "ink"}}));
    assert_eq!(
        prepare_with(&r, Action::TextToImage, &FREE, 1, &u).map(|_| ()),
        Err(ErrorCode::PleaseSelectBaseName)
    );
    let r = with_models(json!({"embeddings": [{"model_ver_no": "ink"}]}));
    assert_eq!(
        prepare_with(&r, Action::TextToImage, &FREE, 1, &u).map(|_| ()),
        Err(ErrorCode::InvalidParams)
    );
}

#[test]
fn unready_versions_are_model_not_ready() {
    for status in [VersionStatus::Pending, VersionStatus::Failed] {
        let mut m = model("ink", ModelType::Lora, "sd", "c", 3);
        m.status = status;
        let u = users("payer", vec![m]);
        let r = with_models(json!({"lora_models": [{"model_ver_no": "ink"}]}));
        assert_eq!(
            prepare_with(&r, Action::TextToImage, &FREE, 1, &u).map(|_| ()),
            Err(ErrorCode::ModelNotReady)
        );
        let mut c = model("ck", ModelType::Checkpoint, "sd", "c", 3);
        c.status = status;
        let u = users("payer", vec![c]);
        let r = req(json!({"meta": {"prompt": "a cat", "art_model_ver_no": "ck"}}));
        assert_eq!(
            prepare_with(&r, Action::TextToImage, &FREE, 1, &u).map(|_| ()),
            Err(ErrorCode::ModelNotReady)
        );
    }
}

#[test]
fn a_user_checkpoint_and_embedding_carry_their_files() {
    let u = users(
        "payer",
        vec![
            model("ck", ModelType::Checkpoint, "sdxl", "a", 2),
            model("neg", ModelType::Embedding, "sdxl", "b", 1),
            model("sdneg", ModelType::Embedding, "sd", "b", 1),
        ],
    );
    let r = req(
        json!({"meta": {"prompt": "a cat", "art_model_ver_no": "ck", "n_iter": 1,
        "embeddings": [{"model_ver_no": "neg"}, {"model_id": "neg"}]}}),
    );
    let p = prepare_with(&r, Action::TextToImage, &PAID, 1, &u).unwrap();
    assert_eq!(p.job.model, "v-ck");
    assert_eq!(p.job.family, "sdxl");
    assert_eq!(p.category, Category::Sdxl);
    assert_eq!(p.job.model_file, Some(file("ck")));
    assert_eq!(p.job.embeddings, vec![file("neg")]);
    assert_eq!(p.uses.len(), 2, "each version once");
    let without = prepare(
        &req(
            json!({"meta": {"prompt": "a cat", "art_model_ver_no": "sdxl-base-1.0", "n_iter": 1}}),
        ),
        Action::TextToImage,
        &PAID,
        1,
    )
    .unwrap();
    assert_eq!(p.cost, without.cost + 3);
    // An SD embedding on an SDXL checkpoint does not fit.
    let r = req(json!({"meta": {"prompt": "a cat", "art_model_ver_no": "ck",
        "embeddings": [{"model_ver_no": "sdneg"}]}}));
    assert_eq!(
        prepare_with(&r, Action::TextToImage, &PAID, 1, &u).map(|_| ()),
        Err(ErrorCode::Studio25)
    );
    // Catalogue-only prepare does not know the user's checkpoint.
    assert_eq!(
        prepare(&r, Action::TextToImage, &PAID, 1).map(|_| ()),
        Err(ErrorCode::PleaseSelectBaseName)
    );
}

#[test]
fn visitors_cannot_pay_fees_and_upscales_use_no_model() {
    let u = UserModels {
        items: vec![model("ck", ModelType::Checkpoint, "sd", "a", 2)],
        payer: None,
    };
    let r = req(json!({"meta": {"prompt": "a cat", "art_model_ver_no": "ck"}}));
    assert_eq!(
        prepare_with(&r, Action::TextToImage, &VISITOR, 1, &u).map(|_| ()),
        Err(ErrorCode::NeedLogin)
    );
    let free = UserModels {
        items: vec![model("ck", ModelType::Checkpoint, "sd", "a", 0)],
        payer: None,
    };
    let p = prepare_with(&r, Action::TextToImage, &VISITOR, 1, &free).unwrap();
    assert_eq!(p.cost, 0);
    assert_eq!(p.job.model_file, Some(file("ck")));
    // Upscaling names no checkpoint: nothing is used or charged for it.
    let r = req(json!({"meta": {"art_model_ver_no": "ck", "imageUrl": IMG,
        "imgFiles": [{"url": IMG, "width": 512, "height": 512}]}}));
    let u = users(
        "payer",
        vec![model("ck", ModelType::Checkpoint, "sd", "a", 2)],
    );
    let p = prepare_with(&r, Action::Upscale, &FREE, 1, &u).unwrap();
    assert!(p.uses.is_empty());
    assert_eq!(p.job.model_file, None);
}
