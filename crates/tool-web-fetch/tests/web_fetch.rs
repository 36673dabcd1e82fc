//! WebFetch against a real HTTP server on 127.0.0.1 (a few lines of `std::net` on a thread, no
//! outside network): Markdown conversion under the prompt header, the cache (proved by the
//! server's request count), same-site and cross-host redirects, redirect loops, HTTP errors, the
//! size limit, paging a long page with `offset`, URL checks, and the per-domain permission. With a
//! model configured (the fake model API): the small model's answer is the result, what it was
//! sent, a long page answered part by part, and the page itself with a note when it fails.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use hands_core::typed_arc;
use hands_core::{
    Engine, PermissionMode, Pool, PoolConfig, Session, SessionConfig, ToolCall, ToolInput, ToolResult, Turn,
};
use hands_fake_model_api::{ErrorKind, FakeModelApi, Turn as Reply2};
use hands_model::{ProviderConfig, ProviderKind, RetryPolicy, SessionModel};
use hands_tool_web_fetch::WebFetchTool;
use serde_json::{Value, json};

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
        _ => Reply::ok("text/plain", "b"),
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
}

async fn fetch_at(engine: &Engine, url: &str, offset: Value) -> ToolResult {
    let input = json!({ "url": url, "prompt": "p", "offset": offset });
    engine.run_one(ToolCall::new("toolu_1", "WebFetch", input), &Turn::new()).await
}

/// The page's content in a result: what follows the header.
fn content(result: &ToolResult) -> String {
    let text = result.text();
    text[text.find("---\n\n").expect("a header") + 5..].to_string()
}

#[tokio::test]
async fn a_long_page_is_read_window_by_window_with_offset() {
    // 250 000 characters, each window's first character marked so a shifted window shows, and
    // some of two bytes so that positions are seen to count characters.
    let page: String = (0..250_000)
        .map(|i| match i {
            _ if i % 100_000 == 0 => 'X',
            _ if i % 100 == 1 => 'é',
            _ => 'a',
        })
        .collect();
    let served = page.clone();
    let server = Server::start(move |_, _| Reply::ok("text/plain; charset=utf-8", served.clone()));
    let (_work, engine) = engine(PermissionMode::BypassPermissions);
    let url = server.url("/long");

    // Each part fits inline (under the 50 000 threshold with its header and note) and the
    // parts join up to the page.
    let mut parts = String::new();
    let mut offset = json!(null);
    let mut calls = 0;
    loop {
        let part = fetch_at(&engine, &url, offset.clone()).await;
        calls += 1;
        assert!(!part.is_error && !part.text().starts_with("<persisted-output>"), "{}", part.text());
        assert!(part.text().len() <= 50_000, "{}", part.text().len());
        let body = content(&part);
        match body.rfind("\n\n[Page cut here: this shows characters ") {
            Some(at) => {
                let note = &body[at..];
                let next: usize = note.split("offset: ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
                assert_eq!(parts.chars().count() + body[..at].chars().count(), next, "{note}");
                assert!(
                    note.ends_with(&format!("of 250000. Call WebFetch again with offset: {next} for the next part.]"))
                );
                parts.push_str(&body[..at]);
                // Sent as a model may send it: as text, then as a float.
                offset = if calls % 2 == 1 { json!(next.to_string()) } else { json!(next as f64) };
            }
            None => {
                let start = parts.chars().count();
                let note = format!("\n\n[Characters {start} to 250000 of 250000: this is the end of the page.]");
                assert!(body.ends_with(&note), "{}", &body[body.len().saturating_sub(200)..]);
                parts.push_str(&body[..body.len() - note.len()]);
                break;
            }
        }
        assert!(calls < 20, "paging does not move on");
    }
    assert_eq!(parts, page);
    assert!(calls >= 6, "{calls} parts");
    assert_eq!(server.requests(), 1, "paging reads the cached page");

    let past = fetch_at(&engine, &url, json!(250_000)).await;
    assert!(past.is_error);
    assert_eq!(
        past.text(),
        "offset 250000 lies past the end of this page, which has 250000 characters of content. Give an offset below 250000, or leave offset out to read from the start."
    );
    let negative = fetch_at(&engine, &url, json!(-5)).await;
    assert!(negative.is_error && negative.text().contains("`offset`"), "{}", negative.text());
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
    assert!(
        effects.is_read_only()
            && effects.is_concurrency_safe()
            && tool.spec().deferral == hands_core::Deferral::Deferred
    );
}

// With a model configured: the session's small model answers about the page.

/// An engine whose session has a model on `server` (main model `main-model`, small model
/// `small-model`).
fn engine_with_model(server: &FakeModelApi) -> (tempfile::TempDir, Engine) {
    let (work, engine) = engine(PermissionMode::BypassPermissions);
    let mut config = ProviderConfig::new(ProviderKind::Anthropic, "main-model");
    config.api_key = Some("test-key".into());
    config.base_url = Some(server.anthropic_base_url());
    config.retry = RetryPolicy::none();
    SessionModel::from_config(config, Some("small-model")).unwrap().install(engine.session());
    (work, engine)
}

#[tokio::test]
async fn with_a_model_the_small_model_answers_the_prompt_about_the_page() {
    let site = Server::start(|_, _| Reply::ok("text/html", PAGE));
    let model =
        FakeModelApi::with_turns([Reply2::text("Run cargo build, then read the docs at /docs.")]).await.unwrap();
    let (_work, engine) = engine_with_model(&model);
    let url = site.url("/install");
    let result = fetch(&engine, &url, "How do I install it?").await;
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(result.text(), "Run cargo build, then read the docs at /docs.", "the answer is the result");

    let sent = model.requests();
    assert_eq!(sent.len(), 1);
    let body = &sent[0].body;
    assert_eq!(body["model"], "small-model", "the small model answers");
    let asked = body["messages"][0]["content"][0]["text"].as_str().unwrap();
    assert!(asked.contains(&format!("The page at {url}")), "{asked}");
    assert!(asked.contains("Run `cargo build` then read [the docs](/docs)."), "the page's Markdown is sent: {asked}");
    assert!(asked.ends_with("How do I install it?"), "the prompt is sent: {asked}");
    assert!(!asked.contains("var x"), "{asked}");
    assert!(body["system"].to_string().contains("You read one web page for another agent"));
    assert!(body.get("tools").is_none(), "the small model gets no tools");

    // The prompt the model reads says what it gets back.
    let tool = engine.pool().find("WebFetch").unwrap().tool().clone();
    assert!(tool.prompt(engine.session()).contains("answer your prompt; you get that answer, not the page"));
}

#[tokio::test]
async fn a_long_page_is_answered_part_by_part() {
    let long = "x".repeat(150_000);
    let site = Server::start(move |_, _| Reply::ok("text/plain", long.clone()));
    let model = FakeModelApi::with_turns([Reply2::text("First part."), Reply2::text("Second part.")]).await.unwrap();
    let (_work, engine) = engine_with_model(&model);
    let url = site.url("/long");
    let first = fetch(&engine, &url, "What is in it?").await;
    assert_eq!(
        first.text(),
        "First part.\n\n[This answer is about characters 0 to 100000 of 150000 of the page. For the rest, call WebFetch again with the same url and prompt and offset: 100000.]"
    );
    let second = fetch_at(&engine, &url, json!(100_000)).await;
    assert_eq!(second.text(), "Second part.", "the last part needs no note");
    let sent = model.requests();
    let asked = |i: usize| sent[i].body["messages"][0]["content"][0]["text"].as_str().unwrap().to_string();
    assert!(asked(0).contains("(characters 0 to 100000 of 150000)"), "{}", &asked(0)[..200]);
    assert!(asked(1).contains("(characters 100000 to 150000 of 150000)"), "{}", &asked(1)[..200]);
    assert_eq!(asked(1).matches('x').count(), 50_000);
    assert_eq!(site.requests(), 1, "the page is fetched once and served from the cache after");
}

#[tokio::test]
async fn when_the_small_model_fails_the_page_itself_comes_back_with_a_note() {
    let site = Server::start(|_, _| Reply::ok("text/html", PAGE));
    let model = FakeModelApi::with_turns([Reply2::error(ErrorKind::Overloaded)]).await.unwrap();
    let (_work, engine) = engine_with_model(&model);
    let result = fetch(&engine, &site.url("/p"), "How do I install it?").await;
    assert!(!result.is_error, "the page was fetched: {}", result.text());
    let text = result.text();
    assert!(text.starts_with("[The small model could not answer about this page (the API is overloaded"), "{text}");
    assert!(text.contains("so the page itself follows: answer the prompt from it.]\n\nPrompt: How do I install it?\n"));
    assert!(text.contains("Run `cargo build` then read [the docs](/docs)."), "{text}");
}
