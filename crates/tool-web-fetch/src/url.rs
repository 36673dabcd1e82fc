//! URL checks and rewriting for WebFetch, without a URL crate (the `http` crate's `Uri`, which
//! ureq re-exports, does the parsing): length limit, http and https only, no credentials, a
//! dotted host name, the http-to-https upgrade except for loopback hosts, resolution of redirect
//! `Location` headers, and the same-host test that decides whether a redirect is followed.
//! Fetching is not here.

use std::net::IpAddr;

use ureq::http::Uri;

use crate::constants::MAX_URL_LENGTH;

/// Why a URL is refused. The messages are model-facing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum UrlError {
    /// Longer than [`MAX_URL_LENGTH`].
    #[error("The URL is too long ({0} characters): at most 2000 characters are accepted.")]
    TooLong(usize),
    /// Not a URL.
    #[error("Error: Invalid URL \"{0}\". The URL provided could not be parsed.")]
    Unparseable(String),
    /// Neither http nor https.
    #[error("Unsupported URL scheme \"{0}\": only http and https URLs can be fetched.")]
    Scheme(String),
    /// `user:password@` in the URL.
    #[error("URLs containing a user name or password cannot be fetched: remove the credentials from the URL.")]
    Credentials,
    /// A host name without a dot (an intranet name), not a loopback host.
    #[error("The host \"{0}\" is not a fully qualified domain name: use a public host name with a dot.")]
    UnqualifiedHost(String),
}

/// A URL that passed the checks, ready to fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FetchUrl {
    /// The URL to request (upgraded to https unless loopback; no fragment).
    pub url: String,
    /// `http` or `https`.
    pub scheme: String,
    /// Host in lower case, IPv6 literals without brackets.
    pub host: String,
    /// Explicit port, if any.
    pub port: Option<u16>,
    /// Whether the host is this machine (localhost, 127.0.0.0/8, ::1).
    pub loopback: bool,
}

/// Whether `host` (lower case, no brackets) names this machine.
pub(crate) fn is_loopback_host(host: &str) -> bool {
    if host == "localhost" || host.ends_with(".localhost") {
        return true;
    }
    host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Check `raw` and rewrite it for fetching (reference §1.12).
pub(crate) fn parse(raw: &str) -> Result<FetchUrl, UrlError> {
    let raw = raw.trim();
    let length = raw.chars().count();
    if length > MAX_URL_LENGTH {
        return Err(UrlError::TooLong(length));
    }
    let without_fragment = raw.split('#').next().unwrap_or(raw);
    let uri: Uri = without_fragment.parse().map_err(|_| UrlError::Unparseable(raw.to_string()))?;
    let scheme = uri.scheme_str().ok_or_else(|| UrlError::Unparseable(raw.to_string()))?.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return Err(UrlError::Scheme(scheme));
    }
    let authority = uri.authority().ok_or_else(|| UrlError::Unparseable(raw.to_string()))?;
    if authority.as_str().contains('@') {
        return Err(UrlError::Credentials);
    }
    let host = authority.host().trim_start_matches('[').trim_end_matches(']').to_ascii_lowercase();
    if host.is_empty() {
        return Err(UrlError::Unparseable(raw.to_string()));
    }
    let loopback = is_loopback_host(&host);
    if !loopback && !host.contains('.') {
        return Err(UrlError::UnqualifiedHost(host));
    }
    let scheme = if loopback { scheme } else { "https".to_string() };
    let port = authority.port_u16();
    let host_part = if host.contains(':') { format!("[{host}]") } else { host.clone() };
    let port_part = port.map(|p| format!(":{p}")).unwrap_or_default();
    let path = uri.path_and_query().map_or("/", |p| p.as_str());
    let path = if path.is_empty() { "/" } else { path };
    Ok(FetchUrl { url: format!("{scheme}://{host_part}{port_part}{path}"), scheme, host, port, loopback })
}

/// The absolute URL a `Location` header points to, relative to `base`.
pub(crate) fn resolve_location(base: &FetchUrl, location: &str) -> String {
    let location = location.trim();
    if location.contains("://") {
        return location.to_string();
    }
    let host_part = if base.host.contains(':') { format!("[{}]", base.host) } else { base.host.clone() };
    let origin = format!("{}://{host_part}{}", base.scheme, base.port.map(|p| format!(":{p}")).unwrap_or_default());
    if let Some(rest) = location.strip_prefix("//") {
        return format!("{}://{rest}", base.scheme);
    }
    if location.starts_with('/') {
        return format!("{origin}{location}");
    }
    // A relative path: replace the last segment of the base path.
    let base_path = base.url[origin.len()..].split(['?', '#']).next().unwrap_or("/");
    let dir = &base_path[..base_path.rfind('/').map_or(0, |i| i + 1)];
    let dir = if dir.is_empty() { "/" } else { dir };
    format!("{origin}{dir}{location}")
}

/// Whether a redirect from `from` to `to` stays on the same site and is followed: same scheme and
/// port, and the same host give or take a leading `www.` (Claude Code's rule).
pub(crate) fn is_same_site_redirect(from: &FetchUrl, to: &FetchUrl) -> bool {
    let strip = |h: &str| h.strip_prefix("www.").unwrap_or(h).to_string();
    from.scheme == to.scheme && from.port == to.port && strip(&from.host) == strip(&to.host)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upgrades_http_except_for_loopback() {
        assert_eq!(parse("http://Example.com/a?b=1#frag").unwrap().url, "https://example.com/a?b=1");
        assert_eq!(parse("http://127.0.0.1:8080/x").unwrap().url, "http://127.0.0.1:8080/x");
        assert_eq!(parse("http://127.5.6.7").unwrap().url, "http://127.5.6.7/");
        assert_eq!(parse("http://localhost/").unwrap().url, "http://localhost/");
        let v6 = parse("http://[::1]:9/p").unwrap();
        assert_eq!((v6.url.as_str(), v6.host.as_str(), v6.loopback), ("http://[::1]:9/p", "::1", true));
    }

    #[test]
    fn refuses_what_claude_code_refuses() {
        assert_eq!(parse(&format!("https://a.io/{}", "x".repeat(2000))), Err(UrlError::TooLong(2013)));
        assert!(matches!(parse("not a url"), Err(UrlError::Unparseable(_))));
        assert_eq!(parse("ftp://a.io/"), Err(UrlError::Scheme("ftp".into())));
        assert_eq!(parse("https://user:pw@a.io/"), Err(UrlError::Credentials));
        assert_eq!(parse("https://intranet/"), Err(UrlError::UnqualifiedHost("intranet".into())));
        assert_eq!(parse("https://10.0.0.1/").unwrap().host, "10.0.0.1");
    }

    #[test]
    fn resolves_locations() {
        let base = parse("http://127.0.0.1:8080/docs/page?x=1").unwrap();
        assert_eq!(resolve_location(&base, "/root"), "http://127.0.0.1:8080/root");
        assert_eq!(resolve_location(&base, "other"), "http://127.0.0.1:8080/docs/other");
        assert_eq!(resolve_location(&base, "//b.io/x"), "http://b.io/x");
        assert_eq!(resolve_location(&base, "https://c.io/"), "https://c.io/");
    }

    #[test]
    fn same_site_allows_www_but_not_other_hosts_schemes_or_ports() {
        let a = parse("https://example.com/").unwrap();
        assert!(is_same_site_redirect(&a, &parse("https://www.example.com/x").unwrap()));
        assert!(!is_same_site_redirect(&a, &parse("https://other.com/").unwrap()));
        assert!(!is_same_site_redirect(&a, &parse("https://example.com:444/").unwrap()));
        let local = parse("http://127.0.0.1:1/").unwrap();
        assert!(!is_same_site_redirect(&local, &parse("http://localhost:1/").unwrap()));
    }
}
