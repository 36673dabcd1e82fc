//! The network proxy sandboxed commands reach, running on the host (outside the sandbox).
//!
//! It speaks the two forms HTTP clients use through `HTTP_PROXY`/`HTTPS_PROXY`: `CONNECT
//! host:port` (a tunnel, for HTTPS and anything else) and plain requests with an absolute URL
//! (`GET http://host/path`). Each destination is checked against `deniedDomains` (refused),
//! `allowedDomains` (allowed), then the answers already given in this session, then the caller's
//! [`AskDomain`] callback; with no callback, unknown domains are refused. A refusal is answered
//! with `403` and a one-line reason, and recorded so the command's result can say which access
//! was blocked. With `httpProxyPort`, connections are passed unfiltered to the user's own proxy
//! on that host port instead.
//!
//! How the listening socket gets from the sandbox to here is [`crate::linux`]'s business.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Asks whether a sandboxed command may reach `host` on `port` (the session's asker).
pub type AskDomain = Arc<dyn Fn(String, u16) -> Pin<Box<dyn Future<Output = bool> + Send>> + Send + Sync>;

/// The longest request head the proxy reads.
const MAX_HEAD: usize = 64 * 1024;

/// Whether `pattern` (`example.com`, `*.example.com`, optionally `:port`) covers `host:port`.
pub(crate) fn domain_matches(pattern: &str, host: &str, port: u16) -> bool {
    let pattern = pattern.trim().to_ascii_lowercase();
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let (name, wanted_port) = match pattern.rsplit_once(':') {
        Some((name, p)) if !name.contains(':') => match p.parse::<u16>() {
            Ok(p) => (name.to_string(), Some(p)),
            Err(_) => (pattern.clone(), None),
        },
        _ => (pattern.clone(), None),
    };
    if wanted_port.is_some_and(|p| p != port) {
        return false;
    }
    match name.strip_prefix("*.") {
        Some(suffix) => {
            host.len() > suffix.len() && host.ends_with(suffix) && host[..host.len() - suffix.len()].ends_with('.')
        }
        None => host == name,
    }
}

/// The decisions of one session: the lists, the asker, and the answers it gave.
pub(crate) struct DomainFilter {
    allowed: Vec<String>,
    denied: Vec<String>,
    ask: Option<AskDomain>,
    answers: Answers,
}

/// The asker's answers, kept for the whole session (`(host, port)` → allowed).
pub(crate) type Answers = Arc<Mutex<HashMap<(String, u16), bool>>>;

impl std::fmt::Debug for DomainFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DomainFilter")
            .field("allowed", &self.allowed)
            .field("denied", &self.denied)
            .field("asks", &self.ask.is_some())
            .finish()
    }
}

impl DomainFilter {
    /// A filter with these lists and asker, remembering answers in `answers`.
    pub(crate) fn new(allowed: Vec<String>, denied: Vec<String>, ask: Option<AskDomain>, answers: Answers) -> Self {
        Self { allowed, denied, ask, answers }
    }

    /// Whether `host:port` may be reached (asking when the lists do not say).
    pub async fn allows(&self, host: &str, port: u16) -> bool {
        if self.denied.iter().any(|d| domain_matches(d, host, port)) {
            return false;
        }
        if self.allowed.iter().any(|a| domain_matches(a, host, port)) {
            return true;
        }
        let key = (host.to_ascii_lowercase(), port);
        if let Some(answer) = self.answers.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
            return *answer;
        }
        let Some(ask) = &self.ask else { return false };
        let answer = ask(key.0.clone(), port).await;
        self.answers.lock().unwrap_or_else(|p| p.into_inner()).insert(key, answer);
        answer
    }
}

/// Where a request goes.
#[derive(Debug, PartialEq, Eq)]
struct Target {
    connect: bool,
    host: String,
    port: u16,
}

/// Split `host:port` (IPv6 in brackets); `default_port` when there is none.
fn host_port(authority: &str, default_port: u16) -> Option<(String, u16)> {
    if let Some(rest) = authority.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        let port = match after.strip_prefix(':') {
            Some(p) => p.parse().ok()?,
            None => default_port,
        };
        return Some((host.to_string(), port));
    }
    match authority.rsplit_once(':') {
        Some((host, port)) => Some((host.to_string(), port.parse().ok()?)),
        None => Some((authority.to_string(), default_port)),
    }
}

fn parse_target(head: &str) -> Option<Target> {
    let line = head.lines().next()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?;
    let target = parts.next()?;
    if method.eq_ignore_ascii_case("CONNECT") {
        let (host, port) = host_port(target, 443)?;
        return Some(Target { connect: true, host, port });
    }
    let (scheme, rest) = target.split_once("://")?;
    let default_port = if scheme.eq_ignore_ascii_case("https") { 443 } else { 80 };
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    let (host, port) = host_port(authority, default_port)?;
    (!host.is_empty()).then_some(Target { connect: false, host, port })
}

async fn read_head(stream: &mut TcpStream) -> Option<Vec<u8>> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    loop {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if buf.windows(4).any(|w| w == b"\r\n\r\n") {
            return Some(buf);
        }
        if buf.len() > MAX_HEAD {
            return None;
        }
    }
}

async fn answer(stream: &mut TcpStream, status: &str, message: &str) {
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{message}\n",
        message.len() + 1
    );
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
    // Closing with unread input would reset the connection and could lose the answer: read what
    // the client still sends (bounded) first.
    let mut scratch = [0u8; 4096];
    let drain = async {
        let mut total = 0;
        while let Ok(n) = stream.read(&mut scratch).await {
            total += n;
            if n == 0 || total > MAX_HEAD {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(std::time::Duration::from_secs(1), drain).await;
}

/// The message a refused request gets (and the command's result repeats).
pub(crate) fn refusal_message(host: &str, port: u16) -> String {
    format!(
        "hands sandbox: network access to {host}:{port} is not allowed (to allow it, add the domain to sandbox.network.allowedDomains or add a WebFetch(domain:{host}) allow rule)"
    )
}

async fn handle(mut client: TcpStream, filter: Arc<DomainFilter>, upstream: Option<u16>, refused: Refused) {
    let Some(head) = read_head(&mut client).await else { return };
    if let Some(port) = upstream {
        if let Ok(mut server) = TcpStream::connect(("127.0.0.1", port)).await {
            if server.write_all(&head).await.is_ok() {
                let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
            }
        }
        return;
    }
    let text = String::from_utf8_lossy(&head).into_owned();
    let Some(target) = parse_target(&text) else {
        answer(&mut client, "400 Bad Request", "hands sandbox: the proxy only understands CONNECT and absolute URLs")
            .await;
        return;
    };
    if !filter.allows(&target.host, target.port).await {
        let message = refusal_message(&target.host, target.port);
        refused.lock().unwrap_or_else(|p| p.into_inner()).push(format!("{}:{}", target.host, target.port));
        answer(&mut client, "403 Forbidden", &message).await;
        return;
    }
    let mut server = match TcpStream::connect((target.host.as_str(), target.port)).await {
        Ok(s) => s,
        Err(e) => {
            answer(
                &mut client,
                "502 Bad Gateway",
                &format!("hands sandbox proxy: cannot reach {}:{}: {e}", target.host, target.port),
            )
            .await;
            return;
        }
    };
    if target.connect {
        if client.write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n").await.is_err() {
            return;
        }
        // Bytes the client sent after the head (rare before the 200) belong to the tunnel.
        let end = head.windows(4).position(|w| w == b"\r\n\r\n").map_or(head.len(), |p| p + 4);
        if end < head.len() && server.write_all(&head[end..]).await.is_err() {
            return;
        }
    } else if server.write_all(&head).await.is_err() {
        return;
    }
    let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
}

/// Destinations refused during one command (`host:port`).
pub type Refused = Arc<Mutex<Vec<String>>>;

/// Serve `listener` until the calling task is dropped or aborted.
pub(crate) async fn serve(
    listener: std::net::TcpListener,
    filter: Arc<DomainFilter>,
    upstream: Option<u16>,
    refused: Refused,
) {
    if listener.set_nonblocking(true).is_err() {
        return;
    }
    let Ok(listener) = TcpListener::from_std(listener) else { return };
    while let Ok((client, _)) = listener.accept().await {
        tokio::spawn(handle(client, Arc::clone(&filter), upstream, Arc::clone(&refused)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains_match_exactly_by_wildcard_and_by_port() {
        assert!(domain_matches("example.com", "EXAMPLE.com", 443));
        assert!(!domain_matches("example.com", "a.example.com", 443));
        assert!(domain_matches("*.example.com", "a.b.example.com", 80));
        assert!(!domain_matches("*.example.com", "example.com", 80));
        assert!(!domain_matches("*.example.com", "badexample.com", 80));
        assert!(domain_matches("example.com:8080", "example.com", 8080));
        assert!(!domain_matches("example.com:8080", "example.com", 443));
    }

    #[test]
    fn targets_parse_from_both_request_forms() {
        assert_eq!(
            parse_target("CONNECT api.test:8443 HTTP/1.1\r\n\r\n"),
            Some(Target { connect: true, host: "api.test".into(), port: 8443 })
        );
        assert_eq!(
            parse_target("GET http://user@[::1]/x?y HTTP/1.1\r\n\r\n"),
            Some(Target { connect: false, host: "::1".into(), port: 80 })
        );
        assert_eq!(parse_target("GET /relative HTTP/1.1\r\n\r\n"), None);
    }

    #[tokio::test]
    async fn the_asker_is_asked_once_per_destination_and_deny_wins() {
        let asked = Arc::new(Mutex::new(0));
        let counter = Arc::clone(&asked);
        let ask: AskDomain = Arc::new(move |host, _| {
            *counter.lock().unwrap() += 1;
            Box::pin(async move { host == "yes.test" })
        });
        let filter =
            DomainFilter::new(vec!["*.ok.test".into()], vec!["bad.ok.test".into()], Some(ask), Answers::default());
        assert!(filter.allows("a.ok.test", 443).await);
        assert!(!filter.allows("bad.ok.test", 443).await);
        assert!(filter.allows("yes.test", 443).await);
        assert!(filter.allows("yes.test", 443).await);
        assert!(!filter.allows("no.test", 443).await);
        assert_eq!(*asked.lock().unwrap(), 2);
    }
}
