//! Shared by Grep's integration tests: the workspace's test fixture (hands-test-support) over one
//! Grep tool. Files are made with `create_aged`, so newest-first order is known.

use hands_test_support::Fixture;
use hands_tool_grep::GrepTool;

/// An empty tree with a Grep tool built by `tool`.
pub fn with_tool(tool: GrepTool) -> Fixture {
    Fixture::new(vec![hands_core::typed_arc(tool)])
}
