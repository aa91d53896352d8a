"""An MCP server that requires OAuth, on the `mcp` SDK: `python oauth_mcp_server.py PORT [--ttl S] [--log P]`.

It is its own authorization server (metadata, dynamic client registration, PKCE authorization,
token and refresh endpoints). Authorization is granted at once: the authorize endpoint redirects
straight back to the client's redirect URI with a code, so a test plays the browser by following
the authorization URL. Access tokens live `--ttl` seconds; the first one is said to expire in
`--expires-in` (default the same), so a client refreshes it before use; `--log` appends each grant and call.
"""

from __future__ import annotations

import argparse
import secrets
import time
from pathlib import Path

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from mcp.types import ToolAnnotations


class Provider:
    def __init__(self, ttl: int, expires_in: int, log: Path | None) -> None:
        self.ttl, self.expires_in = ttl, expires_in
        self.log = log
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}

    def note(self, text: str) -> None:
        if self.log is not None:
            with self.log.open("a") as f:
                f.write(text + "\n")

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info
        self.note(f"register {client_info.redirect_uris}")

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(24)
        assert client.client_id is not None
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        self.note(f"authorize {params.redirect_uri}")
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None, expires_in: int) -> OAuthToken:
        access, refresh = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        expires = int(time.time()) + self.ttl
        self.access[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=expires, resource=resource
        )
        self.refresh[refresh] = RefreshToken(
            token=refresh, client_id=client_id, scopes=scopes, resource=resource
        )
        return OAuthToken(
            access_token=access,
            token_type="Bearer",
            expires_in=expires_in,
            refresh_token=refresh,
            scope=" ".join(scopes) or None,
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        self.note("token code")
        return self._issue(
            authorization_code.client_id,
            authorization_code.scopes,
            authorization_code.resource,
            self.expires_in,
        )

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        self.refresh.pop(refresh_token.token, None)
        self.note("token refresh")
        return self._issue(
            refresh_token.client_id, scopes or refresh_token.scopes, refresh_token.resource, self.ttl
        )

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or (found.expires_at is not None and found.expires_at < time.time()):
            return None
        return found

    async def exchange_identity_assertion(
        self, client: OAuthClientInformationFull, params: object
    ) -> OAuthToken:
        raise NotImplementedError  # not advertised (identity_assertion_enabled is off)

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("--ttl", type=int, default=3600)
    parser.add_argument("--expires-in", type=int, default=None)
    parser.add_argument("--log", default="")
    args = parser.parse_args()
    base = f"http://127.0.0.1:{args.port}"
    expires_in = args.ttl if args.expires_in is None else args.expires_in
    provider = Provider(args.ttl, expires_in, Path(args.log) if args.log else None)
    app = MCPServer(
        "guarded",
        auth_server_provider=provider,
        auth=AuthSettings(
            issuer_url=base,
            resource_server_url=f"{base}/mcp",
            client_registration_options=ClientRegistrationOptions(enabled=True),
            validate_token_resource=False,
        ),
    )

    @app.tool(annotations=ToolAnnotations(readOnlyHint=True))
    def secret_word() -> str:
        """The word only a signed-in client may read."""
        provider.note("call secret_word")
        return "swordfish"

    app.run("streamable-http", host="127.0.0.1", port=args.port)


if __name__ == "__main__":
    main()
