//! Helpers for the end-to-end tests live in `tests/common`.
