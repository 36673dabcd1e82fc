//! Read's name, limits and the file-type tables it dispatches on. No behaviour here.

/// Wire name.
pub(crate) const TOOL_NAME: &str = "Read";

/// Words ToolSearch scores against.
pub(crate) const SEARCH_HINT: &str = "read view open file contents lines image pdf notebook";

/// Largest file read whole without `offset`, `limit` or `allow_large`, and the bytes a view
/// from an `offset` covers at most (Claude Code's `maxSizeBytes`).
pub(crate) const MAX_SIZE_BYTES: u64 = 256 * 1024;

/// Bytes of text a read with `allow_large` returns at most: it lifts the size and token caps,
/// and this ceiling keeps one call from returning an unbounded file.
pub(crate) const LARGE_READ_MAX_BYTES: u64 = 8 * 1024 * 1024;

/// Output tokens a read may return (Claude Code's `maxTokens`).
pub(crate) const DEFAULT_MAX_TOKENS: usize = 25_000;

/// Environment variables overriding [`DEFAULT_MAX_TOKENS`], first found wins.
pub(crate) const MAX_TOKENS_ENV: [&str; 2] =
    ["HANDS_FILE_READ_MAX_OUTPUT_TOKENS", "CLAUDE_CODE_FILE_READ_MAX_OUTPUT_TOKENS"];

/// Characters per token in the rough estimate (Claude Code's `roughTokenCountEstimation`).
pub(crate) const CHARS_PER_TOKEN: usize = 4;

/// Files up to this size are read whole (hashed whole, any encoding); larger UTF-8 files are
/// scanned as a stream so a range read never loads them.
pub(crate) const IN_MEMORY_MAX_BYTES: u64 = 8 * 1024 * 1024;

/// Largest UTF-16 file Read decodes (UTF-16 is decoded whole, not streamed).
pub(crate) const MAX_UTF16_BYTES: u64 = 64 * 1024 * 1024;

/// The size of one read from disk while scanning a large file.
pub const SCAN_CHUNK_BYTES: usize = 1024 * 1024;

/// Most pages one PDF read may ask for.
pub(crate) const MAX_PDF_PAGES_PER_READ: u32 = 20;

/// PDFs with more pages than this need `pages`.
pub(crate) const PDF_PAGES_WITHOUT_RANGE: u32 = 10;

/// Largest PDF sent as a document block (the API's request limit leaves room for the rest).
pub(crate) const MAX_PDF_BYTES: u64 = 20 * 1024 * 1024;

/// Image files Read shows as image blocks, with their media types.
pub(crate) const IMAGE_TYPES: [(&str, &str); 5] =
    [("png", "image/png"), ("jpg", "image/jpeg"), ("jpeg", "image/jpeg"), ("gif", "image/gif"), ("webp", "image/webp")];

/// Longest side of an image sent to the model; larger images are scaled down.
pub(crate) const MAX_IMAGE_SIDE: u32 = 2000;

/// Largest encoded image sent as is (the API refuses images above 5 MB of base64).
pub(crate) const MAX_IMAGE_BYTES: usize = 3_750_000;

/// Largest image file Read decodes.
pub(crate) const MAX_IMAGE_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Largest notebook file Read parses (its rendering must also fit the token cap).
pub(crate) const MAX_NOTEBOOK_BYTES: u64 = 64 * 1024 * 1024;

/// Total characters of a notebook's outputs above which they are replaced by a `jq` hint.
pub(crate) const MAX_NOTEBOOK_OUTPUT_CHARS: usize = 10_000;

/// Extensions of files that are binary by nature (images and PDFs are handled separately).
pub(crate) const BINARY_EXTENSIONS: &[&str] = &[
    "exe", "dll", "so", "dylib", "o", "a", "lib", "obj", "bin", "dat", "class", "jar", "war", "pyc", "pyo", "wasm",
    "zip", "tar", "gz", "tgz", "bz2", "xz", "zst", "7z", "rar", "lz4", "iso", "dmg", "deb", "rpm", "apk", "msi", "mp3",
    "mp4", "m4a", "wav", "flac", "ogg", "avi", "mov", "mkv", "webm", "wmv", "aac", "bmp", "ico", "tiff", "tif", "psd",
    "heic", "ttf", "otf", "woff", "woff2", "eot", "sqlite", "sqlite3", "db", "pdb", "doc", "docx", "xls", "xlsx",
    "ppt", "pptx", "odt", "ods", "odp", "node", "pack", "idx", "rlib", "rmeta",
];

/// Text files up to this size are read on the calling task instead of the blocking pool: the
/// read costs less than the two thread hand-offs it would take.
pub(crate) const INLINE_READ_MAX_BYTES: u64 = 64 * 1024;
