//! WebFetch's target, `web_fetch`, through the whole pipeline (the crate's URL checks and HTML
//! conversion are private to it). Two legs per input:
//! - an arbitrary URL is planned and judged (`Engine::explain`): parsing, the checks and upgrade,
//!   the host effect and the tool's permission answer run, nothing is fetched;
//! - a page is fetched from a server on 127.0.0.1 inside this process that answers with the
//!   fuzzer's content type, body, status and `Location`: redirects (followed on the same site,
//!   reported otherwise), the body limit, the conversion to Markdown and the paging by `offset`
//!   run. Every request stays on that server: a redirect elsewhere is reported, never followed.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use arbitrary::{Arbitrary, Unstructured};
use hands_core::ToolCall;
use hands_test_support::Fixture;
use hands_tool_web_fetch::WebFetchTool;
use serde_json::json;

/// What the server answers.
#[derive(Debug, Clone, Default)]
struct Reply {
    status: u16,
    content_type: String,
    location: Option<String>,
    body: Vec<u8>,
}

#[derive(Debug, Arbitrary)]
struct Input {
    url: String,
    prompt: String,
    offset: Option<u64>,
    content_type: u8,
    odd_content_type: Option<String>,
    redirect: Option<(u8, String)>,
    body: Vec<u8>,
}

const CONTENT_TYPES: [&str; 6] =
    ["text/html", "text/plain", "text/markdown", "application/json", "text/html; charset=utf-8", "image/png"];

/// The server: its port and the reply it gives next.
struct Server {
    port: u16,
    reply: Arc<Mutex<Reply>>,
}

fn server() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(|| {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a local port");
        let port = listener.local_addr().expect("its address").port();
        let reply = Arc::new(Mutex::new(Reply::default()));
        let current = Arc::clone(&reply);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let Ok(read_half) = stream.try_clone() else { continue };
                let mut reader = BufReader::new(read_half);
                let mut line = String::new();
                if reader.read_line(&mut line).is_err() {
                    continue;
                }
                let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
                let mut header = String::new();
                while reader.read_line(&mut header).is_ok_and(|n| n > 0) && header != "\r\n" {
                    header.clear();
                }
                let reply = current.lock().unwrap_or_else(|e| e.into_inner()).clone();
                let _ = stream.write_all(&response(&reply, &path));
            }
        });
        Server { port, reply }
    })
}

/// The bytes of the answer to a request for `path`: the redirect for paths under `/redirect`,
/// the page otherwise.
fn response(reply: &Reply, path: &str) -> Vec<u8> {
    let mut head = String::new();
    match &reply.location {
        Some(location) if path.starts_with("/redirect") => {
            head.push_str(&format!("HTTP/1.1 {} Moved\r\nLocation: {location}\r\nContent-Length: 0\r\n", reply.status));
            head.push_str("Connection: close\r\n\r\n");
            head.into_bytes()
        }
        _ => {
            let status = if reply.location.is_some() { 200 } else { reply.status };
            head.push_str(&format!("HTTP/1.1 {status} X\r\nContent-Type: {}\r\n", reply.content_type));
            head.push_str(&format!("Content-Length: {}\r\nConnection: close\r\n\r\n", reply.body.len()));
            let mut bytes = head.into_bytes();
            bytes.extend_from_slice(&reply.body);
            bytes
        }
    }
}

/// The project, made once per process (in `bypassPermissions`, without a model: the page itself
/// is the result).
fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| crate::one_tool_fixture(hands_core::typed_arc(WebFetchTool), "WebFetch"))
}

/// A header value the server can send: no line breaks, no control characters.
fn header_value(text: &str) -> String {
    text.chars().filter(|c| !c.is_control()).collect()
}

/// On any URL and any page:
/// - judging a call never panics, and a URL the checks accept is judged (it has a host);
/// - fetching returns a result (no panic, no hang) that is an error or text, never empty;
/// - a page served with status 200 is answered under a header that carries the prompt, or with
///   an error (content that cannot be shown, an offset past its end).
pub fn web_fetch(data: &[u8]) {
    if let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(data)) {
        check(&input);
    }
}

/// The checks of [`web_fetch`] on one input; the result of the fetch.
fn check(input: &Input) -> hands_core::ToolResult {
    let fx = fixture();
    let judged = crate::block_on(fx.engine.explain(ToolCall::new(
        "toolu_1",
        "WebFetch",
        json!({"url": input.url, "prompt": input.prompt}),
    )));
    if let Err(refused) = &judged {
        assert!(refused.is_error, "{refused:?}");
    }

    static REQUESTS: AtomicU64 = AtomicU64::new(0);
    let n = REQUESTS.fetch_add(1, Ordering::Relaxed);
    let server = server();
    let content_type = match &input.odd_content_type {
        Some(odd) => header_value(odd),
        None => CONTENT_TYPES[usize::from(input.content_type) % CONTENT_TYPES.len()].to_string(),
    };
    let (status, location) = match &input.redirect {
        Some((kind, location)) => {
            ([301, 302, 303, 307, 308, 200, 404][usize::from(*kind % 7)], Some(header_value(location)))
        }
        None => (200, None),
    };
    let redirects = location.is_some();
    *server.reply.lock().unwrap_or_else(|e| e.into_inner()) =
        Reply { status, content_type, location, body: input.body.clone() };
    // A new path each time: the page cache would answer a URL it has seen.
    let kind = if redirects { "redirect" } else { "page" };
    let url = format!("http://127.0.0.1:{}/{kind}/{n}", server.port);
    let mut call = json!({"url": url, "prompt": input.prompt});
    if let Some(offset) = input.offset {
        call["offset"] = json!(offset);
    }
    let result = crate::block_on(fx.call("WebFetch", call));
    let text = result.text();
    assert!(!text.is_empty(), "an empty result for {url}");
    if !result.is_error && !redirects {
        assert!(text.starts_with("Prompt: "), "{text}");
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(content_type: u8, redirect: Option<(u8, &str)>, body: &str) -> Input {
        Input {
            url: "https://example.com/a".to_string(),
            prompt: "What does it say?".to_string(),
            offset: None,
            content_type,
            odd_content_type: None,
            redirect: redirect.map(|(kind, to)| (kind, to.to_string())),
            body: body.as_bytes().to_vec(),
        }
    }

    #[test]
    fn a_page_a_followed_redirect_and_a_reported_one() {
        let page = check(&input(0, None, "<h1>Title</h1><p>Some <b>bold</b> text</p>"));
        assert!(!page.is_error && page.text().contains("# Title") && page.text().contains("**bold**"), "{page:?}");
        let followed = check(&input(1, Some((0, "/page/elsewhere")), "plain words"));
        assert!(followed.text().starts_with("Prompt: ") && followed.text().contains("plain words"), "{followed:?}");
        let reported = check(&input(0, Some((1, "https://other.example.org/x")), ""));
        assert!(reported.text().contains("REDIRECT DETECTED"), "{reported:?}");
        let mut png = input(5, None, "");
        png.body = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        let image = check(&png);
        assert!(image.is_error && image.text().contains("binary (image/png)"), "binary content is refused: {image:?}");
    }

    #[test]
    fn pages_and_redirects_from_the_local_server_give_results() {
        for seed in crate::smoke_inputs(32) {
            web_fetch(&seed);
        }
    }
}
