//! The route builder. Every REST route is registered through [`Api`], which
//! adds the actix route and records the call's OpenAPI operation (method,
//! full path with its scopes' prefixes, family tag, summary, body and reply
//! schemas) in the same statement, so the description cannot fall behind the
//! route table: `api.post("/sign-up", account::sign_up, doc("Create an
//! account").body::<SignUpRequest>())`.
//!
//! The same table runs in two modes: serving (an actix `ServiceConfig`
//! receives the routes) and recording only (`Api::recorder`, used to build
//! `/api/openapi.json` once). Both record the same operations.

use std::cell::RefCell;
use std::rc::Rc;

use actix_web::{web, FromRequest, Handler, Responder};
use utoipa::openapi::schema::Schema;
use utoipa::openapi::{Ref, RefOr};
use utoipa::ToSchema;

/// Collects a type's schema (and the schemas it refers to) and answers a
/// reference to it.
pub type SchemaFn = fn(&mut Vec<(String, RefOr<Schema>)>) -> RefOr<Schema>;

fn schema_of<T: ToSchema>(out: &mut Vec<(String, RefOr<Schema>)>) -> RefOr<Schema> {
    out.push((T::name().into_owned(), T::schema()));
    T::schemas(out);
    RefOr::Ref(Ref::from_schema_name(T::name()))
}

/// HTTP methods the table uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Method {
    Get,
    Post,
    Put,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "get",
            Method::Post => "post",
            Method::Put => "put",
        }
    }
}

/// What a call answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// The JSON envelope `{status, data}` (every ordinary call).
    Envelope,
    /// Something else on success (a file, an event stream, a redirect), of
    /// this media type; failures still answer the envelope.
    Raw(&'static str),
}

/// A call's description. `doc("...")` starts one; the summary is required
/// and may not be empty (registration panics, so every test run fails).
#[derive(Debug, Clone)]
pub struct Doc {
    pub summary: &'static str,
    pub about: Option<&'static str>,
    pub body: Option<SchemaFn>,
    /// A body that is not JSON (the media type): uploads, card files, logs.
    pub upload: Option<&'static str>,
    pub reply: Option<SchemaFn>,
    pub output: Output,
    /// Query parameters (strings) the call reads.
    pub query: &'static [&'static str],
}

/// Starts a call's description with its one-line summary.
pub fn doc(summary: &'static str) -> Doc {
    Doc {
        summary,
        about: None,
        body: None,
        upload: None,
        reply: None,
        output: Output::Envelope,
        query: &[],
    }
}

impl Doc {
    /// A longer description.
    pub fn about(mut self, text: &'static str) -> Self {
        self.about = Some(text);
        self
    }

    /// The JSON body's type.
    pub fn body<T: ToSchema>(mut self) -> Self {
        self.body = Some(schema_of::<T>);
        self
    }

    /// A body of another media type (read as bytes).
    pub fn upload(mut self, media_type: &'static str) -> Self {
        self.upload = Some(media_type);
        self
    }

    /// The type of the envelope's `data` on success.
    pub fn reply<T: ToSchema>(mut self) -> Self {
        self.reply = Some(schema_of::<T>);
        self
    }

    /// Answers this media type instead of the envelope on success.
    pub fn raw(mut self, media_type: &'static str) -> Self {
        self.output = Output::Raw(media_type);
        self
    }

    /// The query parameters read.
    pub fn query(mut self, names: &'static [&'static str]) -> Self {
        self.query = names;
        self
    }
}

/// One registered call.
#[derive(Debug, Clone)]
pub struct Operation {
    pub method: Method,
    /// The OpenAPI path (`{name}` parameters, actix patterns stripped).
    pub path: String,
    /// The family (one handler file).
    pub tag: &'static str,
    pub doc: Doc,
}

impl Operation {
    /// The path parameters, in order.
    pub fn path_params(&self) -> Vec<&str> {
        self.path
            .split('{')
            .skip(1)
            .filter_map(|rest| rest.split_once('}').map(|(name, _)| name))
            .collect()
    }
}

/// An actix path pattern as OpenAPI writes it: `{key:.*}` → `{key}`.
pub fn openapi_path(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let (mut in_param, mut skipping) = (false, false);
    for c in pattern.chars() {
        match c {
            '{' => {
                in_param = true;
                out.push(c);
            }
            '}' if in_param => {
                (in_param, skipping) = (false, false);
                out.push(c);
            }
            ':' if in_param => skipping = true,
            _ if skipping => {}
            _ => out.push(c),
        }
    }
    out
}

/// The recorded operations, shared by an `Api` and its scopes.
pub type Book = Rc<RefCell<Vec<Operation>>>;

/// The route builder (see the module's documentation).
pub struct Api<'a> {
    cfg: Option<&'a mut web::ServiceConfig>,
    prefix: String,
    tag: &'static str,
    book: Book,
}

impl<'a> Api<'a> {
    /// Registers on `cfg` (and records).
    pub fn serve(cfg: &'a mut web::ServiceConfig) -> Self {
        Api {
            cfg: Some(cfg),
            prefix: String::new(),
            tag: "system",
            book: Book::default(),
        }
    }

    /// Records only.
    pub fn recorder() -> Api<'static> {
        Api {
            cfg: None,
            prefix: String::new(),
            tag: "system",
            book: Book::default(),
        }
    }

    /// The operations recorded so far.
    pub fn operations(&self) -> Vec<Operation> {
        self.book.borrow().clone()
    }

    /// The calls `f` registers belong to the family `tag`.
    pub fn family(&mut self, tag: &'static str, f: impl FnOnce(&mut Api<'_>)) -> &mut Self {
        let mut child = Api {
            cfg: self.cfg.as_deref_mut(),
            prefix: self.prefix.clone(),
            tag,
            book: self.book.clone(),
        };
        f(&mut child);
        self
    }

    /// An actix scope at `path`: `f` registers its routes. An unknown path
    /// under it answers the envelope's 404.
    pub fn scope(&mut self, path: &str, f: impl FnOnce(&mut Api<'_>)) -> &mut Self {
        let prefix = format!("{}{}", self.prefix, path);
        let (tag, book) = (self.tag, self.book.clone());
        match self.cfg.as_deref_mut() {
            Some(cfg) => {
                cfg.service(
                    web::scope(path)
                        .configure(|inner| {
                            f(&mut Api {
                                cfg: Some(inner),
                                prefix,
                                tag,
                                book,
                            })
                        })
                        .default_service(web::to(super::system::not_found)),
                );
            }
            None => f(&mut Api {
                cfg: None,
                prefix,
                tag,
                book,
            }),
        }
        self
    }

    fn record(&mut self, method: Method, path: &str, doc: Doc) {
        let summary = doc.summary.trim();
        assert!(
            !summary.is_empty() && summary == doc.summary,
            "{} {}{}: a route needs a one-line summary",
            method.as_str(),
            self.prefix,
            path
        );
        self.book.borrow_mut().push(Operation {
            method,
            path: openapi_path(&format!("{}{}", self.prefix, path)),
            tag: self.tag,
            doc,
        });
    }

    /// `POST path`.
    pub fn post<F, Args>(&mut self, path: &str, handler: F, doc: Doc) -> &mut Self
    where
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        self.record(Method::Post, path, doc);
        if let Some(cfg) = self.cfg.as_deref_mut() {
            cfg.route(path, web::post().to(handler));
        }
        self
    }

    /// `GET path`.
    pub fn get<F, Args>(&mut self, path: &str, handler: F, doc: Doc) -> &mut Self
    where
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        self.record(Method::Get, path, doc);
        if let Some(cfg) = self.cfg.as_deref_mut() {
            cfg.route(path, web::get().to(handler));
        }
        self
    }

    /// `POST` and `GET path`, one handler (calls the spec lists both ways).
    pub fn post_get<F, Args>(&mut self, path: &str, handler: F, doc: Doc) -> &mut Self
    where
        F: Handler<Args> + Clone,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        self.post(path, handler.clone(), doc.clone());
        self.get(path, handler, doc)
    }

    /// `PUT path` with its own body size limit (upload parts).
    pub fn put_limited<F, Args>(
        &mut self,
        path: &str,
        limit: usize,
        handler: F,
        doc: Doc,
    ) -> &mut Self
    where
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        self.record(Method::Put, path, doc);
        if let Some(cfg) = self.cfg.as_deref_mut() {
            cfg.service(
                web::resource(path)
                    .app_data(web::PayloadConfig::new(limit))
                    .route(web::put().to(handler))
                    // Another method answers the envelope, not a bare 405.
                    .default_service(web::to(super::system::not_found)),
            );
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actix_patterns_become_openapi_paths() {
        assert_eq!(openapi_path("/files/{key:.*}"), "/files/{key}");
        assert_eq!(
            openapi_path("/api/v1/prompt/prompt_{lang}.json"),
            "/api/v1/prompt/prompt_{lang}.json"
        );
        assert_eq!(openapi_path("/a/{x}/{y}"), "/a/{x}/{y}");
        let op = Operation {
            method: Method::Put,
            path: "/u/{file_id}/{part}".into(),
            tag: "t",
            doc: doc("d"),
        };
        assert_eq!(op.path_params(), vec!["file_id", "part"]);
    }

    #[test]
    #[should_panic(expected = "needs a one-line summary")]
    fn an_empty_summary_is_refused() {
        async fn h() -> &'static str {
            ""
        }
        Api::recorder().post("/x", h, doc(""));
    }
}
