//! Importing a model from a URL (`model/import/submit`) and proposing its
//! fields (`model/recommend/byUrl`). Only http(s); the host is resolved
//! here and refused when any address is loopback, private, link-local,
//! multicast or unspecified, unless the operator allow-lists the exact
//! `host[:port]` (`EASEL_MODEL_IMPORT_HOSTS`); the connection is pinned to
//! the checked address (no second lookup to rebind), proxies are ignored,
//! and every redirect is checked again. Downloads are size- and
//! time-limited, stored in parts and joined like an upload, then checked by
//! `upload::check_stored` exactly as an uploaded file.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use infra::objects::ObjectKey;
use infra::store::Key;
use protocol::ErrorCode;
use reqwest::Url;
use serde::Serialize;

use super::upload::{check_stored, model_key};
use super::{ModelFileRow, ModelService};
use crate::error::{object_key, ApiError};
use crate::state::AppState;
use crate::uploads::part_key;

/// Redirects followed at most.
const MAX_REDIRECTS: usize = 5;
/// Parts of an imported file kept in the object store while it downloads.
const PART: usize = 20 * 1024 * 1024;
/// A page read for proposals, at most.
const MAX_PAGE: usize = 1024 * 1024;
/// A header read for proposals, at most.
const MAX_PROPOSAL_HEADER: u64 = 16 * 1024 * 1024;

fn refused(why: impl Into<String>) -> ApiError {
    ApiError::with_msg(ErrorCode::ModelImportRefused, why)
}

/// Addresses an import never reaches unless allow-listed.
pub fn blocked(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v) => {
            let o = v.octets();
            v.is_loopback()
                || v.is_private()
                || v.is_link_local()
                || v.is_multicast()
                || v.is_unspecified()
                || v.is_broadcast()
                || v.is_documentation()
                || o[0] == 0
                || (o[0] == 100 && (o[1] & 0xC0) == 64)
                || (o[0] == 192 && o[1] == 0 && o[2] == 0)
                || o[0] >= 240
        }
        IpAddr::V6(v) => {
            if let Some(v4) = v.to_ipv4_mapped() {
                return blocked(IpAddr::V4(v4));
            }
            let s = v.segments();
            v.is_loopback()
                || v.is_unspecified()
                || v.is_multicast()
                || (s[0] & 0xfe00) == 0xfc00
                || (s[0] & 0xffc0) == 0xfe80
                || (s[0] == 0x64 && s[1] == 0xff9b)
        }
    }
}

/// Checks a URL and answers where to connect: `None` for an IP literal,
/// else the checked address the host name is pinned to.
async fn check_url(url: &Url, allow: &[String]) -> Result<Option<SocketAddr>, ApiError> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(refused("only http and https addresses can be imported"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(refused("addresses with credentials cannot be imported"));
    }
    let host = url
        .host_str()
        .ok_or_else(|| refused("the address has no host"))?;
    let port = url
        .port_or_known_default()
        .ok_or_else(|| refused("the address has no port"))?;
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let allowed = allow.iter().any(|a| {
        a.eq_ignore_ascii_case(host)
            || a.eq_ignore_ascii_case(&format!("{host}:{port}"))
            || a.eq_ignore_ascii_case(bare)
    });
    if let Ok(ip) = bare.parse::<IpAddr>() {
        if blocked(ip) && !allowed {
            return Err(refused(format!("{ip} is a private or local address")));
        }
        return Ok(None);
    }
    let addrs: Vec<SocketAddr> = tokio::net::lookup_host((bare, port))
        .await
        .map_err(|_| refused(format!("{host} does not resolve")))?
        .collect();
    if addrs.is_empty() {
        return Err(refused(format!("{host} does not resolve")));
    }
    if !allowed {
        if let Some(a) = addrs.iter().find(|a| blocked(a.ip())) {
            return Err(refused(format!(
                "{host} resolves to {}, a private or local address",
                a.ip()
            )));
        }
    }
    Ok(addrs.first().copied())
}

/// GETs `url` following redirects by hand, each hop checked; answers the
/// response and the final URL.
async fn open(state: &AppState, url: &str) -> Result<(reqwest::Response, Url), ApiError> {
    let g = &state.settings.generation;
    let mut url = Url::parse(url.trim()).map_err(|_| refused("not a valid address"))?;
    for _ in 0..=MAX_REDIRECTS {
        let pin = check_url(&url, &g.model_import_hosts).await?;
        let mut b = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .connect_timeout(Duration::from_secs(10))
            .user_agent("easel-model-import");
        if let (Some(addr), Some(host)) = (pin, url.host_str()) {
            b = b.resolve(host, addr);
        }
        let client = b.build().map_err(ApiError::internal)?;
        let res = client.get(url.clone()).send().await.map_err(|e| {
            refused(format!(
                "the address could not be read: {}",
                e.without_url()
            ))
        })?;
        if res.status().is_redirection() {
            let next = res
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|l| url.join(l).ok())
                .ok_or_else(|| refused("a redirect without a usable location"))?;
            url = next;
            continue;
        }
        if !res.status().is_success() {
            return Err(refused(format!("the address answered {}", res.status())));
        }
        return Ok((res, url));
    }
    Err(refused("too many redirects"))
}

/// A file name from the response or the URL, safe for an object key.
fn file_name(res: &reqwest::Response, url: &Url) -> String {
    let from_header = res
        .headers()
        .get(reqwest::header::CONTENT_DISPOSITION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split("filename=").nth(1))
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or(v)
                .trim_matches(['"', ' '])
                .to_owned()
        });
    let from_path = url
        .path_segments()
        .and_then(|mut s| s.next_back().map(str::to_owned));
    let raw = from_header.or(from_path).unwrap_or_default();
    let clean: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(100)
        .collect();
    let clean = clean.trim_start_matches('.').to_owned();
    if clean.is_empty() {
        "model.safetensors".into()
    } else {
        clean
    }
}

/// Downloads a model file from `url` for `owner` and checks it like an
/// upload; the result waits in `MODEL_FILES` under a new file id.
pub async fn import_file(
    state: &AppState,
    owner: &str,
    url: &str,
) -> Result<ModelFileRow, ApiError> {
    let secs = state.settings.generation.model_import_timeout_secs;
    match tokio::time::timeout(Duration::from_secs(secs), download(state, owner, url)).await {
        Ok(r) => r,
        Err(_) => Err(refused(format!("the download took longer than {secs} s"))),
    }
}

async fn download(state: &AppState, owner: &str, url: &str) -> Result<ModelFileRow, ApiError> {
    let max = state.settings.generation.max_model_upload_bytes;
    let (mut res, final_url) = open(state, url).await?;
    if res.content_length().is_some_and(|n| n > max) {
        return Err(ApiError::with_msg(
            ErrorCode::ModelFileTooLarge,
            format!("model files may be at most {max} bytes"),
        ));
    }
    let name = file_name(&res, &final_url);
    let file_id = uuid::Uuid::now_v7().simple().to_string();
    let mut parts: Vec<ObjectKey> = Vec::new();
    let mut buf: Vec<u8> = Vec::with_capacity(PART);
    let mut total: u64 = 0;
    let outcome: Result<(), ApiError> = async {
        loop {
            let chunk = res
                .chunk()
                .await
                .map_err(|e| refused(format!("the download failed: {}", e.without_url())))?;
            let Some(chunk) = chunk else { break };
            total += chunk.len() as u64;
            if total > max {
                return Err(ApiError::with_msg(
                    ErrorCode::ModelFileTooLarge,
                    format!("model files may be at most {max} bytes"),
                ));
            }
            buf.extend_from_slice(&chunk);
            if buf.len() >= PART {
                let k = object_key(&part_key(&file_id, parts.len()))?;
                let rest = buf.split_off(PART);
                let full = std::mem::replace(&mut buf, rest);
                state
                    .objects
                    .put(&k, full, "application/octet-stream")
                    .await
                    .map_err(ApiError::internal)?;
                parts.push(k);
            }
        }
        if !buf.is_empty() || parts.is_empty() {
            let k = object_key(&part_key(&file_id, parts.len()))?;
            state
                .objects
                .put(&k, std::mem::take(&mut buf), "application/octet-stream")
                .await
                .map_err(ApiError::internal)?;
            parts.push(k);
        }
        Ok(())
    }
    .await;
    let key = object_key(&model_key(&file_id, &name))?;
    let checked = match outcome {
        Ok(()) => match state
            .objects
            .concat(&parts, &key, "application/octet-stream")
            .await
        {
            Ok(n) => check_stored(&state.objects, &key, n, &file_id, owner, &name).await,
            Err(e) => Err(ApiError::internal(e)),
        },
        Err(e) => Err(e),
    };
    for p in &parts {
        let _ = state.objects.delete(p).await;
    }
    match checked {
        Ok(file) => {
            ModelService::new(state.store.clone())
                .files
                .put(&Key::of(&file.file_id), &Key::empty(), &file)
                .await?;
            Ok(file)
        }
        Err(e) => {
            let _ = state.objects.delete(&key).await;
            Err(e)
        }
    }
}

/// What `recommend/byUrl` proposes for a model at a URL.
#[derive(Debug, Default, Serialize)]
pub struct Proposal {
    pub url: String,
    /// A direct file URL (the given one, or a `.safetensors` link on the page).
    pub file_url: Option<String>,
    pub name: Option<String>,
    pub description: Option<String>,
    pub model_type: Option<protocol::models::ModelType>,
    pub base_model: Option<String>,
    pub trained_words: Vec<String>,
    pub rank: Option<u64>,
    pub size: Option<u64>,
    pub file_name: Option<String>,
}

fn meta_content(html: &str, key: &str) -> Option<String> {
    let lower = html.to_ascii_lowercase();
    let at = lower
        .find(&format!("property=\"{key}\""))
        .or_else(|| lower.find(&format!("name=\"{key}\"")))?;
    let tag_start = lower.get(..at)?.rfind('<')?;
    let tag_end = at + lower.get(at..)?.find('>')?;
    let tag = html.get(tag_start..tag_end)?;
    let c = tag.find("content=\"")? + 9;
    let rest = tag.get(c..)?;
    Some(unescape(rest.get(..rest.find('"')?)?))
}

fn unescape(s: &str) -> String {
    s.replace("&amp;", "&")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .trim()
        .to_owned()
}

/// Reads a page or a file at `url` and proposes the model's fields: a page
/// gives its title, description and first `.safetensors` link; a file (or
/// that link) its safetensors header, read without downloading the tensors.
pub async fn propose(state: &AppState, url: &str) -> Result<Proposal, ApiError> {
    let (res, final_url) = open(state, url).await?;
    let mut p = Proposal {
        url: url.trim().to_owned(),
        ..Proposal::default()
    };
    let html = res
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with("text/html"));
    if !html {
        read_file_facts(res, &final_url, &mut p).await?;
        p.file_url = Some(final_url.to_string());
        return Ok(p);
    }
    let body = read_at_most(res, MAX_PAGE).await?;
    let page = String::from_utf8_lossy(&body);
    p.name = meta_content(&page, "og:title").or_else(|| {
        let l = page.to_ascii_lowercase();
        let a = l.find("<title>")? + 7;
        let b = a + l.get(a..)?.find("</title>")?;
        page.get(a..b).map(unescape)
    });
    p.description =
        meta_content(&page, "og:description").or_else(|| meta_content(&page, "description"));
    let link = page
        .split(['"', '\''])
        .find(|s| s.to_ascii_lowercase().ends_with(".safetensors") && !s.contains(['<', '>', ' ']))
        .and_then(|s| final_url.join(s).ok());
    if let Some(link) = link {
        if let Ok((res, u)) = open(state, link.as_str()).await {
            let _ = read_file_facts(res, &u, &mut p).await;
            p.file_url = Some(u.to_string());
        }
    }
    Ok(p)
}

async fn read_at_most(mut res: reqwest::Response, max: usize) -> Result<Vec<u8>, ApiError> {
    let mut out = Vec::new();
    while out.len() < max {
        match res.chunk().await {
            Ok(Some(c)) => out.extend_from_slice(&c),
            Ok(None) => break,
            Err(e) => {
                return Err(refused(format!(
                    "the address could not be read: {}",
                    e.without_url()
                )))
            }
        }
    }
    out.truncate(max);
    Ok(out)
}

async fn read_file_facts(
    mut res: reqwest::Response,
    url: &Url,
    p: &mut Proposal,
) -> Result<(), ApiError> {
    p.file_name = Some(file_name(&res, url));
    let size = res.content_length();
    p.size = size;
    let mut head: Vec<u8> = Vec::new();
    let mut want: u64 = 8;
    while (head.len() as u64) < want {
        let Some(c) = res
            .chunk()
            .await
            .map_err(|e| refused(format!("the download failed: {}", e.without_url())))?
        else {
            break;
        };
        head.extend_from_slice(&c);
        if want == 8 && head.len() >= 8 {
            let kind = modelfile::sniff(&head);
            if kind.runs_code() {
                return Err(super::upload::refusal(&modelfile::ModelFileError::Pickle));
            }
            if kind != modelfile::FileKind::Safetensors {
                return Err(super::upload::refusal(
                    &modelfile::ModelFileError::NotSafetensors,
                ));
            }
            let len = head
                .get(..8)
                .and_then(|b| <[u8; 8]>::try_from(b).ok())
                .map(u64::from_le_bytes)
                .unwrap_or(0);
            if len > MAX_PROPOSAL_HEADER {
                return Err(super::upload::refusal(
                    &modelfile::ModelFileError::HeaderTooLarge {
                        declared: len,
                        limit: MAX_PROPOSAL_HEADER,
                    },
                ));
            }
            want = len + 8;
        }
    }
    let Some(size) = size else {
        return Ok(());
    };
    let header = modelfile::read_header(
        &mut std::io::Cursor::new(head),
        size,
        &modelfile::Limits::default(),
    )
    .map_err(|e| super::upload::refusal(&e))?;
    let facts = modelfile::inspect(&header);
    p.model_type = match facts.kind {
        modelfile::ModelKind::Checkpoint => Some(protocol::models::ModelType::Checkpoint),
        modelfile::ModelKind::Lora => Some(protocol::models::ModelType::Lora),
        modelfile::ModelKind::Embedding => Some(protocol::models::ModelType::Embedding),
        modelfile::ModelKind::Unknown => None,
    };
    p.base_model = facts.family.map(str::to_owned);
    p.trained_words = facts.trained_words.clone();
    p.rank = facts.rank;
    if p.name.is_none() {
        p.name = facts
            .kohya
            .as_ref()
            .and_then(|k| k.output_name.clone())
            .or_else(|| {
                p.file_name
                    .as_deref()
                    .map(|f| f.trim_end_matches(".safetensors").replace(['_', '-'], " "))
            });
    }
    Ok(())
}
