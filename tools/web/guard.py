"""What every request must be before the web board does any work for it (an ASGI layer).

- `Host` is one this server answers to (an allow-list): a page on a foreign name that
  resolves to this machine (DNS rebinding) is refused, so it cannot read the replies.
- A request that changes something (any method but GET, HEAD, OPTIONS) carrying an
  `Origin` must come from an allowed origin (with no allow-list: the origin of the `Host`
  it was sent to); a browser marks a request from another site with `Sec-Fetch-Site:
  cross-site`, refused too. A foreign page can then make nothing, however it posts.
- A POST says `Content-Type: application/json` (415 otherwise): a cross-site form or a
  `text/plain` fetch cannot send that without the browser asking first (preflight), and
  this server answers no preflight.
- A body is at most MAX_BODY bytes: a larger `Content-Length` is refused before a byte is
  read, and a body without one (chunked) is counted as it arrives and refused the moment it
  passes the limit; a body is never read whole before its size is known.

Each refusal is JSON `{"error": ...}` with its 4xx status; the app never sees the request.
Every reply carries headers keeping it out of other sites' frames and sniffers.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from typing import Any
from urllib.parse import urlsplit

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

MAX_BODY = 2_000_000
SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
SECURITY_HEADERS = [(b"x-content-type-options", b"nosniff"), (b"x-frame-options", b"DENY"),
                    (b"referrer-policy", b"no-referrer")]


class Refused(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def parse_origin(text: str) -> tuple[str, str]:
    """An origin given on the command line (`https://games.example.org[:port]`) as
    (origin, host[:port]); ValueError saying what is wrong."""
    parts = urlsplit(text.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.path not in ("", "/") \
            or parts.query or parts.fragment or "@" in parts.netloc:
        raise ValueError(f"{text!r} is not an origin: give scheme://host[:port], e.g. "
                         "https://games.example.org or http://192.168.1.20:8960")
    return f"{parts.scheme}://{parts.netloc.lower()}", parts.netloc.lower()


class Guard:
    """The allow-list. `hosts` None: no list (an app embedded or tested); an `Origin` must
    then match the `Host` the request was sent to."""

    def __init__(self, hosts: set[str] | None, origins: set[str] | None = None,
                 max_body: int = MAX_BODY) -> None:
        self.hosts = None if hosts is None else {h.lower() for h in hosts}
        self.origins = set(origins or ())
        self.max_body = max_body

    @classmethod
    def for_address(cls, host: str, port: int, extra: Sequence[str] = ()) -> Guard:
        """The bound address and the loopback names with the port, and the extra origins
        (`--allow-origin`) with their hosts."""
        guard = cls(set())
        guard.allow(host, port)
        for text in extra:
            origin, netloc = parse_origin(text)
            guard.origins.add(origin)
            guard.hosts.add(netloc)
        return guard

    def allow(self, host: str, port: int) -> None:
        """Answer to this address (and the loopback names) on this port; called again with
        the real port once the server is bound (`--port 0`)."""
        shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
        for name in (shown, *LOOPBACK_NAMES):
            netlocs = [f"{name}:{port}"] + ([name] if port == 80 else [])
            for netloc in netlocs:
                self.hosts.add(netloc.lower())
                self.origins.update({f"http://{netloc.lower()}", f"https://{netloc.lower()}"})

    def check(self, scope: Scope) -> None:
        """Refused with the reason, or nothing: the request may go on to its body."""
        headers = header_map(scope)
        host = headers.get("host")
        if self.hosts is not None:
            if host is None:
                raise Refused(400, "the request has no Host header")
            if host.lower() not in self.hosts:
                raise Refused(403, f"this server does not answer to the name {host!r}; its "
                              "operator may add it with --allow-origin")
        if scope["method"] in SAFE_METHODS:
            return
        origin = headers.get("origin")
        if origin is not None and not self.origin_allowed(origin, host):
            raise Refused(403, f"requests from {origin!r} may not change anything here")
        if headers.get("sec-fetch-site") == "cross-site":
            raise Refused(403, "requests from another site may not change anything here")
        if scope["method"] == "POST":
            kind = (headers.get("content-type") or "").split(";")[0].strip().lower()
            if kind != "application/json":
                raise Refused(415, "send the request body as JSON, with Content-Type: "
                              "application/json")
        length = headers.get("content-length")
        if length is not None:
            if not length.isdigit():
                raise Refused(400, "Content-Length is not a number")
            if int(length) > self.max_body:
                raise Refused(413, self.too_large())

    def origin_allowed(self, origin: str, host: str | None) -> bool:
        if self.hosts is not None:
            return origin.lower() in self.origins
        return host is not None and origin.lower() in (f"http://{host.lower()}",
                                                       f"https://{host.lower()}")

    def too_large(self) -> str:
        return f"the request body is larger than {self.max_body:,} bytes"

    async def body(self, receive: Receive) -> bytes:
        """The body, read as it arrives and refused once past the limit."""
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise Refused(400, "the client went away before sending the whole body")
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                raise Refused(413, self.too_large())
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    @staticmethod
    def middleware(app: Callable, guard: Guard) -> Callable:
        return GuardLayer(app, guard)


class GuardLayer:
    def __init__(self, app: Callable, guard: Guard) -> None:
        self.app, self.guard = app, guard

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_headed(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        try:
            self.guard.check(scope)
            if scope["method"] in SAFE_METHODS:
                await self.app(scope, receive, send_headed)
                return
            body = await self.guard.body(receive)
        except Refused as e:
            await refuse(send_headed, e)
            return
        await self.app(scope, replaying(body, receive), send_headed)


def replaying(body: bytes, receive: Receive) -> Receive:
    """The body already read, handed to the app as one message; then the client's own."""
    sent = False

    async def again() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return again


def header_map(scope: Scope) -> dict[str, str]:
    """The request's headers by lower-case name (a repeated Host or Origin is refused: which
    one counts would differ between this server and a proxy)."""
    found: dict[str, str] = {}
    for raw_name, raw_value in scope.get("headers", []):
        name = raw_name.decode("latin-1").lower()
        if name in found and name in ("host", "origin", "content-length", "content-type"):
            raise Refused(400, f"the request repeats its {name} header")
        found[name] = raw_value.decode("latin-1")
    return found


async def refuse(send: Send, refusal: Refused) -> None:
    body = json.dumps({"error": str(refusal)}).encode()
    await send({"type": "http.response.start", "status": refusal.status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})
