//! `GET /api/openapi.json`: the OpenAPI 3.1 description of every REST call,
//! built with `utoipa` from the operations the route table records
//! (`super::api`). Every JSON answer is the envelope `{status, data}`; a
//! call's `data` has its reply type's schema where the route names one.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use actix_web::HttpResponse;
use utoipa::openapi::path::{
    HttpMethod, OperationBuilder, ParameterBuilder, ParameterIn, PathItem, PathsBuilder,
};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::schema::{
    ComponentsBuilder, ObjectBuilder, Schema, SchemaFormat, SchemaType, Type,
};
use utoipa::openapi::security::{ApiKey, ApiKeyValue, SecurityRequirement, SecurityScheme};
use utoipa::openapi::tag::TagBuilder;
use utoipa::openapi::{
    ContentBuilder, InfoBuilder, OpenApi, OpenApiBuilder, Ref, RefOr, Required, ResponseBuilder,
    ResponsesBuilder,
};

use super::api::{Method, Operation, Output};

/// The header calls authenticate with (DESIGN.md Contracts).
const TOKEN_SCHEME: &str = "token";

fn any() -> RefOr<Schema> {
    ObjectBuilder::new()
        .schema_type(SchemaType::AnyValue)
        .build()
        .into()
}

fn typed(t: Type) -> ObjectBuilder {
    ObjectBuilder::new().schema_type(t)
}

fn status_schema() -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::Object)
        .description(Some(
            "code 10000 is success; key is the spec's message key (null on success)",
        ))
        .property(
            "code",
            typed(Type::Integer).format(Some(SchemaFormat::KnownFormat(
                utoipa::openapi::KnownFormat::Int32,
            ))),
        )
        .required("code")
        .property("msg", typed(Type::String))
        .required("msg")
        .property(
            "key",
            ObjectBuilder::new().schema_type(SchemaType::from_iter([Type::String, Type::Null])),
        )
        .required("key")
        .into()
}

/// `{status, data}` with `data` of `data`'s schema.
fn envelope(data: RefOr<Schema>) -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::Object)
        .property("status", Ref::from_schema_name("Status"))
        .required("status")
        .property("data", data)
        .required("data")
        .into()
}

fn http_method(m: Method) -> HttpMethod {
    match m {
        Method::Get => HttpMethod::Get,
        Method::Post => HttpMethod::Post,
        Method::Put => HttpMethod::Put,
    }
}

/// `post /api/v1/account/sign-up` → `post_api_v1_account_sign_up`.
fn operation_id(op: &Operation) -> String {
    let mut id = String::from(op.method.as_str());
    for c in op.path.chars() {
        if c.is_ascii_alphanumeric() {
            id.push(c);
        } else if !id.ends_with('_') {
            id.push('_');
        }
    }
    id.trim_end_matches('_').to_owned()
}

/// The named schemas, once each. Two types may not share a name (a body
/// would be described by another type's schema): registration panics, so
/// every test run fails.
fn distinct(schemas: Vec<(String, RefOr<Schema>)>) -> BTreeMap<String, RefOr<Schema>> {
    let mut out = BTreeMap::new();
    let mut shared = BTreeSet::new();
    for (name, schema) in schemas {
        if out.get(&name).is_some_and(|kept| kept != &schema) {
            shared.insert(name.clone());
        }
        out.insert(name, schema);
    }
    assert!(
        shared.is_empty(),
        "types share the OpenAPI schema names {shared:?}: rename them with #[schema(as = ...)]"
    );
    out
}

/// The description of `ops`.
pub fn document(ops: &[Operation]) -> OpenApi {
    let mut schemas: Vec<(String, RefOr<Schema>)> = Vec::new();
    let mut paths = PathsBuilder::new();
    let mut tags = BTreeSet::new();
    for op in ops {
        tags.insert(op.tag);
        let d = &op.doc;
        let mut o = OperationBuilder::new()
            .operation_id(Some(operation_id(op)))
            .summary(Some(d.summary))
            .description(d.about)
            .tag(op.tag)
            .securities(Some([
                SecurityRequirement::new(TOKEN_SCHEME, Vec::<String>::new()),
                SecurityRequirement::default(),
            ]));
        for name in op.path_params() {
            o = o.parameter(
                ParameterBuilder::new()
                    .name(name)
                    .parameter_in(ParameterIn::Path)
                    .required(Required::True)
                    .schema(Some(typed(Type::String))),
            );
        }
        for name in d.query {
            o = o.parameter(
                ParameterBuilder::new()
                    .name(*name)
                    .parameter_in(ParameterIn::Query)
                    .required(Required::False)
                    .schema(Some(typed(Type::String))),
            );
        }
        if let Some(media) = d.upload {
            o = o.request_body(Some(
                RequestBodyBuilder::new()
                    .content(
                        media,
                        ContentBuilder::new()
                            .schema(Some(typed(Type::String).format(Some(
                                SchemaFormat::KnownFormat(utoipa::openapi::KnownFormat::Binary),
                            ))))
                            .build(),
                    )
                    .build(),
            ));
        } else if op.method != Method::Get {
            let schema = match d.body {
                Some(f) => f(&mut schemas),
                None => typed(Type::Object).into(),
            };
            o = o.request_body(Some(
                RequestBodyBuilder::new()
                    .content(
                        "application/json",
                        ContentBuilder::new().schema(Some(schema)).build(),
                    )
                    .build(),
            ));
        }
        let success = match d.output {
            Output::Envelope => {
                let data = match d.reply {
                    Some(f) => f(&mut schemas),
                    None => any(),
                };
                ResponseBuilder::new()
                    .description("success: the envelope with code 10000")
                    .content(
                        "application/json",
                        ContentBuilder::new().schema(Some(envelope(data))).build(),
                    )
            }
            Output::Raw(media) => ResponseBuilder::new()
                .description("success: the content itself (not the envelope)")
                .content(media, ContentBuilder::new().schema(Some(any())).build()),
        };
        o = o.responses(
            ResponsesBuilder::new().response("200", success).response(
                "default",
                ResponseBuilder::new()
                    .description("a failure: the envelope with the error's code and key")
                    .content(
                        "application/json",
                        ContentBuilder::new()
                            .schema(Some(Ref::from_schema_name("Envelope")))
                            .build(),
                    ),
            ),
        );
        paths = paths.path(op.path.clone(), PathItem::new(http_method(op.method), o));
    }
    let mut components = ComponentsBuilder::new()
        .schema("Status", status_schema())
        .schema("Envelope", envelope(any()))
        .security_scheme(
            TOKEN_SCHEME,
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                TOKEN_SCHEME,
                "the token that sign-up and login-in answer (never the cookie)",
            ))),
        );
    for (name, schema) in distinct(schemas) {
        components = components.schema(name, schema);
    }
    OpenApiBuilder::new()
        .info(
            InfoBuilder::new()
                .title("Easel")
                .version(env!("CARGO_PKG_VERSION"))
                .description(Some(
                    "Every REST call of Easel. Every JSON answer is the envelope \
`{status: {code, msg, key}, data}`; code 10000 is success. Calls authenticate with the \
`token` request header.",
                ))
                .build(),
        )
        .paths(paths.build())
        .components(Some(components.build()))
        .tags(Some(
            tags.into_iter().map(|t| TagBuilder::new().name(t).build()),
        ))
        .build()
}

/// The description of the route table, made once.
pub fn json() -> &'static str {
    static DOC: OnceLock<String> = OnceLock::new();
    DOC.get_or_init(|| {
        let mut api = super::api::Api::recorder();
        super::table(&mut api);
        document(&api.operations())
            .to_pretty_json()
            .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    })
}

/// `GET /api/openapi.json`.
pub async fn openapi_json() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(json())
}

/// `GET /api/docs`: the operators' interactive page (`web/api-docs.html`,
/// built with the web app: RapiDoc bundled from npm, so it loads nothing
/// from another origin). RapiDoc's components set style attributes, so this
/// page alone allows inline styles.
pub async fn docs_page(
    req: actix_web::HttpRequest,
    state: actix_web::web::Data<crate::state::AppState>,
) -> Result<HttpResponse, crate::error::ApiError> {
    let missing = || {
        crate::error::ApiError::with_msg(
            protocol::ErrorCode::NotFound,
            "the web app is not built (web/dist/api-docs.html)",
        )
    };
    let dir = state.settings.web_dir.as_ref().ok_or_else(missing)?;
    let f = actix_files::NamedFile::open_async(dir.join("api-docs.html"))
        .await
        .map_err(|_| missing())?;
    let mut res = f.into_response(&req);
    res.headers_mut().insert(
        actix_web::http::header::CONTENT_SECURITY_POLICY,
        actix_web::http::header::HeaderValue::from_static(DOCS_CSP),
    );
    Ok(res)
}

/// The page's policy: the site's (`crate::web::CSP`) with inline styles.
pub const DOCS_CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
img-src 'self' data:; connect-src 'self'; font-src 'self' data:; object-src 'none'; base-uri 'none'; \
frame-ancestors 'none'; form-action 'self'";
