"""An MCP server that never answers its handshake: writes its pid to argv[1], then stays silent.

Separate from the fixture server so that it starts before any import of the SDK: it is running
well inside even a one-second startup timeout on a busy machine.
"""

import os
import sys
import time

with open(sys.argv[1], "w") as out:
    out.write(f"{os.getpid()}\n")
sys.stdin.read()
time.sleep(3600)
