//! The one mapping from failures to HTTP responses: every handler returns
//! `Result<_, ApiError>` and this file turns it into the envelope with the
//! catalogue's code, key and HTTP status. Internal details go to the log,
//! never to the client.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use protocol::{Envelope, ErrorCode};

#[derive(Debug)]
pub struct ApiError {
    pub code: ErrorCode,
    /// A safe, user-facing message overriding the catalogue's default.
    pub msg: Option<String>,
}

impl ApiError {
    pub fn new(code: ErrorCode) -> ApiError {
        ApiError { code, msg: None }
    }

    pub fn with_msg(code: ErrorCode, msg: impl Into<String>) -> ApiError {
        ApiError {
            code,
            msg: Some(msg.into()),
        }
    }

    /// An unexpected fault: logged with its cause, answered as a bare 500.
    pub fn internal(cause: impl std::fmt::Display) -> ApiError {
        tracing::error!(error = %cause, "internal error");
        ApiError::new(ErrorCode::Internal)
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.code)
    }
}

impl From<ErrorCode> for ApiError {
    fn from(code: ErrorCode) -> Self {
        ApiError::new(code)
    }
}

impl From<infra::store::StoreError> for ApiError {
    fn from(e: infra::store::StoreError) -> Self {
        match e {
            infra::store::StoreError::Unavailable(_) => {
                tracing::error!(error = %e, "store unavailable");
                ApiError::new(ErrorCode::Unavailable)
            }
            other => ApiError::internal(other),
        }
    }
}

/// An object key built by the server itself; a bad one is a server fault.
pub fn object_key(key: &str) -> Result<infra::objects::ObjectKey, ApiError> {
    infra::objects::ObjectKey::parse(key).map_err(ApiError::internal)
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        StatusCode::from_u16(self.code.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }

    fn error_response(&self) -> HttpResponse {
        HttpResponse::build(self.status_code())
            .json(Envelope::<Option<()>>::error(self.code, self.msg.clone()))
    }
}

/// Success: the envelope with `data`.
pub fn ok<T: serde::Serialize>(data: T) -> HttpResponse {
    HttpResponse::Ok().json(Envelope::ok(data))
}

pub type ApiResult = Result<HttpResponse, ApiError>;

/// Bad JSON bodies, wrong content types and oversize bodies answer with the
/// envelope too, not actix's plain-text errors.
/// A query string that does not fit its type answers the envelope (400).
pub fn query_config() -> actix_web::web::QueryConfig {
    actix_web::web::QueryConfig::default().error_handler(|err, _req| {
        ApiError::with_msg(ErrorCode::InvalidParams, err.to_string()).into()
    })
}

/// A path segment that does not fit its type answers the envelope (400).
pub fn path_config() -> actix_web::web::PathConfig {
    actix_web::web::PathConfig::default().error_handler(|err, _req| {
        ApiError::with_msg(ErrorCode::InvalidParams, err.to_string()).into()
    })
}

pub fn json_config(limit: usize) -> actix_web::web::JsonConfig {
    actix_web::web::JsonConfig::default()
        .limit(limit)
        .error_handler(|err, _req| {
            use actix_web::error::JsonPayloadError as J;
            let api = match &err {
                J::OverflowKnownLength { .. } | J::Overflow { .. } => {
                    ApiError::new(ErrorCode::PayloadTooLarge)
                }
                J::ContentType => {
                    ApiError::with_msg(ErrorCode::InvalidParams, "expected application/json")
                }
                J::Deserialize(e) => ApiError::with_msg(ErrorCode::InvalidParams, e.to_string()),
                other => ApiError::with_msg(ErrorCode::InvalidParams, other.to_string()),
            };
            api.into()
        })
}
