//! The REST envelope every JSON response is wrapped in:
//! `{"status": {"code", "msg", "key"}, "data"}` with code 10000 for success.

use serde::{Deserialize, Serialize};

use crate::error::{ErrorCode, SUCCESS_CODE};

/// `status` of an envelope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Status {
    pub code: i32,
    pub msg: String,
    /// The spec's message key where one applies; `null` on success.
    pub key: Option<String>,
}

impl Status {
    pub fn ok() -> Self {
        Status {
            code: SUCCESS_CODE,
            msg: "success".into(),
            key: None,
        }
    }

    pub fn is_ok(&self) -> bool {
        self.code == SUCCESS_CODE
    }

    /// The typed error, when this status is one of the catalogue's.
    pub fn error(&self) -> Option<ErrorCode> {
        ErrorCode::from_code(self.code)
    }
}

/// The `data` of a call that answers only its success: `{}`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Empty {}

/// The `data` of a call that answers only its success as `null`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Nothing;

#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for Nothing {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::Null)
            .description(Some("null: the call succeeded, with nothing more to say"))
            .into()
    }
}
#[cfg(feature = "openapi")]
impl utoipa::ToSchema for Nothing {}

/// A whole response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Envelope<T> {
    pub status: Status,
    pub data: T,
}

impl<T> Envelope<T> {
    pub fn ok(data: T) -> Self {
        Envelope {
            status: Status::ok(),
            data,
        }
    }
}

impl<T: Default> Envelope<T> {
    /// An error envelope; `msg` overrides the catalogue's default message.
    pub fn error(code: ErrorCode, msg: Option<String>) -> Self {
        Envelope {
            status: Status {
                code: code.code(),
                msg: msg.unwrap_or_else(|| code.default_msg().to_owned()),
                key: Some(code.key().to_owned()),
            },
            data: T::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn success_envelope_is_pinned() {
        let env = Envelope::ok(serde_json::json!({"id": "a"}));
        assert_eq!(
            serde_json::to_string(&env).unwrap(),
            r#"{"status":{"code":10000,"msg":"success","key":null},"data":{"id":"a"}}"#
        );
        let back: Envelope<serde_json::Value> =
            serde_json::from_str(&serde_json::to_string(&env).unwrap()).unwrap();
        assert!(back.status.is_ok());
        assert_eq!(back, env);
    }
}
