//! The schema rendering target, `spec_schemas`, through `hands-spec`'s public entry: tools whose
//! names and input schema come from the fuzzer (as an MCP server's tools do) are put in a pool
//! and rendered for every model API (Anthropic, OpenAI plain and strict, Gemini, names), and a
//! call the model sends back is mapped to the pool again ([`restore_call`]). That runs the name
//! mapping, the strict (OpenAI) and OpenAPI (Gemini) schema rewrites and the strict answer
//! mapping on any JSON, whatever it claims to be.

use std::collections::HashSet;
use std::sync::{Arc, OnceLock};

use hands_core::{Pool, PoolConfig, Session, ToolCall};
use hands_spec::{Format, RenderOptions, ToolNames, is_portable_name, portable, render, restore_call};
use hands_test_support::{Fixture, external_tool};
use serde_json::{Value, json};

fn session() -> &'static Arc<Session> {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    &FIXTURE.get_or_init(|| Fixture::new(Vec::new())).session
}

/// On arbitrary input (tool names on the first line, separated by tabs; the input schema as
/// JSON on the rest, or the whole input as JSON):
/// - a name's portable form is portable, and stays as it is when made portable again;
/// - every format renders without panicking; every tool gets a distinct portable wire name that
///   maps back to it;
/// - a tool sent strict to OpenAI has an object schema without additional properties, and no
///   Gemini declaration has `additionalProperties`;
/// - mapping a call back (strict mode removes the `null`s of absent optional fields) finds the
///   tool under its wire name.
pub fn spec_schemas(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (first_line, rest) = text.split_once('\n').unwrap_or((&text, ""));
    for name in first_line.split('\t') {
        let once = portable(name);
        assert!(is_portable_name(&once), "{name:?} -> {once:?}");
        assert_eq!(portable(&once), once, "{name:?}: making {once:?} portable again changes it");
    }
    let schema = serde_json::from_str::<Value>(rest)
        .or_else(|_| serde_json::from_slice::<Value>(data))
        .unwrap_or_else(|_| json!({"type": "object", "properties": {"x": {"type": "string"}}}));

    let names: Vec<&str> = first_line.split('\t').take(4).collect();
    let tools = names.iter().map(|name| external_tool(name, "A tool made by the fuzzer.", schema.clone())).collect();
    let pool = Pool::assemble(tools, PoolConfig::default());
    let session = session();
    let wire = ToolNames::for_pool(&pool);
    let mut seen = HashSet::new();
    for tool in pool.tools() {
        let sent = wire.wire(tool.name());
        assert!(is_portable_name(&sent), "{:?} is sent as {sent:?}", tool.name());
        assert!(seen.insert(sent.clone()), "two tools are sent as {sent:?}");
        assert_eq!(wire.resolve(&sent), Some(tool.name()));
    }

    for format in Format::ALL {
        for strict in [false, true] {
            let opts = RenderOptions { format, strict, deferral: None };
            let rendered = render(&pool, session, &opts);
            check_rendered(format, &rendered);
            for tool in pool.tools() {
                let sent = wire.wire(tool.name());
                let call = restore_call(&pool, &opts, ToolCall::new("toolu_1", sent, schema.clone()));
                assert_eq!(call.name, tool.name());
            }
        }
    }
}

fn check_rendered(format: Format, rendered: &Value) {
    match format {
        Format::OpenAi => {
            for tool in rendered.as_array().expect("an array of tools") {
                let function = &tool["function"];
                if function["strict"] == true {
                    assert_eq!(function["parameters"]["type"], "object", "{function}");
                    assert_eq!(function["parameters"]["additionalProperties"], false, "{function}");
                }
            }
        }
        Format::Gemini => {
            for declaration in rendered[0]["functionDeclarations"].as_array().expect("declarations") {
                if let Some(parameters) = declaration.get("parameters") {
                    assert!(parameters.get("additionalProperties").is_none(), "{declaration}");
                }
            }
        }
        Format::Names | Format::Anthropic => assert!(rendered.is_array()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_names_and_schemas_render_for_every_api() {
        for input in [
            "Read\n{}",
            "mcp__srv__tool\tmcp__srv__tool!\t\u{e9}t\u{e9}\n{\"type\":\"object\",\"properties\":{\"a\":{\"type\":[\"string\",\"null\"]}},\"required\":[]}",
            "a.b\ta b\ta/b\n{\"anyOf\":[{\"type\":\"object\"},true],\"additionalProperties\":{\"type\":\"number\"}}",
            "x\n{\"type\":\"object\",\"properties\":{\"r\":{\"$ref\":\"#/definitions/r\"}},\"definitions\":{\"r\":{\"$ref\":\"#/definitions/r\"}}}",
            "\n[1,2,3]",
            "\u{0}\n\"text\"",
        ] {
            spec_schemas(input.as_bytes());
        }
        let long = format!("{}\n{{}}", "n".repeat(200));
        spec_schemas(long.as_bytes());
        for seed in crate::smoke_inputs(64) {
            spec_schemas(&seed);
        }
    }
}
