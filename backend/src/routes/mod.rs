//! The one route table: every REST route of Easel, grouped by the spec's
//! service families, one handler file per family.

use actix_web::web;

mod account;
mod admin;
mod system;

pub fn config(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope("/api/v1")
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
                    ),
            )
            .service(
                web::scope("/admin")
                    .route("/account/status", web::post().to(admin::set_account_status)),
            )
            .route("/ping", web::post().to(system::ping))
            .route("/ping", web::get().to(system::ping))
            .route("/are/you/ok", web::post().to(system::ping))
            .route("/are/you/ok", web::get().to(system::ping))
            .route("/health", web::get().to(system::health))
            .default_service(web::to(system::not_found)),
    );
}
