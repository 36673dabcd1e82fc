//! WebFetch against a real HTTP server on 127.0.0.1 (a few lines of `std::net` on a thread, no
//! outside network): Markdown conversion under the prompt header, the cache (proved by the
//! server's request count), same-site and cross-host redirects, redirect loops, HTTP errors, the
//! size and length limits, URL checks, and the per-domain permission.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use hands_core::tool::typed_arc;
use hands_core::{
    Engine, PermissionMode, Pool, PoolConfig, Session, SessionConfig, ToolCall, ToolInput, ToolResult, Turn,
};
use hands_tool_web_fetch::WebFetchTool;
use serde_json::json;

/// One canned answer.
struct Reply {
    status: u16,
    headers: Vec<(&'static str, String)>,
    body: Vec<u8>,
}

impl Reply {
    fn ok(content_type: &str, body: impl Into<Vec<u8>>) -> Self {
        Reply { status: 200, headers: vec![("Content-Type", content_type.to_string())], body: body.into() }
    }
    fn redirect(status: u16, location: String) -> Self {
        Reply { status, headers: vec![("Location", location)], body: Vec::new() }
    }
}

/// A local HTTP/1.1 server answering every request with `route(path, port)`.
struct Server {
    port: u16,
    requests: Arc<AtomicUsize>,
}

impl Server {
    fn start(route: impl Fn(&str, u16) -> Reply + Send + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&requests);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut request_line = String::new();
                if reader.read_line(&mut request_line).is_err() {
                    continue;
                }
                let mut header = String::new();
                while reader.read_line(&mut header).is_ok_and(|n| n > 0) && header != "\r\n" {
                    header.clear();
                }
                counter.fetch_add(1, Ordering::SeqCst);
                let path = request_line.split_whitespace().nth(1).unwrap_or("/").to_string();
                let reply = route(&path, port);
                let mut head = format!(
                    "HTTP/1.1 {} X\r\nContent-Length: {}\r\nConnection: close\r\n",
                    reply.status,
                    reply.body.len()
                );
                for (name, value) in &reply.headers {
                    head.push_str(&format!("{name}: {value}\r\n"));
                }
                head.push_str("\r\n");
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.write_all(&reply.body);
            }
        });
        Server { port, requests }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}

fn engine(mode: PermissionMode) -> (tempfile::TempDir, Engine) {
    let work = tempfile::tempdir().unwrap();
    let session = Session::new(SessionConfig {
        cwd: Some(work.path().into()),
        state_dir: Some(work.path().join("state")),
        permission_mode: Some(mode),
        ..Default::default()
    })
    .unwrap();
    let pool = Arc::new(Pool::assemble(vec![typed_arc(WebFetchTool)], PoolConfig::default()));
    (work, Engine::builder(pool, session).build())
}

async fn fetch(engine: &Engine, url: &str, prompt: &str) -> ToolResult {
    engine.run_one(ToolCall::new("toolu_1", "WebFetch", json!({ "url": url, "prompt": prompt })), &Turn::new()).await
}

const PAGE: &str = "<!doctype html><html><head><title>T</title><script>var x = 1;</script></head>\
<body><h1>Install</h1><p>Run <code>cargo build</code> then read <a href=\"/docs\">the docs</a>.</p></body></html>";

#[tokio::test]
async fn html_comes_back_as_markdown_under_the_prompt_and_is_cached() {
    let server = Server::start(|_, _| Reply::ok("text/html; charset=utf-8", PAGE));
    let (_work, engine) = engine(PermissionMode::BypassPermissions);
    let url = server.url("/page");

    let first = fetch(&engine, &url, "How do I install it?").await;
    assert!(!first.is_error, "{}", first.text());
    let text = first.text();
    let header =
        format!("Prompt: How do I install it?\nURL: {url}\nStatus: 200, text/html, {} B\n\n---\n\n", PAGE.len());
    assert!(text.starts_with(&header), "{text}");
    let body = &text[header.len()..];
    assert!(body.contains("# Install"), "{body}");
    assert!(body.contains("Run `cargo build` then read [the docs](/docs)."), "{body}");
    assert!(!body.contains("var x"), "scripts are dropped: {body}");
    assert_eq!(server.requests(), 1);

    let second = fetch(&engine, &url, "Another question").await;
    assert!(second.text().starts_with("Prompt: Another question\n"));
    assert_eq!(second.text()[second.text().find("---").unwrap()..], text[text.find("---").unwrap()..]);
    assert_eq!(server.requests(), 1, "the second fetch is served from the cache");
}

#[tokio::test]
async fn same_site_redirects_are_followed_and_other_hosts_are_reported() {
    let server = Server::start(|path, port| match path {
        "/old" => Reply::redirect(301, "/new".into()),
        "/new" => Reply::ok("text/plain", "moved here"),
        "/away" => Reply::redirect(302, format!("http://localhost:{port}/elsewhere")),
        _ => Reply::redirect(302, "/loop".into()),
    });
    let (_work, engine) = engine(PermissionMode::BypassPermissions);

    let followed = fetch(&engine, &server.url("/old"), "p").await;
    assert!(followed.text().contains(&format!("URL: {}\n", server.url("/new"))), "{}", followed.text());
    assert!(followed.text().ends_with("moved here"));

    let away = fetch(&engine, &server.url("/away"), "Find the answer").await;
    assert!(!away.is_error);
    let target = format!("http://localhost:{}/elsewhere", server.port);
    assert_eq!(
        away.text(),
        format!(
            "REDIRECT DETECTED: The URL redirects to a different host.\n\nOriginal URL: {}\nRedirect URL: {target}\nStatus: 302 Found\n\nThe redirect was not followed. To get the page, call WebFetch again with:\n- url: \"{target}\"\n- prompt: \"Find the answer\"",
            server.url("/away")
        )
    );

    let before = server.requests();
    let looping = fetch(&engine, &server.url("/loop"), "p").await;
    assert!(looping.is_error);
    assert!(looping.text().contains("Too many redirects (more than 10)."), "{}", looping.text());
    assert_eq!(server.requests() - before, 11, "the first request and ten redirects");
}

#[tokio::test]
async fn http_errors_binary_bodies_and_limits() {
    let server = Server::start(|path, _| match path {
        "/missing" => Reply { status: 404, headers: vec![], body: b"nope".to_vec() },
        "/image" => Reply::ok("image/png", vec![0x89, b'P', b'N', b'G', 0, 1, 2]),
        "/huge" => Reply::ok("text/plain", vec![b'a'; 10 * 1024 * 1024 + 1]),
        _ => Reply::ok("text/plain", "b".repeat(100_001)),
    });
    let (_work, engine) = engine(PermissionMode::BypassPermissions);

    let missing = fetch(&engine, &server.url("/missing"), "p").await;
    assert!(missing.is_error);
    assert!(missing.text().contains("Request failed with status code 404"), "{}", missing.text());

    let image = fetch(&engine, &server.url("/image"), "p").await;
    assert!(image.is_error);
    assert!(image.text().contains("binary (image/png)"), "{}", image.text());

    let huge = fetch(&engine, &server.url("/huge"), "p").await;
    assert!(huge.is_error);
    assert!(huge.text().contains("larger than 10 MB"), "{}", huge.text());

    // 100 000 characters plus the header exceed the inline cap: the pipeline persists the result.
    let long = fetch(&engine, &server.url("/long"), "p").await;
    assert!(!long.is_error);
    assert!(long.text().starts_with("<persisted-output>"), "{}", long.text());
    let full = std::fs::read_to_string(hands_core::budget::result_path(engine.session(), "toolu_1")).unwrap();
    let content = &full[full.find("---\n\n").unwrap() + 5..];
    assert_eq!(content, format!("{}\n\n[Content truncated due to length...]", "b".repeat(100_000)));
}

#[tokio::test]
async fn bad_urls_are_refused_before_any_request() {
    let server = Server::start(|_, _| Reply::ok("text/plain", "x"));
    let (_work, engine) = engine(PermissionMode::BypassPermissions);
    let port = server.port;
    for (url, expected) in [
        (format!("http://user:pw@127.0.0.1:{port}/"), "user name or password"),
        (format!("http://127.0.0.1:{port}/{}", "x".repeat(2000)), "too long"),
        ("ftp://example.com/file".to_string(), "Unsupported URL scheme \"ftp\""),
        ("https://intranet/".to_string(), "not a fully qualified domain name"),
        ("not a url".to_string(), "\"not a url\" is not a \"uri\""),
    ] {
        let result = fetch(&engine, &url, "p").await;
        assert!(result.is_error, "{url}");
        assert!(result.text().contains(expected), "{url}: {}", result.text());
    }
    assert_eq!(server.requests(), 0);
}

#[tokio::test]
async fn fetching_asks_per_domain_and_nobody_answering_denies() {
    let server = Server::start(|_, _| Reply::ok("text/plain", "x"));
    let (_work, engine) = engine(PermissionMode::Default);
    let result = fetch(&engine, &server.url("/"), "p").await;
    assert!(result.is_error, "{}", result.text());
    assert_eq!(server.requests(), 0, "nothing is fetched without approval");

    let tool = typed_arc(WebFetchTool);
    let input = ToolInput::new(json!({ "url": "http://Docs.Example.com/x", "prompt": "p" }));
    let effects = tool.effects(&input, engine.session());
    assert_eq!(effects.hosts, vec!["docs.example.com".to_string()]);
    assert!(effects.is_read_only() && effects.is_concurrency_safe() && tool.should_defer());
}
