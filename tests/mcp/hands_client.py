"""Drive `hands serve` with the official MCP Python SDK (mcp 2.x), over stdio or streamable HTTP.

Run by tests/tests/mcp.rs; usable by hand:

    python3 tests/mcp/hands_client.py --transport stdio --hands target/debug/hands --project DIR --state DIR
    python3 tests/mcp/hands_client.py --transport http --url http://127.0.0.1:PORT/mcp --token TOKEN --project DIR

`--questions` runs AskUserQuestion and ExitPlanMode answered through elicitation forms instead.

Each check prints `ok <name>` or `FAIL <name>: <why>`; the exit status is the number of failures.
The project directory must be the server's working directory (`hands serve --cwd DIR`).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import traceback
from pathlib import Path

import anyio
import httpx2
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
import mcp_types as types

SAFETY_TIMEOUT = 60  # seconds; only a guard against a hung server, never a pass condition


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


class Checks:
    def __init__(self, label: str) -> None:
        self.label = label
        self.failed = 0
        self.passed = 0

    def check(self, name: str, condition: bool, why: str = "") -> None:
        if condition:
            self.passed += 1
            print(f"ok {self.label}/{name}", flush=True)
        else:
            self.failed += 1
            print(f"FAIL {self.label}/{name}: {why}", flush=True)


def accept(answers: list[str]):
    async def callback(context, params):
        answers.append(params.message)
        return types.ElicitResult(action="accept", content={})

    return callback


def decline(answers: list[str]):
    async def callback(context, params):
        answers.append(params.message)
        return types.ElicitResult(action="decline")

    return callback


@contextlib.asynccontextmanager
async def connect(args, elicitation_callback=None):
    """One MCP session: a `hands serve` child (stdio) or an HTTP session on the shared server."""
    if args.transport == "stdio":
        params = StdioServerParameters(
            command=args.hands,
            args=["serve", "--cwd", args.project, "--state-dir", args.state, *args.serve_arg],
            env={"RUST_LOG": "warn"},
        )
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write, elicitation_callback=elicitation_callback) as session:
                yield session
    else:
        headers = {"Authorization": f"Bearer {args.token}"}
        async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=SAFETY_TIMEOUT)) as http:
            async with streamable_http_client(args.url, http_client=http) as (read, write):
                async with ClientSession(read, write, elicitation_callback=elicitation_callback) as session:
                    yield session


async def wait_for_file(path: Path) -> None:
    while not path.exists():
        await anyio.sleep(0.02)


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie has exited; on Linux its state is Z.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[-1].split()[0] != "Z"
    except OSError:
        return True


async def accepting_session(args, c: Checks) -> None:
    project = Path(args.project)
    answers: list[str] = []
    async with connect(args, accept(answers)) as session:
        init = await session.initialize()
        c.check("initialize", init.server_info.name == "hands", f"serverInfo {init.server_info}")
        c.check("tools capability", init.capabilities.tools is not None, str(init.capabilities))

        listed = await session.list_tools()
        tools = {tool.name: tool for tool in listed.tools}
        for name in ("Read", "Edit", "Grep", "Bash"):
            c.check(f"lists {name}", name in tools, f"tools: {sorted(tools)}")
        read = tools.get("Read")
        if read is not None:
            c.check("Read schema", "file_path" in read.input_schema.get("properties", {}), str(read.input_schema))
            c.check("Read is read-only", read.annotations is not None and read.annotations.read_only_hint is True, str(read.annotations))
            c.check("Read description", bool(read.description) and len(read.description) > 100, str(read.description)[:80])
        bash = tools.get("Bash")
        if bash is not None:
            c.check("Bash is not read-only", bash.annotations is not None and bash.annotations.read_only_hint is False, str(bash.annotations))
        for name in ("ToolSearch", "TaskOutput"):
            c.check(f"{name} not listed", name not in tools, f"tools: {sorted(tools)}")
        try:
            legacy = await session.call_tool("TaskOutput", {"task_id": "no-such-task"})
            c.check("TaskOutput still callable", legacy.is_error and "no-such-task" in text_of(legacy), text_of(legacy))
        except Exception as e:  # an MCP error: the name is unknown
            c.check("TaskOutput still callable", False, repr(e))
        # Hints as the tools are: what can destroy, and what reaches beyond the machine.
        for name, destructive, open_world in (
            ("Bash", True, True), ("Write", True, False), ("Edit", True, False), ("NotebookEdit", True, False),
            ("Read", None, False), ("Glob", None, False), ("Grep", None, False), ("TodoWrite", False, False),
            ("WebFetch", None, True),
        ):
            tool = tools.get(name)
            if tool is None or tool.annotations is None:
                c.check(f"{name} annotated", False, f"tools: {sorted(tools)}")
                continue
            a = tool.annotations
            if destructive is not None:
                c.check(f"{name} destructiveHint", a.destructive_hint is destructive, str(a))
            c.check(f"{name} openWorldHint", a.open_world_hint is open_world, str(a))

        # Read -> Edit -> Read, in one session (read-before-edit holds across calls).
        target = project / "notes.txt"
        target.write_text("alpha\nbeta\ngamma\n")
        first = await session.call_tool("Read", {"file_path": str(target)})
        c.check("Read", not first.is_error and "beta" in text_of(first), text_of(first))
        edited = await session.call_tool("Edit", {"file_path": str(target), "old_string": "beta", "new_string": "BETA"})
        c.check("Edit after elicitation", not edited.is_error, text_of(edited))
        c.check("elicitation asked", len(answers) == 1 and "Edit" in answers[0], str(answers))
        c.check("file edited on disk", target.read_text() == "alpha\nBETA\ngamma\n", target.read_text())
        second = await session.call_tool("Read", {"file_path": str(target)})
        c.check("Read sees the edit", "BETA" in text_of(second), text_of(second))

        grep = await session.call_tool("Grep", {"pattern": "BETA", "path": str(project)})
        c.check("Grep", not grep.is_error and "notes.txt" in text_of(grep), text_of(grep))

        echo = await session.call_tool("Bash", {"command": "echo hello-from-bash"})
        c.check("Bash", not echo.is_error and "hello-from-bash" in text_of(echo), text_of(echo))

        try:
            await session.call_tool("NoSuchTool", {})
            c.check("unknown tool", False, "no error raised")
        except MCPError as error:
            c.check("unknown tool", "NoSuchTool" in error.message, error.message)

        wrong = await session.call_tool("Read", {"file_path": ["not", "a", "string"]})
        c.check("wrong argument types", wrong.is_error and "InputValidationError" in text_of(wrong), text_of(wrong))

        # Progress: the command ends only once the first progress notification has arrived.
        stop = project / "stop-progress"
        updates: list[str] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            updates.append(message or "")
            stop.touch()

        with anyio.fail_after(SAFETY_TIMEOUT):
            waited = await session.call_tool(
                "Bash",
                {"command": f"while [ ! -f {stop} ]; do sleep 0.1; done; echo progressed"},
                progress_callback=on_progress,
            )
        c.check("progress", len(updates) >= 1 and "progressed" in text_of(waited), f"{updates} {text_of(waited)}")

        # Cancellation: the running command's process is killed.
        pid_file = project / "sleep.pid"
        async with anyio.create_task_group() as group:
            async def long_call() -> None:
                await session.call_tool("Bash", {"command": f"sh -c 'echo $$ > {pid_file}; exec sleep 600'"})

            group.start_soon(long_call)
            with anyio.fail_after(SAFETY_TIMEOUT):
                await wait_for_file(pid_file)
                while not pid_file.read_text().strip():
                    await anyio.sleep(0.02)
            group.cancel_scope.cancel()
        pid = int(pid_file.read_text().strip())
        with anyio.move_on_after(SAFETY_TIMEOUT):
            while process_alive(pid):
                await anyio.sleep(0.05)
        c.check("cancellation kills the command", not process_alive(pid), f"pid {pid} still alive")
        if process_alive(pid):
            os.kill(pid, signal.SIGKILL)
        after = await session.call_tool("Bash", {"command": "echo still-serving"})
        c.check("session survives cancellation", "still-serving" in text_of(after), text_of(after))


async def declining_session(args, c: Checks) -> None:
    target = Path(args.project) / "declined.txt"
    target.write_text("keep\n")
    answers: list[str] = []
    async with connect(args, decline(answers)) as session:
        await session.initialize()
        await session.call_tool("Read", {"file_path": str(target)})
        result = await session.call_tool("Edit", {"file_path": str(target), "old_string": "keep", "new_string": "lose"})
        message = text_of(result)
        c.check("elicitation declined", result.is_error and "This Edit call was not run" in message, message)
        c.check("decline says what would allow it", "allow rule" in message and "`decline`" in message, message)
        c.check("decline does not ask to wait", "STOP" not in message and "wait for the user" not in message, message)
        c.check("declined edit not written", target.read_text() == "keep\n", target.read_text())
        c.check("declined after asking", len(answers) == 1, str(answers))


async def no_elicitation_session(args, c: Checks) -> None:
    target = Path(args.project) / "denied.txt"
    target.write_text("keep\n")
    async with connect(args) as session:
        await session.initialize()
        await session.call_tool("Read", {"file_path": str(target)})
        result = await session.call_tool("Edit", {"file_path": str(target), "old_string": "keep", "new_string": "lose"})
        message = text_of(result)
        c.check("denied without elicitation", result.is_error and "This Edit call was not run" in message, message)
        c.check("denial names what to configure", "allow rule" in message and "bypassPermissions" in message, message)
        c.check("denied edit not written", target.read_text() == "keep\n", target.read_text())


async def mounted_session(args, c: Checks) -> None:
    """The server mounts another MCP server (`--mcp-config`): its tools are called through the pool."""
    target = Path(args.project) / "mounted.txt"
    target.write_text("through the mount\n")
    prefix = f"mcp__{args.mounted}__"
    async with connect(args) as session:
        await session.initialize()
        names = [tool.name for tool in (await session.list_tools()).tools]
        c.check("mounted tools listed", f"{prefix}Read" in names and f"{prefix}Bash" in names, str(names))
        c.check("built-ins come first", names.index("Read") < names.index(f"{prefix}Read"), str(names))
        result = await session.call_tool(f"{prefix}Read", {"file_path": str(target)})
        c.check("mounted Read", not result.is_error and "through the mount" in text_of(result), text_of(result))


QUESTIONS = {"questions": [
    {"question": "Which database?", "header": "Database", "multiSelect": False, "options": [
        {"label": "Postgres", "description": "relational"},
        {"label": "SQLite", "description": "a file"}]},
    {"question": "Which extras?", "header": "Extras", "multiSelect": True, "options": [
        {"label": "Auth", "description": "logins"},
        {"label": "Billing", "description": "payments"},
        {"label": "Search", "description": "full text"}]},
]}


def choices(field: dict) -> list[str]:
    """The values an enum field (or an array of enum items) offers, as a form would list them."""
    items = field.get("items", field)
    entries = items.get("oneOf") or items.get("anyOf")
    return [entry["const"] for entry in entries] if entries else list(items.get("enum", []))


async def questions_session(args, c: Checks) -> None:
    """AskUserQuestion answered in the form, as a person would fill it in from the schema."""
    seen: list[types.ElicitRequestFormParams] = []

    async def fill_in(context, params):
        seen.append(params)
        fields = params.requested_schema["properties"]
        database = [v for v in choices(fields["q1"]) if v.startswith("SQL")]
        extras = [v for v in choices(fields["q2"]) if v in ("Search", "Auth")]
        content = {"q1": database[0] if database else "", "q2": extras, "q2_other": "rate limits"}
        return types.ElicitResult(action="accept", content=content)

    async with connect(args, fill_in) as session:
        await session.initialize()
        names = [tool.name for tool in (await session.list_tools()).tools]
        c.check("AskUserQuestion listed", "AskUserQuestion" in names, str(names))
        result = await session.call_tool("AskUserQuestion", QUESTIONS)
        text = text_of(result)
        c.check("questions asked once", len(seen) == 1, str(seen))
        if seen:
            schema = seen[0].requested_schema
            c.check("one field per question", {"q1", "q2"} <= set(schema["properties"]), str(schema))
            c.check("several choices are an array", schema["properties"]["q2"].get("type") == "array", str(schema))
            c.check("the message lists the options", "SQLite: a file" in seen[0].message, seen[0].message)
        c.check("the model gets the answers", not result.is_error and text == (
            'User has answered your questions: "Which database?"="SQLite", '
            '"Which extras?"="Auth, Search, rate limits". You can now continue with the user\'s answers in mind.'
        ), text)


async def declined_questions_session(args, c: Checks) -> None:
    answers: list[str] = []
    async with connect(args, decline(answers)) as session:
        await session.initialize()
        result = await session.call_tool("AskUserQuestion", QUESTIONS)
        text = text_of(result)
        c.check("declined questions asked", len(answers) == 1, str(answers))
        c.check("a decline is an error the model reads", result.is_error and "dismissed the questions" in text, text)


async def plan_review_session(args, c: Checks) -> None:
    """EnterPlanMode, then ExitPlanMode approved into acceptEdits: the next edit asks nobody."""
    reviews: list[types.ElicitRequestFormParams] = []

    async def approve(context, params):
        reviews.append(params)
        decision = params.requested_schema["properties"]["decision"]
        wanted = [v for v in choices(decision) if v == "acceptEdits"]
        return types.ElicitResult(action="accept", content={"decision": wanted[0] if wanted else ""})

    target = Path(args.project) / "planned.txt"
    async with connect(args, approve) as session:
        await session.initialize()
        entered = await session.call_tool("EnterPlanMode", {})
        c.check("plan mode entered", not entered.is_error and "plan mode" in text_of(entered), text_of(entered))
        refused = await session.call_tool("Write", {"file_path": str(target), "content": "too early\n"})
        c.check("plan mode refuses writes", refused.is_error and not target.exists(), text_of(refused))
        plan = "1. Write planned.txt\n2. Check it"
        result = await session.call_tool("ExitPlanMode", {"plan": plan})
        text = text_of(result)
        c.check("plan presented once", len(reviews) == 1 and plan in reviews[0].message, str(reviews))
        c.check("plan approved", not result.is_error and "now in acceptEdits mode" in text and plan in text, text)
        written = await session.call_tool("Write", {"file_path": str(target), "content": "done\n"})
        c.check("acceptEdits writes without asking", not written.is_error and len(reviews) == 1, text_of(written))
        c.check("the file is written", target.exists() and target.read_text() == "done\n", str(target))


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", choices=["stdio", "http"], required=True)
    parser.add_argument("--hands", help="the hands binary (stdio)")
    parser.add_argument("--url", help="the MCP endpoint (http)")
    parser.add_argument("--token", help="the bearer token (http)")
    parser.add_argument("--project", required=True)
    parser.add_argument("--state", help="state directory (stdio)")
    parser.add_argument("--mounted", help="only check the tools of this mounted MCP server")
    parser.add_argument("--serve-arg", action="append", default=[], help="extra `hands serve` argument (stdio)")
    parser.add_argument("--questions", action="store_true", help="only check AskUserQuestion and ExitPlanMode")
    args = parser.parse_args()
    c = Checks(args.transport)
    if args.mounted:
        scenarios = (mounted_session,)
    elif args.questions:
        scenarios = (questions_session, declined_questions_session, plan_review_session)
    else:
        scenarios = (accepting_session, declining_session, no_elicitation_session)
    for scenario in scenarios:
        try:
            with anyio.fail_after(SAFETY_TIMEOUT * 3):
                await scenario(args, c)
        except BaseException as error:  # noqa: BLE001 - report and go on with the next scenario
            c.check(scenario.__name__, False, "".join(traceback.format_exception(error)))
    print(f"checks: {c.passed} ok, {c.failed} failed", flush=True)
    return c.failed


if __name__ == "__main__":
    sys.exit(anyio.run(main))
