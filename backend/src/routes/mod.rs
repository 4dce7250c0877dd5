//! The one route table: every REST route of Easel, grouped by the spec's
//! service families, one handler file per family.

use actix_web::web;

mod account;
mod account_deletion;
mod account_mail;
mod activity;
mod admin;
mod agent;
mod analytics;
mod audio;
mod audio_stream;
mod awards;
mod character;
mod character_extras;
mod chat;
mod comment;
mod creativity;
mod dataset;
mod editor;
mod face;
pub mod files;
mod home;
mod home_admin;
mod im;
mod lipsync;
mod model;
mod model_leaderboard;
mod model_rank;
mod moderation;
mod oidc;
mod ornament;
mod payment;
mod phoneinvite;
mod polish;
mod rag;
pub mod resource;
mod search;
mod security;
mod shortlinks;
mod social;
mod square;
mod surveys;
mod system;
pub mod task;
mod text_filter;
mod timbre;
mod tool;
mod train;
mod translate;
mod video;
mod works;

use protocol::task::Action;

pub fn config(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope("/api/v1")
            // Plain routes before the scopes that share their prefixes
            // (a scope takes every path under it).
            .configure(home::routes)
            .configure(works::routes)
            .configure(moderation::routes)
            .configure(social::routes)
            .configure(security::routes)
            .configure(search::routes)
            .configure(square::routes)
            .configure(ornament::routes)
            .configure(timbre::routes)
            .configure(model::routes)
            .configure(model_rank::routes)
            .configure(model_leaderboard::routes)
            .configure(creativity::routes)
            .configure(dataset::routes)
            .configure(train::routes)
            .configure(face::routes)
            .configure(text_filter::routes)
            .configure(account_deletion::routes)
            .configure(phoneinvite::routes)
            .configure(account_mail::routes)
            .configure(awards::routes)
            .configure(activity::routes)
            .configure(analytics::routes)
            .configure(rag::routes)
            .configure(surveys::routes)
            .configure(shortlinks::routes)
            .service(
                web::scope("/account")
                    .route("/sign-up", web::post().to(account::sign_up))
                    .route("/login-in", web::post().to(account::login_in))
                    .route("/logout", web::post().to(account::logout))
                    .route("/info", web::post().to(account::info))
                    .route("/payment-info", web::post().to(account::payment_info))
                    .route("/settings", web::post().to(account::settings))
                    .route(
                        "/complete-profile",
                        web::post().to(account::complete_profile),
                    )
                    .configure(oidc::routes)
                    .route(
                        "/character/setting/get",
                        web::post().to(character_extras::persona_get),
                    )
                    .route(
                        "/character/setting/update",
                        web::post().to(character_extras::persona_update),
                    ),
            )
            .service(
                web::scope("/admin")
                    .route("/account/status", web::post().to(admin::set_account_status))
                    .route("/account/membership", web::post().to(admin::set_membership))
                    .route("/account/company", web::post().to(admin::set_company))
                    .route("/mall/product/list", web::post().to(admin::products))
                    .route(
                        "/mall/product/upsert",
                        web::post().to(admin::upsert_product),
                    )
                    .route("/mall/order/mark-paid", web::post().to(admin::mark_paid))
                    .route(
                        "/mall/order/mark-refunded",
                        web::post().to(admin::mark_refunded),
                    )
                    .route("/credits/grant", web::post().to(admin::grant_credits))
                    .route("/store", web::post().to(admin::store_stats))
                    .route("/square/recount", web::post().to(admin::square_recount))
                    .route(
                        "/character/reports",
                        web::post().to(character_extras::admin_reports),
                    )
                    .route(
                        "/character/unpublish",
                        web::post().to(character_extras::admin_unpublish),
                    ),
            )
            .service(im::scope())
            .configure(character::routes)
            .configure(character_extras::routes)
            .configure(chat::config)
            .configure(comment::routes)
            .configure(payment::routes)
            .service(
                web::scope("/task")
                    .route("/create", web::post().to(task::create))
                    .route("/prompt-render", web::get().to(polish::polish))
                    .service(
                        web::scope("/gen-agent")
                            .route("/conv/create", web::post().to(agent::create))
                            .route("/conv/history", web::post().to(agent::history))
                            .route("/convs", web::post().to(agent::convs))
                            .route("/prompt/preset-template", web::post().to(agent::presets))
                            .route("/prompt/preset-template", web::get().to(agent::presets))
                            .route("/config", web::post().to(agent::config))
                            .route("/config", web::get().to(agent::config)),
                    )
                    .route("/progress", web::post().to(task::progress))
                    .route("/batch-progress", web::post().to(task::batch_progress))
                    .route("/list", web::post().to(task::list))
                    .route("/detail", web::post().to(task::progress))
                    .route("/delete", web::post().to(task::delete))
                    .route("/index/delete", web::post().to(task::delete))
                    .route("/index/batch-delete", web::post().to(task::batch_delete))
                    .route("/save-personal", web::post().to(task::save_personal))
                    .route("/index/save-personal", web::post().to(task::save_personal))
                    .route("/operate", web::post().to(task::operate))
                    .route("/speed-up", web::post().to(task::speed_up))
                    .route(
                        "/text-to-img",
                        web::post().to(task::create_as(Action::TextToImage)),
                    )
                    .route(
                        "/lab/text-to-img",
                        web::post().to(task::create_as(Action::TextToImage)),
                    )
                    .route(
                        "/img-to-img",
                        web::post().to(task::create_as(Action::ImageToImage)),
                    )
                    .route(
                        "/controlNet-to-img",
                        web::post().to(task::create_as(Action::ConditionToImage)),
                    )
                    .route(
                        "/make-variation",
                        web::post().to(task::create_as(Action::Variation)),
                    )
                    .route("/upscale", web::post().to(task::create_as(Action::Upscale)))
                    .service(
                        web::scope("/v2")
                            .service(video::scope())
                            .service(audio::scope())
                            .route(
                                "/text-to-img",
                                web::post().to(task::create_as(Action::TextToImage)),
                            )
                            .route(
                                "/img-to-img",
                                web::post().to(task::create_as(Action::ImageToImage)),
                            )
                            .route("/upscale", web::post().to(task::create_as(Action::Upscale)))
                            .route(
                                "/make-variation",
                                web::post().to(task::create_as(Action::Variation)),
                            )
                            .route(
                                "/controlNet-to-img",
                                web::post().to(task::create_as(Action::ConditionToImage)),
                            )
                            .route(
                                "/img-to-text",
                                web::post().to(task::create_as(Action::Descriptors)),
                            )
                            .route("/estimate", web::post().to(task::estimate))
                            .route("/histories", web::post().to(task::histories))
                            .route("/camera/config", web::post().to(video::camera_config))
                            .route("/camera/config", web::get().to(video::camera_config))
                            .route("/download", web::post().to(task::download))
                            .route("/batch-download", web::post().to(task::batch_download))
                            .route("/config/model", web::post().to(task::config_model))
                            .route("/config/model", web::get().to(task::config_model))
                            .route(
                                "/config/generation-param",
                                web::post().to(task::generation_param),
                            )
                            .route(
                                "/config/generation-param",
                                web::get().to(task::generation_param),
                            )
                            .route("/model-rec", web::post().to(task::model_rec)),
                    ),
            )
            .service(
                web::scope("/resource")
                    .configure(face::resource_routes)
                    .route("/pre-sign/get", web::post().to(resource::pre_sign_get))
                    .route("/pre-sign/confirm", web::post().to(resource::confirm))
                    .route("/pre-sign/confirmPart", web::post().to(resource::confirm))
                    .route(
                        "/pre-sign/confirmFilePart",
                        web::post().to(resource::confirm),
                    )
                    .route(
                        "/pre-sign/getPreSignAddr",
                        web::post().to(resource::pre_sign_addr),
                    )
                    .service(
                        web::resource("/upload/{file_id}/{part}")
                            .app_data(web::PayloadConfig::new(resource::CHUNK_SIZE as usize))
                            .route(web::put().to(resource::put_part)),
                    ),
            )
            .service(
                web::scope("/translate")
                    .route("/locals", web::post().to(translate::locals))
                    .route("/local", web::post().to(translate::local))
                    .route("/18n", web::post().to(translate::labels)),
            )
            .service(
                web::scope("/prompt")
                    .route("/definitions", web::post().to(translate::definitions))
                    .route(
                        "/prompt_{lang}.json",
                        web::get().to(translate::definitions_file),
                    ),
            )
            .route("/tool/prompt/rand", web::post().to(tool::random_prompt))
            .route("/tool/prompt/rand", web::get().to(tool::random_prompt))
            .route("/ping", web::post().to(system::ping))
            .route("/ping", web::get().to(system::ping))
            .route("/are/you/ok", web::post().to(system::are_you_ok))
            .route("/are/you/ok", web::get().to(system::are_you_ok))
            .route("/health", web::get().to(system::health))
            .default_service(web::to(system::not_found)),
    );
    cfg.service(
        web::scope("/searchapi/v1")
            .route("/search/complete", web::post().to(search::complete))
            .default_service(web::to(system::not_found)),
    );
    cfg.service(
        web::scope("/api/stream")
            .route("/tool/prompt/text", web::get().to(polish::polish))
            .route("/task/gen-agent/conv", web::post().to(agent::stream))
            .configure(audio_stream::routes)
            .configure(audio::stream_routes),
    );
    cfg.route("/files/{key:.*}", web::get().to(files::file));
    cfg.configure(analytics::log_routes);
    cfg.route("/s/{code}", web::get().to(shortlinks::follow));
}

/// Operators only (`EASEL_ADMINS`); anyone else answers NoPermission.
pub(crate) fn require_operator(
    s: &crate::state::AppState,
    caller: &crate::auth::Authed,
) -> Result<(), crate::error::ApiError> {
    if s.accounts.is_admin(&caller.0.account) {
        Ok(())
    } else {
        Err(protocol::ErrorCode::NoPermission.into())
    }
}
