//! Reading a document's bytes into blocks (headings and paragraphs) for the
//! chunker: what the file is (sniffed from its bytes, never trusted from
//! its name), its charset, and one reader per kind: PDF text through
//! `lopdf`, Markdown structure through `pulldown-cmark`, HTML through
//! `html5ever`'s tokenizer (script, style and the like dropped whole),
//! plain text by blank lines. Pure functions, run on the blocking pool.

use encoding_rs::Encoding;
use protocol::rag::{Block, DocKind};
use protocol::ErrorCode;

/// Why a document cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("the file is not a text, Markdown, HTML or PDF document")]
    Unsupported,
    #[error("the PDF cannot be read: {0}")]
    BadPdf(String),
    #[error("the PDF is protected by a password")]
    Encrypted,
    #[error("the document has no text to read")]
    Empty,
}

impl ParseError {
    pub fn code(&self) -> ErrorCode {
        match self {
            ParseError::Unsupported => ErrorCode::RagFileType,
            ParseError::BadPdf(_) => ErrorCode::RagPdfUnreadable,
            ParseError::Encrypted => ErrorCode::RagPdfEncrypted,
            ParseError::Empty => ErrorCode::RagDocumentEmpty,
        }
    }
}

/// Magic numbers of binary files people might pick by mistake.
const BINARY_MAGIC: &[&[u8]] = &[
    b"PK\x03\x04",       // zip, docx, epub
    b"\x89PNG",          // png
    b"\xFF\xD8\xFF",     // jpeg
    b"GIF8",             // gif
    b"\xD0\xCF\x11\xE0", // old office
    b"\x1F\x8B",         // gzip
    b"Rar!",             // rar
    b"7z\xBC\xAF",       // 7z
    b"\x7FELF",          // executables
    b"RIFF",             // wav, webp, avi
    b"ID3",              // mp3
    b"OggS",             // ogg
    b"fLaC",             // flac
    b"\x00\x00\x00",     // mp4 and other boxes
];

/// What the bytes are. PDF by its `%PDF-` header (within the first 1 KiB,
/// as readers accept); binaries by their magic or NUL bytes; then the text
/// is decoded and HTML told by its tags, Markdown by its name or by
/// Markdown headings, anything else is plain text.
pub fn sniff(bytes: &[u8], file_name: &str) -> Result<DocKind, ParseError> {
    let head = bytes.get(..1024).unwrap_or(bytes);
    if find(head, b"%PDF-").is_some() {
        return Ok(DocKind::Pdf);
    }
    let (utf16, _) = bom(bytes);
    if !utf16 {
        if BINARY_MAGIC.iter().any(|m| bytes.starts_with(m)) {
            return Err(ParseError::Unsupported);
        }
        let probe = bytes.get(..8192).unwrap_or(bytes);
        if probe.contains(&0) {
            return Err(ParseError::Unsupported);
        }
    }
    let text = decode(bytes);
    if looks_like_html(&text) {
        return Ok(DocKind::Html);
    }
    let lower = file_name.to_ascii_lowercase();
    if [".md", ".markdown", ".mdown", ".mkd"]
        .iter()
        .any(|e| lower.ends_with(e))
        || has_markdown_headings(&text)
    {
        return Ok(DocKind::Markdown);
    }
    Ok(DocKind::Text)
}

/// The document's blocks.
pub fn parse(bytes: &[u8], kind: DocKind) -> Result<Vec<Block>, ParseError> {
    let blocks = match kind {
        DocKind::Pdf => return parse_pdf(bytes, &mut |_, _| {}),
        DocKind::Html => parse_html(&decode(bytes)),
        DocKind::Markdown => parse_markdown(&decode(bytes)),
        DocKind::Text => parse_text(&decode(bytes)),
    };
    non_empty(blocks)
}

fn non_empty(blocks: Vec<Block>) -> Result<Vec<Block>, ParseError> {
    let any_text = blocks
        .iter()
        .any(|b| matches!(b, Block::Paragraph(p) if p.chars().any(char::is_alphanumeric)));
    if any_text {
        Ok(blocks)
    } else {
        Err(ParseError::Empty)
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Whether the bytes start with a UTF-16 byte-order mark, and the BOM's encoding.
fn bom(bytes: &[u8]) -> (bool, Option<&'static Encoding>) {
    match Encoding::for_bom(bytes) {
        Some((e, _)) => (e != encoding_rs::UTF_8, Some(e)),
        None => (false, None),
    }
}

/// The text of the bytes: by their byte-order mark; UTF-8 when valid;
/// otherwise the encoding `chardetng` guesses (GBK, Shift_JIS, windows-1252...).
pub fn decode(bytes: &[u8]) -> String {
    if let (_, Some(e)) = bom(bytes) {
        let (text, _, _) = e.decode(bytes);
        return text.into_owned();
    }
    if let Ok(s) = std::str::from_utf8(bytes) {
        return s.to_owned();
    }
    let mut det = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
    det.feed(bytes, true);
    let e = det.guess(None, chardetng::Utf8Detection::Allow);
    let (text, _, _) = e.decode(bytes);
    text.into_owned()
}

fn looks_like_html(text: &str) -> bool {
    let start: String = text
        .trim_start_matches('\u{FEFF}')
        .trim_start()
        .chars()
        .take(512)
        .collect::<String>()
        .to_ascii_lowercase();
    if start.starts_with("<!doctype html") || start.starts_with("<html") {
        return true;
    }
    if !start.starts_with('<') {
        return false;
    }
    [
        "<head", "<body", "<p>", "<div", "<h1", "<h2", "<meta", "<title", "<!--",
    ]
    .iter()
    .any(|t| start.contains(t))
}

fn has_markdown_headings(text: &str) -> bool {
    text.lines().take(400).any(|l| {
        let hashes = l.chars().take_while(|c| *c == '#').count();
        (1..=6).contains(&hashes) && l.chars().nth(hashes) == Some(' ')
    })
}

// ---- Plain text --------------------------------------------------------

/// Paragraphs separated by blank lines.
pub fn parse_text(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for line in text.lines() {
        if line.trim().is_empty() {
            if !current.is_empty() {
                out.push(Block::Paragraph(current.join("\n")));
                current.clear();
            }
        } else {
            current.push(line);
        }
    }
    if !current.is_empty() {
        out.push(Block::Paragraph(current.join("\n")));
    }
    out
}

// ---- Markdown ----------------------------------------------------------

/// Headings as headings; paragraphs, list items, quotes, code blocks and
/// table rows as paragraphs; inline formatting dropped, link text kept,
/// raw HTML (and so any script in it) dropped.
pub fn parse_markdown(text: &str) -> Vec<Block> {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let mut out = Vec::new();
    let mut buf = String::new();
    let mut heading: Option<u8> = None;
    // Inside an inline `<script>` or `<style>`: its text is dropped too.
    let mut hidden: Option<&'static str> = None;
    let flush = |buf: &mut String, heading: &mut Option<u8>, out: &mut Vec<Block>| {
        let t = buf.trim();
        if !t.is_empty() {
            out.push(match heading.take() {
                Some(level) => Block::Heading {
                    level,
                    text: t.to_owned(),
                },
                None => Block::Paragraph(t.to_owned()),
            });
        }
        *heading = None;
        buf.clear();
    };
    let parser = Parser::new_ext(text, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH);
    for ev in parser {
        match ev {
            Event::Start(Tag::Heading { level, .. }) => {
                flush(&mut buf, &mut heading, &mut out);
                heading = Some(level as u8);
            }
            Event::Start(
                Tag::Paragraph | Tag::Item | Tag::CodeBlock(_) | Tag::TableRow | Tag::TableHead,
            ) if !buf.trim().is_empty() && !buf.ends_with('\n') => {
                // A paragraph inside a list item continues the item.
                buf.push('\n');
            }
            Event::End(
                TagEnd::Heading(_)
                | TagEnd::Paragraph
                | TagEnd::Item
                | TagEnd::CodeBlock
                | TagEnd::TableRow
                | TagEnd::TableHead
                | TagEnd::BlockQuote(_),
            ) => {
                hidden = None;
                flush(&mut buf, &mut heading, &mut out);
            }
            Event::Start(Tag::TableCell) if !buf.trim().is_empty() => buf.push_str(" | "),
            Event::InlineHtml(h) => {
                let tag = h.trim_start().to_ascii_lowercase();
                match hidden {
                    Some(end) if tag.starts_with(end) => hidden = None,
                    Some(_) => {}
                    None if tag.starts_with("<script") => hidden = Some("</script"),
                    None if tag.starts_with("<style") => hidden = Some("</style"),
                    None => {}
                }
            }
            Event::Text(_) | Event::Code(_) if hidden.is_some() => {}
            Event::Text(t) | Event::Code(t) => buf.push_str(&t),
            Event::SoftBreak => buf.push(' '),
            Event::HardBreak => buf.push('\n'),
            // Raw HTML and anything else: left out.
            _ => {}
        }
    }
    flush(&mut buf, &mut heading, &mut out);
    out
}

// ---- HTML --------------------------------------------------------------

mod html {
    use std::cell::RefCell;

    use html5ever::tendril::StrTendril;
    use html5ever::tokenizer::states::RawKind;
    use html5ever::tokenizer::{
        BufferQueue, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
    };
    use protocol::rag::Block;

    /// Elements whose content is never text for a reader.
    const HIDDEN: &[&str] = &[
        "script", "style", "noscript", "template", "iframe", "object", "svg", "math", "head",
        "title", "textarea", "select", "button", "noembed", "noframes", "xmp",
    ];
    /// Elements that end a paragraph.
    const BLOCKS: &[&str] = &[
        "p",
        "div",
        "section",
        "article",
        "main",
        "header",
        "footer",
        "aside",
        "nav",
        "li",
        "ul",
        "ol",
        "dl",
        "dt",
        "dd",
        "blockquote",
        "pre",
        "table",
        "tr",
        "br",
        "hr",
        "figure",
        "figcaption",
        "address",
        "details",
        "summary",
        "body",
        "html",
    ];

    #[derive(Default)]
    struct State {
        out: Vec<Block>,
        buf: String,
        heading: Option<u8>,
        /// Open hidden elements (their text is dropped).
        hidden: Vec<String>,
    }

    impl State {
        fn flush(&mut self) {
            let t = self.buf.trim();
            if !t.is_empty() {
                self.out.push(match self.heading {
                    Some(level) => Block::Heading {
                        level,
                        text: t.to_owned(),
                    },
                    None => Block::Paragraph(t.to_owned()),
                });
            }
            self.buf.clear();
        }
    }

    struct Sink(RefCell<State>);

    impl TokenSink for Sink {
        type Handle = ();

        fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
            let mut s = self.0.borrow_mut();
            match token {
                Token::TagToken(tag) => {
                    let name: &str = &tag.name;
                    let heading = match name {
                        "h1" => Some(1),
                        "h2" => Some(2),
                        "h3" => Some(3),
                        "h4" => Some(4),
                        "h5" => Some(5),
                        "h6" => Some(6),
                        _ => None,
                    };
                    match tag.kind {
                        TagKind::StartTag => {
                            if HIDDEN.contains(&name) && !tag.self_closing {
                                s.hidden.push(name.to_owned());
                                // The tokenizer needs the tree builder's
                                // switch to raw text here, so a `<` inside a
                                // script is not read as a tag.
                                return match name {
                                    "script" => TokenSinkResult::RawData(RawKind::ScriptData),
                                    "style" | "noscript" | "iframe" | "noembed" | "noframes"
                                    | "xmp" => TokenSinkResult::RawData(RawKind::Rawtext),
                                    "title" | "textarea" => {
                                        TokenSinkResult::RawData(RawKind::Rcdata)
                                    }
                                    _ => TokenSinkResult::Continue,
                                };
                            }
                            if s.hidden.is_empty() {
                                if let Some(level) = heading {
                                    s.flush();
                                    s.heading = Some(level);
                                } else if BLOCKS.contains(&name) {
                                    if name == "br" {
                                        s.buf.push('\n');
                                    } else {
                                        s.flush();
                                    }
                                } else if name == "td" || name == "th" {
                                    s.buf.push_str(" | ");
                                } else if name == "img" {
                                    if let Some(alt) =
                                        tag.attrs.iter().find(|a| &*a.name.local == "alt")
                                    {
                                        let alt = alt.value.to_string();
                                        s.buf.push(' ');
                                        s.buf.push_str(&alt);
                                        s.buf.push(' ');
                                    }
                                }
                            }
                        }
                        TagKind::EndTag => {
                            if let Some(pos) = s.hidden.iter().rposition(|h| h == name) {
                                s.hidden.truncate(pos);
                            } else if s.hidden.is_empty() {
                                if heading.is_some() {
                                    s.flush();
                                    s.heading = None;
                                } else if BLOCKS.contains(&name) {
                                    s.flush();
                                }
                            }
                        }
                    }
                }
                Token::CharacterTokens(t) if s.hidden.is_empty() => s.buf.push_str(&t),
                Token::EOFToken => {
                    s.flush();
                }
                _ => {}
            }
            TokenSinkResult::Continue
        }
    }

    pub fn blocks(text: &str) -> Vec<Block> {
        let tok = Tokenizer::new(
            Sink(RefCell::new(State::default())),
            TokenizerOpts::default(),
        );
        let input = BufferQueue::default();
        input.push_back(StrTendril::from(text));
        let _ = tok.feed(&input);
        tok.end();
        let mut s = tok.sink.0.borrow_mut();
        s.flush();
        std::mem::take(&mut s.out)
    }
}

/// Headings `h1`-`h6` and block elements as paragraphs; the text of
/// `script`, `style`, `head` and other non-content elements dropped; image
/// alt text kept; entities decoded.
pub fn parse_html(text: &str) -> Vec<Block> {
    html::blocks(text)
}

// ---- PDF ---------------------------------------------------------------

/// Decompressed content one page may have (a bound against deflate bombs).
const MAX_PAGE_CONTENT: usize = 64 * 1024 * 1024;
/// Most pages read.
pub const MAX_PDF_PAGES: usize = 2000;

/// The text of every page, paragraph by paragraph; `progress(done, total)`
/// after each page. An encrypted PDF whose empty user password does not
/// open it is [`ParseError::Encrypted`]; a PDF with no text (scans) is
/// [`ParseError::Empty`].
pub fn parse_pdf(
    bytes: &[u8],
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Vec<Block>, ParseError> {
    let doc = match lopdf::Document::load_mem(bytes) {
        Ok(d) => d,
        Err(
            lopdf::Error::InvalidPassword
            | lopdf::Error::Decryption(_)
            | lopdf::Error::UnsupportedSecurityHandler(_),
        ) => return Err(ParseError::Encrypted),
        Err(e) => return Err(ParseError::BadPdf(e.to_string())),
    };
    if doc.is_encrypted() {
        return Err(ParseError::Encrypted);
    }
    let pages: Vec<u32> = doc
        .get_pages()
        .keys()
        .copied()
        .take(MAX_PDF_PAGES)
        .collect();
    if pages.is_empty() {
        return Err(ParseError::BadPdf("the PDF has no pages".into()));
    }
    let total = pages.len();
    let mut out = Vec::new();
    let mut read_any = false;
    let mut last_error = None;
    for (i, page) in pages.iter().enumerate() {
        match doc.extract_text_with_limit(&[*page], MAX_PAGE_CONTENT) {
            Ok(text) => {
                read_any = true;
                out.extend(parse_text(&pdf_paragraphs(&text)));
            }
            Err(e) => last_error = Some(e.to_string()),
        }
        progress(i + 1, total);
    }
    if !read_any {
        return Err(ParseError::BadPdf(
            last_error.unwrap_or_else(|| "no page could be read".into()),
        ));
    }
    non_empty(out)
}

/// lopdf ends every text line with a newline: lines are joined into
/// paragraphs, a paragraph ending at a line that ends a sentence and is
/// clearly shorter than its neighbours, or at a blank line. Words broken by
/// a hyphen at a line end are joined.
fn pdf_paragraphs(text: &str) -> String {
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let longest = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        if line.is_empty() {
            out.push_str("\n\n");
            continue;
        }
        out.push_str(line);
        let next = lines.get(i + 1).copied().unwrap_or("");
        let ends_sentence = line.ends_with(['.', '!', '?', ':', '。', '！', '？']);
        let short = line.chars().count() * 4 < longest * 3;
        if next.is_empty() {
            out.push('\n');
        } else if ends_sentence && short {
            out.push_str("\n\n");
        } else if let Some(stem) = line.strip_suffix('-') {
            if stem.chars().last().is_some_and(char::is_alphabetic) {
                out.truncate(out.len() - 1);
            } else {
                out.push(' ');
            }
        } else if line
            .chars()
            .last()
            .is_some_and(protocol::rag::chunk::is_cjk)
        {
            // CJK lines join without a space.
        } else {
            out.push(' ');
        }
    }
    out
}
