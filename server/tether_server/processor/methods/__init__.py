"""The request handlers, one module per wire resource (`thread/*` → `thread.py`, `fs/*` → `fs.py`, …).

Each handler is `async def name(state, ctx, params) -> Result`, bound to its `MethodSpec` in
`processor/handlers.py`. What handlers share (routing to connections, the projection of core
events, approvals, settings resolution, per-connection resources) lives beside this package in
`processor/`. See docs/adding-a-method.md.
"""
