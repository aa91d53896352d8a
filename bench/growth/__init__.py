"""Growth curves (issue 16): how latency, start-up and memory grow with load and history."""
