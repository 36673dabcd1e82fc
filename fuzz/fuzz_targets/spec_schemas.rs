//! hands-spec on arbitrary input: tool names always become portable names, and the strict
//! (OpenAI) and OpenAPI (Gemini) schema rewrites and the strict answer mapping never panic on
//! any JSON, whatever it claims to be.
//!
//! `RUSTC_BOOTSTRAP=1 cargo fuzz run spec_schemas -- -max_total_time=60`

#![no_main]

use hands_spec::{gemini, names, strict};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let portable = names::portable(text);
        assert!(names::is_portable_name(&portable), "{text:?} -> {portable:?}");
        assert_eq!(portable, names::portable(text));
    }
    let Ok(schema) = serde_json::from_slice::<Value>(data) else { return };
    if let Ok(strict_schema) = strict::to_strict(&schema) {
        assert_eq!(strict_schema["type"], "object");
        assert_eq!(strict_schema["additionalProperties"], false);
    }
    let mut answer = schema.clone();
    strict::restore_absent(&schema, &mut answer);
    let converted = gemini::to_openapi(&schema);
    assert!(converted.get("additionalProperties").is_none());
});
