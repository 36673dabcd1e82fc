"""A stdio MCP server on the official Python SDK (mcp 2.x) for hands' resource tests.

With no argument it offers resources: a short text, a PNG image (binary), and a large text; with
`--no-resources` it offers one tool and no resources capability at all.
"""

import base64
import sys

from mcp.server.mcpserver import MCPServer

# A 1x1 transparent PNG.
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)

server = MCPServer("resources-test")

if "--no-resources" in sys.argv:

    @server.tool()
    def ping() -> str:
        """Answer pong."""
        return "pong"

else:

    @server.resource("note://readme", name="readme", description="A short note", mime_type="text/plain")
    def readme() -> str:
        return "Hello from the resource server\n"

    @server.resource("data://pixel.png", name="pixel", description="One pixel", mime_type="image/png")
    def pixel() -> bytes:
        return PIXEL

    @server.resource("data://big.txt", name="big", mime_type="text/plain")
    def big() -> str:
        return "0123456789" * 20_000

if __name__ == "__main__":
    server.run()
