//! Easel's wire contract: everything that crosses the network is defined here
//! and only here.
//!
//! Architecture Invariant: this crate does no I/O (except the optional
//! `client` module) and knows nothing of actix, redb, scylla or redis. Types
//! that derive `Serialize` here *are* the contract; other crates convert to
//! and from them at their edges.

/// `utoipa` schemas of the types serialised as integers (`try_from`/`into`
/// or `transparent`): an integer, limited to `codes` when they are given.
#[cfg(feature = "openapi")]
macro_rules! integer_schema {
    ($name:ty, $about:expr) => {
        integer_schema!($name, $about, None::<[i64; 0]>);
    };
    ($name:ty, $about:expr, [$($code:expr),* $(,)?]) => {
        integer_schema!($name, $about, Some([$($code as i64),*]));
    };
    ($name:ty, $about:expr, $codes:expr) => {
        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                utoipa::openapi::schema::ObjectBuilder::new()
                    .schema_type(utoipa::openapi::schema::Type::Integer)
                    .description(Some($about))
                    .enum_values($codes)
                    .into()
            }
        }
        impl utoipa::ToSchema for $name {}
    };
}

/// `utoipa` schemas of the types serialised as strings by hand: a string,
/// one of `values`.
#[cfg(feature = "openapi")]
macro_rules! string_schema {
    ($name:ty, $about:expr, [$($value:expr),* $(,)?]) => {
        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                utoipa::openapi::schema::ObjectBuilder::new()
                    .schema_type(utoipa::openapi::schema::Type::String)
                    .description(Some($about))
                    .enum_values(Some([$($value),*]))
                    .into()
            }
        }
        impl utoipa::ToSchema for $name {}
    };
}

/// `utoipa` schemas of the generic list answers (`Items<T>`, pages): each
/// instance is its own schema, named after its item type (`CharacterCardItems`),
/// `items` an array of `T` plus the optional cursor field.
#[cfg(feature = "openapi")]
macro_rules! list_schema {
    ($ty:ident $(, $cursor:literal)?) => {
        #[cfg(feature = "openapi")]
        impl<T: utoipa::ToSchema> utoipa::PartialSchema for $ty<T> {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, Type};
                #[allow(unused_mut)]
                let mut b = ObjectBuilder::new()
                    .schema_type(Type::Object)
                    .property(
                        "items",
                        ArrayBuilder::new()
                            .items(utoipa::openapi::Ref::from_schema_name(T::name())),
                    )
                    .required("items");
                $(
                    b = b.property(
                        $cursor,
                        ObjectBuilder::new()
                            .schema_type(utoipa::openapi::schema::SchemaType::from_iter([
                                Type::String,
                                Type::Null,
                            ])),
                    );
                )?
                b.into()
            }
        }
        #[cfg(feature = "openapi")]
        impl<T: utoipa::ToSchema> utoipa::ToSchema for $ty<T> {
            fn name() -> std::borrow::Cow<'static, str> {
                std::borrow::Cow::Owned(format!("{}{}", T::name(), stringify!($ty)))
            }
            fn schemas(
                out: &mut Vec<(
                    String,
                    utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
                )>,
            ) {
                out.push((T::name().into_owned(), T::schema()));
                T::schemas(out);
            }
        }
    };
}

pub mod account;
pub mod activity;
pub mod agent;
pub mod analytics;
pub mod audio;
pub mod awards;
pub mod character;
pub mod character_extras;
pub mod chat;
pub mod envelope;
pub mod error;
pub mod frame;
pub mod home;
pub mod im;
pub mod mall;
pub mod models;
pub mod moderation;
pub mod ornament;
pub mod prompt;
pub mod prompt_stream;
pub mod rag;
pub mod square;
pub mod task;
pub mod textfilter;
pub mod video;
// Issue 22: questionnaires and short links.
pub mod shortlink;
pub mod survey;

#[cfg(feature = "client")]
pub mod client;

pub use envelope::{Empty, Envelope, Nothing, Status};
pub use error::ErrorCode;
pub use frame::{Codec, Frame, FrameType};
