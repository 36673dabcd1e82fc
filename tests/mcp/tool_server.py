"""A stdio MCP server on the official Python SDK (mcp 2.x) for the tests that mount servers into
`hands call`, `hands run` and `hands agent` with `--mcp-config`.

It offers one tool, `shout`, that answers its text in capitals. `--pid-file PATH` writes the
process id there once the server runs; `--stubborn` keeps the process alive after its input ends
(a thread that never finishes), so only a client that stops it leaves nothing behind.
"""

import os
import sys
import threading

from mcp.server.mcpserver import MCPServer

server = MCPServer("tool-test")


@server.tool()
def shout(text: str) -> str:
    """Answer the text in capitals."""
    return f"shouted: {text.upper()}"


if __name__ == "__main__":
    if "--pid-file" in sys.argv:
        path = sys.argv[sys.argv.index("--pid-file") + 1]
        with open(path + ".tmp", "w") as f:
            f.write(str(os.getpid()))
        os.replace(path + ".tmp", path)
    if "--stubborn" in sys.argv:
        threading.Thread(target=threading.Event().wait, daemon=False).start()
    server.run()
