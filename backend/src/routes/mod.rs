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
pub mod api;
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
pub mod openapi;
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
#[cfg(test)]
mod table_tests;
pub mod task;
mod text_filter;
mod timbre;
mod tool;
mod train;
mod translate;
mod video;
mod works;

use protocol::account as acct;
use protocol::task::Action;

use api::{doc, Api};

/// Registers every REST route on `cfg` (see `api`: each registration also
/// records the call's OpenAPI operation).
pub fn config(cfg: &mut web::ServiceConfig) {
    table(&mut Api::serve(cfg));
}

/// The route table, in registration order (actix tries routes in order; a
/// scope takes every path under it, so plain routes come before the scopes
/// that share their prefixes). Every scope answers an unknown path with the
/// envelope's 404.
pub fn table(api: &mut Api) {
    api.scope("/api/v1", |api| {
        api.family("home", home::routes)
            .family("works", works::routes)
            .family("moderation", moderation::routes)
            .family("social", social::routes)
            .family("security", security::routes)
            .family("search", search::routes)
            .family("square", square::routes)
            .family("ornament", ornament::routes)
            .family("timbre", timbre::routes)
            .family("model", model::routes)
            .family("model", model_rank::routes)
            .family("model", model_leaderboard::routes)
            .family("creativity", creativity::routes)
            .family("dataset", dataset::routes)
            .family("train", train::routes)
            .family("face", face::routes)
            .family("text_filter", text_filter::routes)
            .family("account", account_deletion::routes)
            .family("account", phoneinvite::routes)
            .family("account", account_mail::routes)
            .family("awards", awards::routes)
            .family("activity", activity::routes)
            .family("analytics", analytics::routes)
            .family("rag", rag::routes)
            .family("surveys", surveys::routes)
            .family("shortlinks", shortlinks::routes)
            .family("account", |api| {
                api.scope("/account", |api| {
                    api.post(
                        "/sign-up",
                        account::sign_up,
                        doc("Create an account")
                            .body::<acct::SignUpRequest>()
                            .reply::<acct::LoginData>(),
                    )
                    .post(
                        "/login-in",
                        account::login_in,
                        doc("Sign in with e-mail and password")
                            .body::<acct::LoginRequest>()
                            .reply::<account::LoginAnswer>(),
                    )
                    .post(
                        "/logout",
                        account::logout,
                        doc("End the caller's token").reply::<protocol::Nothing>(),
                    )
                    .post(
                        "/info",
                        account::info,
                        doc("The caller's account").reply::<acct::AccountInfo>(),
                    )
                    .post(
                        "/payment-info",
                        account::payment_info,
                        doc("The caller's payment information").reply::<acct::PaymentInfo>(),
                    )
                    .post(
                        "/settings",
                        account::settings,
                        doc("Change the caller's settings").reply::<acct::UserSettings>(),
                    )
                    .post(
                        "/complete-profile",
                        account::complete_profile,
                        doc("Complete the caller's profile").body::<acct::CompleteProfileRequest>(),
                    )
                    .family("oidc", oidc::routes)
                    .post(
                        "/character/setting/get",
                        character_extras::persona_get,
                        doc("The caller's chat persona").reply::<protocol::character_extras::PersonaView>(),
                    )
                    .post(
                        "/character/setting/update",
                        character_extras::persona_update,
                        doc("Change the caller's chat persona")
                            .body::<protocol::character_extras::PersonaUpdate>().reply::<protocol::character_extras::PersonaView>(),
                    );
                });
            })
            .family("admin", |api| {
                api.scope("/admin", |api| {
                    api.post(
                        "/account/status",
                        admin::set_account_status,
                        doc("Operators: set an account's status")
                            .body::<protocol::account::SetStatusRequest>(),
                    )
                    .post(
                        "/account/membership",
                        admin::set_membership,
                        doc("Operators: grant or end a membership"),
                    )
                    .post(
                        "/account/company",
                        admin::set_company,
                        doc("Operators: mark a company account"),
                    )
                    .post(
                        "/mall/product/list",
                        admin::products,
                        doc("Operators: every product, hidden ones too"),
                    )
                    .post(
                        "/mall/product/upsert",
                        admin::upsert_product,
                        doc("Operators: add or change a product").body::<protocol::mall::Product>(),
                    )
                    .post(
                        "/mall/order/mark-paid",
                        admin::mark_paid,
                        doc("Operators: mark a manual order paid"),
                    )
                    .post(
                        "/mall/order/mark-refunded",
                        admin::mark_refunded,
                        doc("Operators: mark a manual order refunded"),
                    )
                    .post(
                        "/credits/grant",
                        admin::grant_credits,
                        doc("Operators: grant credits (once per key)"),
                    )
                    .post(
                        "/store",
                        admin::store_stats,
                        doc("Operators: the store's write counters"),
                    )
                    .post(
                        "/square/recount",
                        admin::square_recount,
                        doc("Operators: mend a work's like and collect counters"),
                    )
                    .post(
                        "/character/reports",
                        character_extras::admin_reports,
                        doc("Operators: reports against characters")
                            .body::<protocol::character_extras::ReportListRequest>().reply::<protocol::character::ListAnswer<protocol::character_extras::ReportView>>(),
                    )
                    .post(
                        "/character/unpublish",
                        character_extras::admin_unpublish,
                        doc("Operators: unpublish a character")
                            .body::<protocol::character_extras::UnpublishRequest>().reply::<character_extras::Unpublished>(),
                    );
                });
            })
            .family("im", im::routes)
            .family("character", character::routes)
            .family("character", character_extras::routes)
            .family("chat", chat::config)
            .family("comment", comment::routes)
            .family("payment", payment::routes)
            .family("task", |api| {
                api.scope("/task", task_routes);
            })
            .family("resource", |api| {
                api.scope("/resource", |api| {
                    api.family("face", face::resource_routes)
                        .post(
                            "/pre-sign/get",
                            resource::pre_sign_get,
                            doc("Start an upload: its file id and part URLs"),
                        )
                        .post(
                            "/pre-sign/confirm",
                            resource::confirm,
                            doc("Confirm an upload (or one part)"),
                        )
                        .post(
                            "/pre-sign/confirmPart",
                            resource::confirm,
                            doc("Confirm an upload part"),
                        )
                        .post(
                            "/pre-sign/confirmFilePart",
                            resource::confirm,
                            doc("Confirm an upload part (file path)"),
                        )
                        .post(
                            "/pre-sign/getPreSignAddr",
                            resource::pre_sign_addr,
                            doc("An unfinished upload's part URLs and received parts"),
                        )
                        .put_limited(
                            "/upload/{file_id}/{part}",
                            resource::CHUNK_SIZE as usize,
                            resource::put_part,
                            doc("Upload one part of a file")
                                .upload("application/octet-stream")
                                .query(&["t"]),
                        );
                });
            })
            .family("translate", |api| {
                api.scope("/translate", |api| {
                    api.post("/locals", translate::locals, doc("The interface languages"))
                        .post(
                            "/local",
                            translate::local,
                            doc("Translate text for the interface"),
                        )
                        .post(
                            "/18n",
                            translate::labels,
                            doc("Interface labels in a language"),
                        );
                })
                .scope("/prompt", |api| {
                    api.post(
                        "/definitions",
                        translate::definitions,
                        doc("Prompt word definitions by category"),
                    )
                    .get(
                        "/prompt_{lang}.json",
                        translate::definitions_file,
                        doc("The whole prompt word map of a language"),
                    );
                });
            })
            .family("tool", |api| {
                api.post_get(
                    "/tool/prompt/rand",
                    tool::random_prompt,
                    doc("A random prompt"),
                );
            })
            .family("system", |api| {
                api.post_get(
                    "/ping",
                    system::ping,
                    doc("Liveness: answers pong").reply::<String>(),
                )
                .post_get(
                    "/are/you/ok",
                    system::are_you_ok,
                    doc("Health of the store, queue and bus (503 when one is down)"),
                )
                .get(
                    "/health",
                    system::health,
                    doc("Version and backends in use").reply::<system::Health>(),
                );
            });
    });
    api.family("search", |api| {
        api.scope("/searchapi/v1", |api| {
            api.post(
                "/search/complete",
                search::complete,
                doc("Search completions (search service path)")
                    .body::<protocol::square::search::CompleteRequest>(),
            );
        });
    });
    api.family("stream", |api| {
        api.scope("/api/stream", |api| {
            api.get(
                "/tool/prompt/text",
                polish::polish,
                doc("Polish a prompt (server-sent events)")
                    .raw(SSE)
                    .query(&["prompt"]),
            )
            .post(
                "/task/gen-agent/conv",
                agent::stream,
                doc("One generation agent turn (server-sent events)").raw(SSE),
            )
            .family("audio", audio_stream::routes)
            .family("audio", audio::stream_routes);
        });
    });
    api.family("system", |api| {
        // After `/api/v1` and `/api/stream`: this scope takes every other
        // `/api` path, so an unknown one answers the envelope's 404.
        api.scope("/api", |api| {
            api.get(
                "/openapi.json",
                openapi::openapi_json,
                doc("This description of every REST call (OpenAPI 3.1)").raw("application/json"),
            )
            .get(
                "/docs",
                openapi::docs_page,
                doc("The interactive page of this description, for operators").raw("text/html"),
            );
        });
    });
    api.family("files", |api| {
        api.get(
            "/files/{key:.*}",
            files::file,
            doc("A stored file, with HTTP ranges").raw("application/octet-stream"),
        );
    });
    api.family("analytics", analytics::log_routes);
    api.family("shortlinks", |api| {
        api.get(
            "/s/{code}",
            shortlinks::follow,
            doc("Follow a short link (302 to its target)").raw("text/plain"),
        );
    });
    // Whatever else these prefixes hold answers the envelope's 404 (not the
    // web app's page, not a bare 404 or 405).
    for prefix in ["/files", "/s", "/log", "/searchapi"] {
        api.scope(prefix, |_| {});
    }
}

pub use system::not_found;

/// Server-sent events.
pub(crate) const SSE: &str = "text/event-stream";

/// `/api/v1/task/...`.
fn task_routes(api: &mut Api) {
    api.post(
        "/create",
        task::create,
        doc("Create a generation task")
            .body::<protocol::task::CreateTaskRequest>()
            .reply::<protocol::character::IdAnswer>(),
    )
    .get(
        "/prompt-render",
        polish::polish,
        doc("Polish a prompt (server-sent events)")
            .raw(SSE)
            .query(&["prompt"]),
    )
    .family("agent", |api| {
        api.scope("/gen-agent", |api| {
            api.post(
                "/conv/create",
                agent::create,
                doc("Start a generation agent conversation")
                    .body::<protocol::agent::ConvCreateRequest>()
                    .reply::<protocol::agent::ConvCreated>(),
            )
            .post(
                "/conv/history",
                agent::history,
                doc("A generation agent conversation's turns")
                    .body::<protocol::agent::ConvRef>()
                    .reply::<protocol::agent::Items<protocol::agent::AgentMessageView>>(),
            )
            .post(
                "/convs",
                agent::convs,
                doc("The caller's generation agent conversations")
                    .reply::<protocol::agent::Items<protocol::agent::ConvView>>(),
            )
            .post_get(
                "/prompt/preset-template",
                agent::presets,
                doc("The generation agent's starter templates")
                    .reply::<protocol::agent::Items<protocol::agent::PresetTemplate>>(),
            )
            .post_get(
                "/config",
                agent::config,
                doc("The generation agent's configuration").reply::<protocol::agent::AgentConfig>(),
            );
        });
    })
    .post(
        "/progress",
        task::progress,
        doc("A task's progress")
            .body::<protocol::task::view::TaskRef>()
            .reply::<protocol::task::view::TaskView>(),
    )
    .post(
        "/batch-progress",
        task::batch_progress,
        doc("Several tasks' progress")
            .body::<protocol::task::view::BatchProgressRequest>()
            .reply::<protocol::character::Items<protocol::task::view::TaskView>>(),
    )
    .post(
        "/list",
        task::list,
        doc("The caller's tasks")
            .body::<protocol::task::view::ListRequest>()
            .reply::<protocol::task::view::ListAnswer>(),
    )
    .post(
        "/detail",
        task::progress,
        doc("One task")
            .body::<protocol::task::view::TaskRef>()
            .reply::<protocol::task::view::TaskView>(),
    )
    .post(
        "/delete",
        task::delete,
        doc("Delete a task")
            .body::<protocol::task::view::TaskRef>()
            .reply::<protocol::Empty>(),
    )
    .post(
        "/index/delete",
        task::delete,
        doc("Delete a task (index path)")
            .body::<protocol::task::view::TaskRef>()
            .reply::<protocol::Empty>(),
    )
    .post(
        "/index/batch-delete",
        task::batch_delete,
        doc("Delete several tasks")
            .body::<protocol::task::view::TaskIdsRequest>()
            .reply::<task::DeletedAnswer>(),
    )
    .post(
        "/save-personal",
        task::save_personal,
        doc("Save a task's outputs to the caller's works")
            .body::<protocol::task::view::TaskRef>()
            .reply::<protocol::task::view::TaskView>(),
    )
    .post(
        "/index/save-personal",
        task::save_personal,
        doc("Save a task's outputs (index path)")
            .body::<protocol::task::view::TaskRef>()
            .reply::<protocol::task::view::TaskView>(),
    )
    .post(
        "/operate",
        task::operate,
        doc("Cancel, retry or otherwise operate on a task")
            .body::<protocol::task::view::OperateRequest>()
            .reply::<protocol::task::view::TaskView>(),
    )
    .post(
        "/speed-up",
        task::speed_up,
        doc("Speed a queued task up with credits")
            .body::<protocol::task::view::TaskRef>()
            .reply::<protocol::task::view::TaskView>(),
    )
    .post(
        "/text-to-img",
        task::create_as(Action::TextToImage),
        doc("Create a text-to-image task")
            .body::<protocol::task::CreateTaskRequest>()
            .reply::<protocol::character::IdAnswer>(),
    )
    .post(
        "/lab/text-to-img",
        task::create_as(Action::TextToImage),
        doc("Create a text-to-image task (lab path)")
            .body::<protocol::task::CreateTaskRequest>()
            .reply::<protocol::character::IdAnswer>(),
    )
    .post(
        "/img-to-img",
        task::create_as(Action::ImageToImage),
        doc("Create an image-to-image task")
            .body::<protocol::task::CreateTaskRequest>()
            .reply::<protocol::character::IdAnswer>(),
    )
    .post(
        "/controlNet-to-img",
        task::create_as(Action::ConditionToImage),
        doc("Create a condition-to-image (control) task")
            .body::<protocol::task::CreateTaskRequest>()
            .reply::<protocol::character::IdAnswer>(),
    )
    .post(
        "/make-variation",
        task::create_as(Action::Variation),
        doc("Create a variation task")
            .body::<protocol::task::CreateTaskRequest>()
            .reply::<protocol::character::IdAnswer>(),
    )
    .post(
        "/upscale",
        task::create_as(Action::Upscale),
        doc("Create an upscale task")
            .body::<protocol::task::CreateTaskRequest>()
            .reply::<protocol::character::IdAnswer>(),
    )
    .scope("/v2", |api| {
        api.family("video", video::routes)
            .family("audio", audio::routes)
            .post(
                "/text-to-img",
                task::create_as(Action::TextToImage),
                doc("Create a text-to-image task")
                    .body::<protocol::task::CreateTaskRequest>()
                    .reply::<protocol::character::IdAnswer>(),
            )
            .post(
                "/img-to-img",
                task::create_as(Action::ImageToImage),
                doc("Create an image-to-image task")
                    .body::<protocol::task::CreateTaskRequest>()
                    .reply::<protocol::character::IdAnswer>(),
            )
            .post(
                "/upscale",
                task::create_as(Action::Upscale),
                doc("Create an upscale task")
                    .body::<protocol::task::CreateTaskRequest>()
                    .reply::<protocol::character::IdAnswer>(),
            )
            .post(
                "/make-variation",
                task::create_as(Action::Variation),
                doc("Create a variation task")
                    .body::<protocol::task::CreateTaskRequest>()
                    .reply::<protocol::character::IdAnswer>(),
            )
            .post(
                "/controlNet-to-img",
                task::create_as(Action::ConditionToImage),
                doc("Create a condition-to-image (control) task")
                    .body::<protocol::task::CreateTaskRequest>()
                    .reply::<protocol::character::IdAnswer>(),
            )
            .post(
                "/img-to-text",
                task::create_as(Action::Descriptors),
                doc("Create a task that describes a picture")
                    .body::<protocol::task::CreateTaskRequest>()
                    .reply::<protocol::character::IdAnswer>(),
            )
            .post(
                "/estimate",
                task::estimate,
                doc("Estimate a task's cost and time")
                    .body::<protocol::task::CreateTaskRequest>()
                    .reply::<protocol::task::view::EstimateAnswer>(),
            )
            .post(
                "/histories",
                task::histories,
                doc("The caller's task history")
                    .body::<protocol::task::view::ListRequest>()
                    .reply::<protocol::task::view::ListAnswer>(),
            )
            .family("video", |api| {
                api.post_get(
                    "/camera/config",
                    video::camera_config,
                    doc("The camera control modes"),
                );
            })
            .post(
                "/download",
                task::download,
                doc("Download a task's outputs (a file or a zip)")
                    .body::<protocol::task::view::TaskRef>()
                    .raw("application/octet-stream"),
            )
            .post(
                "/batch-download",
                task::batch_download,
                doc("Download several tasks' outputs as a zip")
                    .body::<protocol::task::view::TaskIdsRequest>()
                    .raw("application/zip"),
            )
            .post_get(
                "/config/model",
                task::config_model,
                doc("The model catalogue").reply::<protocol::task::catalogue::Catalogue>(),
            )
            .post_get(
                "/config/generation-param",
                task::generation_param,
                doc("Generation defaults per creative mode").reply::<task::GenerationParams>(),
            )
            .post(
                "/model-rec",
                task::model_rec,
                doc("Recommended checkpoints").reply::<task::CheckpointList>(),
            );
    });
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
