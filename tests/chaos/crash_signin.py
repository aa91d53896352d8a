"""The crash battery's sign-ins: beside each turn a client signs in with an API key, signs out, or
completes a ChatGPT device-code sign-in against a fake issuer on loopback, one at a time. After a
kill, auth.json is whole (it parses, 0600) and holds the outcome of the last sign-in or sign-out
that completed (answered, or `account/login/completed` for a ChatGPT sign-in) or of the one the kill
cut off, never an older one; `account/read` agrees with it (a ChatGPT account or none: the mock
provider shows no API-key account); no temporary copy of the credentials is left beside it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import stat
from pathlib import Path

from tests.integration.settings_pages import fake_issuer
from tests.integration.settings_pages.fake_issuer import FakeIssuer
from tests.support.rpcclient import RpcClient

Outcome = tuple[str, str | None]  # ("apiKey", key), ("chatgpt", None) or ("none", None)
SIGNED_OUT: Outcome = ("none", None)


class SignIns:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.outcomes: list[Outcome] = [SIGNED_OUT]  # in the order asked; the home starts signed out
        self.last_done = 0  # index in `outcomes` of the last completed one
        self.completed_chatgpt = 0
        self._lock = asyncio.Lock()  # one at a time: the last one asked is the last one applied
        self._stack = contextlib.ExitStack()
        self._issuer: FakeIssuer = self._stack.enter_context(fake_issuer.serve())
        self._issuer.device_approved = True
        # In config.toml rather than a flag: the daemon's other writes to that file keep the table.
        home.mkdir(parents=True, exist_ok=True)
        with (home / "config.toml").open("a") as config:
            config.write(f'[tether]\nchatgpt_issuer = "{self._issuer.base_url}"\n')

    def close(self) -> None:
        self._stack.close()

    async def step(self, client: RpcClient, n: int) -> None:
        async with self._lock:
            index = len(self.outcomes)
            kind = n % 3
            if kind == 0:
                key = f"sk-chaos-{n:05d}-0123456789abcdef"
                self.outcomes.append(("apiKey", key))
                await client.request("account/login/start", {"type": "apiKey", "apiKey": key})
            elif kind == 1:
                self.outcomes.append(SIGNED_OUT)
                await client.request("account/logout")
            else:
                self.outcomes.append(("chatgpt", None))
                mark = client.mark()
                login = (await client.request("account/login/start", {"type": "chatgptDeviceCode"}))[
                    "loginId"
                ]
                done = await client.notification(
                    "account/login/completed", after=mark, where=lambda p: p.get("loginId") == login
                )
                assert done["params"]["success"] is True, done
                self.completed_chatgpt += 1
            self.last_done = index

    def stored(self) -> Outcome:
        path = self.home / "auth.json"
        leftovers = [p.name for p in self.home.glob(".auth.json.*")]
        assert not leftovers, f"temporary copies of the credentials left behind: {leftovers}"
        if not path.exists():
            return SIGNED_OUT
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, "auth.json is readable by others"
        data = json.loads(path.read_text())  # a half-written file fails here
        if isinstance(data.get("tokens"), dict):
            assert data["tokens"]["refresh_token"] == "refresh-1", data
            return ("chatgpt", None)
        return ("apiKey", data["OPENAI_API_KEY"])

    async def check(self, client: RpcClient) -> None:
        outcome = self.stored()
        allowed = self.outcomes[self.last_done :]
        assert outcome in allowed, f"sign-in state {outcome[0]} is older than the last completed one"
        account = (await client.request("account/read", {}))["account"]
        # The mock provider needs no OpenAI auth, so an API key shows no account; a ChatGPT one does.
        kind = account["type"] if account else "none"
        expected = "none" if outcome[0] == "apiKey" else outcome[0]
        assert kind == expected, f"account/read says {kind}, auth.json {outcome[0]}"
