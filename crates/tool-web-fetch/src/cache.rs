//! The 15-minute page cache shared by every WebFetch call in the process (as Claude Code's is
//! global to the process): keyed by the URL as requested after checks and upgrade, bounded in
//! bytes with the oldest pages dropped first. Only successful pages are cached; redirects and
//! errors are fetched again. Nothing here fetches.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::constants::{CACHE_MAX_BYTES, CACHE_TTL};

/// A converted page as served from the cache.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CachedPage {
    /// Where the content came from.
    pub final_url: String,
    /// HTTP status.
    pub status: u16,
    /// Content type.
    pub content_type: String,
    /// Size of the body as fetched.
    pub bytes: usize,
    /// The whole Markdown (results show a window of it).
    pub markdown: String,
}

struct Entry {
    stored: Instant,
    /// Insertion order: what "oldest" means when evicting (instants can tie).
    sequence: u64,
    page: Arc<CachedPage>,
}

#[derive(Default)]
struct Entries {
    by_url: HashMap<String, Entry>,
    next_sequence: u64,
}

/// A time- and size-bounded map from URL to page.
pub(crate) struct PageCache {
    ttl: Duration,
    max_bytes: usize,
    entries: Mutex<Entries>,
}

impl PageCache {
    /// An empty cache.
    pub fn new(ttl: Duration, max_bytes: usize) -> Self {
        Self { ttl, max_bytes, entries: Mutex::new(Entries::default()) }
    }

    /// The process-wide cache WebFetch uses.
    pub fn global() -> &'static PageCache {
        static CACHE: OnceLock<PageCache> = OnceLock::new();
        CACHE.get_or_init(|| PageCache::new(CACHE_TTL, CACHE_MAX_BYTES))
    }

    /// The page stored for `url`, if it is younger than the time limit.
    pub fn get(&self, url: &str) -> Option<Arc<CachedPage>> {
        let mut guard = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let entries = &mut guard.by_url;
        match entries.get(url) {
            Some(entry) if entry.stored.elapsed() < self.ttl => Some(Arc::clone(&entry.page)),
            Some(_) => {
                entries.remove(url);
                None
            }
            None => None,
        }
    }

    /// Store `page` under `url`, dropping expired pages, then the oldest, to stay under the byte
    /// bound. A page larger than the bound is not stored.
    pub fn insert(&self, url: &str, page: CachedPage) {
        let size = page.markdown.len();
        if size > self.max_bytes {
            return;
        }
        let mut guard = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let sequence = guard.next_sequence;
        guard.next_sequence += 1;
        let entries = &mut guard.by_url;
        entries.retain(|_, e| e.stored.elapsed() < self.ttl);
        entries.remove(url);
        let mut total: usize = entries.values().map(|e| e.page.markdown.len()).sum();
        while total + size > self.max_bytes {
            let Some(oldest) = entries.iter().min_by_key(|(_, e)| e.sequence).map(|(k, _)| k.clone()) else { break };
            if let Some(removed) = entries.remove(&oldest) {
                total -= removed.page.markdown.len();
            }
        }
        entries.insert(url.to_string(), Entry { stored: Instant::now(), sequence, page: Arc::new(page) });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(markdown: &str) -> CachedPage {
        CachedPage {
            final_url: "u".into(),
            status: 200,
            content_type: "text/plain".into(),
            bytes: markdown.len(),
            markdown: markdown.into(),
        }
    }

    #[test]
    fn serves_until_the_time_limit() {
        let cache = PageCache::new(Duration::from_secs(60), 100);
        cache.insert("a", page("x"));
        assert_eq!(cache.get("a").unwrap().markdown, "x");
        let expired = PageCache::new(Duration::ZERO, 100);
        expired.insert("a", page("x"));
        assert!(expired.get("a").is_none());
    }

    #[test]
    fn drops_the_oldest_to_stay_under_the_byte_bound() {
        let cache = PageCache::new(Duration::from_secs(60), 10);
        cache.insert("a", page("aaaa"));
        cache.insert("b", page("bbbb"));
        cache.insert("c", page("cccc"));
        assert!(cache.get("a").is_none());
        assert!(cache.get("b").is_some() && cache.get("c").is_some());
        cache.insert("huge", page(&"x".repeat(11)));
        assert!(cache.get("huge").is_none());
    }
}
