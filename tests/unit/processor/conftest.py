"""The whole daemon in process (in-memory store, real fake-model HTTP), driven by in-memory clients."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable
from pathlib import Path
from typing import Protocol

import pytest
from tests.support.appserver import mock_provider_args
from tests.support.memory import MemoryClient

from tether_server.app import App
from tether_server.config import load_config
from tether_server.store.base import ThreadStore
from tether_server.store.memory import MemoryThreadStore
from tether_testing.fake_responses import FakeResponsesServer


class Connect(Protocol):
    """Open an initialized in-process client (`experimental`: it asks for `experimentalApi`)."""

    def __call__(self, *, experimental: bool = False) -> Awaitable[MemoryClient]: ...


def _overrides(base_url: str) -> list[str]:
    args = mock_provider_args(base_url)
    return [value for flag, value in zip(args[::2], args[1::2], strict=True) if flag == "-c"]


@pytest.fixture
async def app(tmp_path: Path, fake_model: FakeResponsesServer) -> AsyncIterator[App]:
    home = tmp_path / "home"
    store = MemoryThreadStore()

    def memory_store(_home: Path) -> ThreadStore:
        return store

    app = App(load_config(home, _overrides(fake_model.base_url)), home, store_factory=memory_store)
    yield app
    await app.close()


@pytest.fixture
async def connect(app: App) -> AsyncIterator[Connect]:
    """Initialized clients of one in-process server; each must have broken no schema at the end."""
    dispatcher = await app.start()
    clients: list[MemoryClient] = []

    async def open_client(*, experimental: bool = False) -> MemoryClient:
        client = MemoryClient(dispatcher)
        clients.append(client)
        await client.initialize(experimental=experimental)
        return client

    yield open_client
    for client in clients:
        await client.close()
    for client in clients:
        client.check()
