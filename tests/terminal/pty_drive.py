"""Drive a command on a real pseudo-terminal: its stdin and stderr are the terminal (its
controlling terminal, as in an interactive shell), its stdout a pipe. Steps come as JSON on this
script's stdin: ["expect", TEXT] waits until TEXT has appeared on the terminal since the last
expect, ["send", KEYS] types KEYS. Prints {"stdout", "terminal", "status"} as JSON when the
command has ended.

Run by tests/tests/terminal.rs; usable by hand:

    echo '[["expect","Which"],["send","\\r"]]' | python3 tests/terminal/pty_drive.py -- hands call AskUserQuestion '{...}'

A step that does not come true within SAFETY_TIMEOUT seconds ends the run with status -1 and the
terminal's text so far (a guard against a hung command, never a pass condition).
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import time

SAFETY_TIMEOUT = 60


def main() -> int:
    argv = sys.argv[1:]
    if argv and argv[0] == "--":
        argv = argv[1:]
    steps = json.load(sys.stdin)
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))
    out_read, out_write = os.pipe()

    def become_interactive() -> None:
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    child = subprocess.Popen(argv, stdin=slave, stdout=out_write, stderr=slave, preexec_fn=become_interactive)
    os.close(slave)
    os.close(out_write)
    terminal = b""
    stdout = b""
    open_fds = {master, out_read}

    def pump(until: float) -> bool:
        """Read what is there (waiting up to `until`); False once nothing is left to read."""
        nonlocal terminal, stdout
        wait = max(0.0, until - time.monotonic())
        ready, _, _ = select.select(list(open_fds), [], [], wait)
        for fd in ready:
            try:
                data = os.read(fd, 65536)
            except OSError:
                data = b""
            if not data:
                open_fds.discard(fd)
            elif fd == master:
                terminal += data
            else:
                stdout += data
        return bool(open_fds)

    def fail(why: str) -> int:
        child.send_signal(signal.SIGKILL)
        child.wait()
        print(json.dumps({"stdout": stdout.decode(errors="replace"), "terminal": terminal.decode(errors="replace"),
                          "status": -1, "failed": why}))
        return 0

    seen = 0
    for kind, text in steps:
        if kind == "send":
            os.write(master, text.encode())
            continue
        deadline = time.monotonic() + SAFETY_TIMEOUT
        while True:
            found = terminal.find(text.encode(), seen)
            if found >= 0:
                seen = found + len(text.encode())
                break
            if time.monotonic() > deadline or not pump(deadline):
                return fail(f"never saw {text!r}")
    deadline = time.monotonic() + SAFETY_TIMEOUT
    while out_read in open_fds and time.monotonic() < deadline:
        pump(deadline)
    try:
        status = child.wait(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        return fail("the command did not end")
    while master in open_fds and pump(time.monotonic() + 0.05):
        pass
    print(json.dumps({"stdout": stdout.decode(errors="replace"), "terminal": terminal.decode(errors="replace"),
                      "status": status}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
