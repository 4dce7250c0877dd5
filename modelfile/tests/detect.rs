//! Detection on files made by the tests: kind, family, rank, kohya metadata,
//! trained words, size facts.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

mod common;

use common::{file, read};
use easel_modelfile::{inspect, Dtype, FileKind, Inspection, ModelKind};

fn inspect_bytes(bytes: &[u8]) -> Inspection {
    assert_eq!(easel_modelfile::sniff(bytes), FileKind::Safetensors);
    inspect(&read(bytes).unwrap())
}

const SD1_DOWN: &str =
    "lora_unet_down_blocks_0_attentions_0_transformer_blocks_0_attn2_to_k.lora_down.weight";
const SD1_UP: &str =
    "lora_unet_down_blocks_0_attentions_0_transformer_blocks_0_attn2_to_k.lora_up.weight";
const SD1_ALPHA: &str =
    "lora_unet_down_blocks_0_attentions_0_transformer_blocks_0_attn2_to_k.alpha";

fn sd1_lora(meta: &[(&str, &str)]) -> Vec<u8> {
    file(
        &[
            (SD1_DOWN, Dtype::F16, &[8, 768]),
            (SD1_UP, Dtype::F16, &[320, 8]),
            (SD1_ALPHA, Dtype::F16, &[]),
            (
                "lora_unet_down_blocks_0_attentions_0_transformer_blocks_0_attn1_to_q.lora_down.weight",
                Dtype::F16,
                &[8, 320],
            ),
            (
                "lora_unet_down_blocks_0_attentions_0_transformer_blocks_0_attn1_to_q.lora_up.weight",
                Dtype::F16,
                &[320, 8],
            ),
            ("lora_te_text_model_encoder_layers_0_mlp_fc1.lora_down.weight", Dtype::F16, &[8, 768]),
            ("lora_te_text_model_encoder_layers_0_mlp_fc1.lora_up.weight", Dtype::F16, &[3072, 8]),
            ("lora_te_text_model_encoder_layers_0_mlp_fc1.alpha", Dtype::F16, &[]),
        ],
        meta,
    )
}

const TAGS: &str = r#"{"10_mychar": {"mychar": 20, "1girl": 18, "smile": 6, "outdoors": 3}, "5_extra": {"mychar": 5, "1girl": 2}}"#;

#[test]
fn sd1_lora_with_kohya_metadata() {
    let bytes = sd1_lora(&[
        ("ss_network_dim", "8"),
        ("ss_network_alpha", "4.0"),
        ("ss_network_module", "networks.lora"),
        ("ss_base_model_version", "sd_v1"),
        ("ss_output_name", "mychar_v1"),
        ("ss_sd_model_name", "v1-5-pruned-emaonly.safetensors"),
        ("ss_tag_frequency", TAGS),
        ("ss_num_epochs", "10"),
        ("ss_steps", "2000"),
        ("ss_num_train_images", "25"),
        ("ss_learning_rate", "0.0001"),
        ("ss_resolution", "(512, 512)"),
    ]);
    let i = inspect_bytes(&bytes);
    assert_eq!(i.kind, ModelKind::Lora);
    assert_eq!(i.family, Some("sd"));
    assert_eq!(i.architecture.as_deref(), Some("sd1"));
    assert_eq!(i.rank, Some(8));
    assert_eq!(i.alpha, Some(4.0));
    assert_eq!(i.network_module.as_deref(), Some("networks.lora"));
    assert_eq!(i.lora_format, Some("kohya"));
    assert_eq!(i.trained_words, vec!["mychar", "1girl"]);
    assert_eq!(i.tensor_count, 8);
    assert_eq!(
        i.parameters,
        8 * 768 + 320 * 8 + 1 + 8 * 320 + 320 * 8 + 8 * 768 + 3072 * 8 + 1
    );
    assert_eq!(i.dtype, Some(Dtype::F16));
    let k = i.kohya.unwrap();
    assert_eq!(k.base_model_version.as_deref(), Some("sd_v1"));
    assert_eq!(k.output_name.as_deref(), Some("mychar_v1"));
    assert_eq!(k.network_dim, Some(8));
    assert_eq!(k.epochs, Some(10));
    assert_eq!(k.steps, Some(2000));
    assert_eq!(k.num_train_images, Some(25));
    assert_eq!(k.learning_rate, Some(0.0001));
    assert_eq!(k.resolution.as_deref(), Some("(512, 512)"));
    assert_eq!(
        k.top_tags,
        vec![
            ("mychar".to_string(), 25),
            ("1girl".to_string(), 20),
            ("smile".to_string(), 6),
            ("outdoors".to_string(), 3)
        ]
    );
    assert_eq!(
        i.metadata.get("ss_network_dim").map(String::as_str),
        Some("8")
    );
}

#[test]
fn sd1_lora_without_metadata_is_told_by_its_shapes() {
    let i = inspect_bytes(&sd1_lora(&[]));
    assert_eq!(i.kind, ModelKind::Lora);
    assert_eq!(i.family, Some("sd"));
    assert_eq!(i.rank, Some(8));
    assert_eq!(i.alpha, None);
    assert!(i.kohya.is_none());
    assert!(i.trained_words.is_empty());
    assert!(i.metadata.is_empty());
}

#[test]
fn trigger_phrase_comes_first_and_datasets_tag_frequency_counts() {
    let datasets = r#"[{"is_dreambooth": true, "tag_frequency": {"img": {"zzstyle": 9, "tree": 9, "sky": 2}}}]"#;
    let i = inspect_bytes(&sd1_lora(&[
        ("modelspec.trigger_phrase", "zz style, painterly"),
        ("ss_datasets", datasets),
    ]));
    assert_eq!(
        i.trained_words,
        vec!["zz style", "painterly", "tree", "zzstyle"]
    );
}

#[test]
fn malformed_tag_frequency_counts_nothing() {
    let i = inspect_bytes(&sd1_lora(&[("ss_tag_frequency", "{not json")]));
    assert!(i.kohya.unwrap().top_tags.is_empty());
    assert!(i.trained_words.is_empty());
}

fn sdxl_lora(meta: &[(&str, &str)], te2: bool) -> Vec<u8> {
    let mut t: Vec<(&str, Dtype, &[usize])> = vec![
        (
            "lora_unet_input_blocks_4_1_transformer_blocks_0_attn2_to_k.lora_down.weight",
            Dtype::BF16,
            &[16, 2048],
        ),
        (
            "lora_unet_input_blocks_4_1_transformer_blocks_0_attn2_to_k.lora_up.weight",
            Dtype::BF16,
            &[640, 16],
        ),
        (
            "lora_te1_text_model_encoder_layers_0_mlp_fc1.lora_down.weight",
            Dtype::BF16,
            &[16, 768],
        ),
        (
            "lora_te1_text_model_encoder_layers_0_mlp_fc1.lora_up.weight",
            Dtype::BF16,
            &[3072, 16],
        ),
    ];
    if te2 {
        t.push((
            "lora_te2_text_model_encoder_layers_0_mlp_fc1.lora_down.weight",
            Dtype::BF16,
            &[16, 1280],
        ));
        t.push((
            "lora_te2_text_model_encoder_layers_0_mlp_fc1.lora_up.weight",
            Dtype::BF16,
            &[5120, 16],
        ));
    }
    file(&t, meta)
}

#[test]
fn sdxl_lora_by_te2_keys_and_by_context_width() {
    for te2 in [true, false] {
        let i = inspect_bytes(&sdxl_lora(&[], te2));
        assert_eq!(i.kind, ModelKind::Lora);
        assert_eq!(i.family, Some("sdxl"), "te2 {te2}");
        assert_eq!(i.rank, Some(16));
        assert_eq!(i.dtype, Some(Dtype::BF16));
    }
}

#[test]
fn illustrious_is_sdxl_told_by_its_metadata_names() {
    let i = inspect_bytes(&sdxl_lora(
        &[
            ("ss_sd_model_name", "illustriousXL_v01.safetensors"),
            ("ss_base_model_version", "sdxl_base_v1-0"),
        ],
        true,
    ));
    assert_eq!(i.family, Some("il"));
    assert_eq!(i.architecture.as_deref(), Some("sdxl"));
    let i = inspect_bytes(&sdxl_lora(
        &[("modelspec.title", "NoobAI-XL v1.1 style")],
        true,
    ));
    assert_eq!(i.family, Some("il"));
}

#[test]
fn flux_loras_kohya_and_peft() {
    let kohya = file(
        &[
            (
                "lora_unet_double_blocks_0_img_attn_qkv.lora_down.weight",
                Dtype::BF16,
                &[4, 3072],
            ),
            (
                "lora_unet_double_blocks_0_img_attn_qkv.lora_up.weight",
                Dtype::BF16,
                &[9216, 4],
            ),
            (
                "lora_unet_single_blocks_0_linear1.lora_down.weight",
                Dtype::BF16,
                &[4, 3072],
            ),
            (
                "lora_unet_single_blocks_0_linear1.lora_up.weight",
                Dtype::BF16,
                &[256, 4],
            ),
            ("lora_unet_single_blocks_0_linear1.alpha", Dtype::BF16, &[]),
        ],
        &[
            ("ss_base_model_version", "flux1"),
            ("ss_network_module", "networks.lora_flux"),
        ],
    );
    let i = inspect_bytes(&kohya);
    assert_eq!(
        (i.kind, i.family, i.rank),
        (ModelKind::Lora, Some("flux"), Some(4))
    );
    assert_eq!(i.lora_format, Some("kohya"));
    assert_eq!(i.network_module.as_deref(), Some("networks.lora_flux"));

    let peft = file(
        &[
            (
                "transformer.single_transformer_blocks.0.attn.to_q.lora_A.weight",
                Dtype::F32,
                &[2, 3072],
            ),
            (
                "transformer.single_transformer_blocks.0.attn.to_q.lora_B.weight",
                Dtype::F32,
                &[3072, 2],
            ),
        ],
        &[],
    );
    let i = inspect_bytes(&peft);
    assert_eq!(
        (i.kind, i.family, i.rank),
        (ModelKind::Lora, Some("flux"), Some(2))
    );
    assert_eq!(i.lora_format, Some("peft"));
}

#[test]
fn sd35_large_peft_lora_by_width() {
    let i = inspect_bytes(&file(
        &[
            (
                "transformer.transformer_blocks.0.attn.to_q.lora_A.weight",
                Dtype::F16,
                &[4, 2432],
            ),
            (
                "transformer.transformer_blocks.0.attn.to_q.lora_B.weight",
                Dtype::F16,
                &[2432, 4],
            ),
        ],
        &[],
    ));
    assert_eq!((i.kind, i.family), (ModelKind::Lora, Some("sd3.5")));
}

#[test]
fn checkpoints_of_each_family() {
    let sd1 = file(
        &[
            (
                "model.diffusion_model.input_blocks.0.0.weight",
                Dtype::F16,
                &[320, 4, 3, 3],
            ),
            (
                "model.diffusion_model.input_blocks.1.1.transformer_blocks.0.attn2.to_k.weight",
                Dtype::F16,
                &[320, 768],
            ),
            (
                "cond_stage_model.transformer.text_model.embeddings.token_embedding.weight",
                Dtype::F16,
                &[16, 768],
            ),
            (
                "first_stage_model.decoder.conv_in.weight",
                Dtype::F32,
                &[8, 4, 3, 3],
            ),
        ],
        &[],
    );
    let i = inspect_bytes(&sd1);
    assert_eq!(
        (i.kind, i.family, i.rank),
        (ModelKind::Checkpoint, Some("sd"), None)
    );
    assert_eq!(i.dtype, Some(Dtype::F16));

    let sd2 = file(
        &[(
            "model.diffusion_model.input_blocks.1.1.transformer_blocks.0.attn2.to_k.weight",
            Dtype::F16,
            &[320, 1024],
        )],
        &[],
    );
    let i = inspect_bytes(&sd2);
    assert_eq!(
        (i.kind, i.family, i.architecture.as_deref()),
        (ModelKind::Checkpoint, Some("sd"), Some("sd2"))
    );

    let sdxl = file(
        &[
            (
                "conditioner.embedders.1.model.ln_final.weight",
                Dtype::F16,
                &[1280],
            ),
            (
                "model.diffusion_model.input_blocks.4.1.transformer_blocks.0.attn2.to_k.weight",
                Dtype::F16,
                &[640, 2048],
            ),
        ],
        &[],
    );
    assert_eq!(inspect_bytes(&sdxl).family, Some("sdxl"));
    assert_eq!(inspect_bytes(&sdxl).kind, ModelKind::Checkpoint);

    let flux = file(
        &[
            (
                "double_blocks.0.img_attn.norm.key_norm.scale",
                Dtype::BF16,
                &[128],
            ),
            ("single_blocks.0.norm.key_norm.scale", Dtype::BF16, &[128]),
            ("img_in.weight", Dtype::BF16, &[3072, 64]),
        ],
        &[],
    );
    let i = inspect_bytes(&flux);
    assert_eq!((i.kind, i.family), (ModelKind::Checkpoint, Some("flux")));

    let sd35 = file(
        &[(
            "model.diffusion_model.joint_blocks.0.x_block.attn.proj.bias",
            Dtype::F16,
            &[2432],
        )],
        &[],
    );
    let i = inspect_bytes(&sd35);
    assert_eq!((i.kind, i.family), (ModelKind::Checkpoint, Some("sd3.5")));

    let sd3_medium = file(
        &[(
            "model.diffusion_model.joint_blocks.0.x_block.attn.proj.bias",
            Dtype::F16,
            &[1536],
        )],
        &[],
    );
    let i = inspect_bytes(&sd3_medium);
    assert_eq!(
        (i.kind, i.family, i.architecture.as_deref()),
        (ModelKind::Checkpoint, None, Some("sd3"))
    );

    let hidream = file(
        &[(
            "double_stream_blocks.0.block.attn1.q_rms_norm.weight",
            Dtype::BF16,
            &[2560],
        )],
        &[],
    );
    let i = inspect_bytes(&hidream);
    assert_eq!((i.kind, i.family), (ModelKind::Checkpoint, Some("hidream")));
}

#[test]
fn embeddings_sd1_and_sdxl() {
    let i = inspect_bytes(&file(&[("emb_params", Dtype::F32, &[4, 768])], &[]));
    assert_eq!(
        (i.kind, i.family, i.embedding_vectors),
        (ModelKind::Embedding, Some("sd"), Some(4))
    );
    let i = inspect_bytes(&file(
        &[
            ("clip_g", Dtype::F32, &[2, 1280]),
            ("clip_l", Dtype::F32, &[2, 768]),
        ],
        &[],
    ));
    assert_eq!(
        (i.kind, i.family, i.embedding_vectors),
        (ModelKind::Embedding, Some("sdxl"), Some(2))
    );
    let i = inspect_bytes(&file(&[("string_to_param.*", Dtype::F32, &[1, 1024])], &[]));
    assert_eq!(
        (i.kind, i.architecture.as_deref()),
        (ModelKind::Embedding, Some("sd2"))
    );
}

#[test]
fn a_vae_alone_is_unknown_and_metadata_names_the_architecture() {
    let i = inspect_bytes(&file(
        &[("encoder.conv_in.weight", Dtype::F32, &[8, 3, 3, 3])],
        &[],
    ));
    assert_eq!(
        (i.kind, i.family, i.architecture),
        (ModelKind::Unknown, None, None)
    );
    let i = inspect_bytes(&file(
        &[("encoder.conv_in.weight", Dtype::F32, &[8, 3, 3, 3])],
        &[("modelspec.architecture", "stable-diffusion-xl-v1-base/vae")],
    ));
    assert_eq!((i.kind, i.family), (ModelKind::Unknown, Some("sdxl")));
    let i = inspect_bytes(&file(
        &[("encoder.conv_in.weight", Dtype::F32, &[8, 3, 3, 3])],
        &[("modelspec.architecture", "wan-2.1")],
    ));
    assert_eq!(
        (i.family, i.architecture.as_deref()),
        (None, Some("wan-2.1"))
    );
}
