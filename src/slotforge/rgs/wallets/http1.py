"""A keep-alive HTTP/1.1 client for the wallet's calls: one request shape, a fraction of the CPU.

Every wallet call is the same exchange: ``POST`` a small signed JSON body, read a small JSON
answer. A general client pays for what this exchange never uses (cookies, redirects, proxies,
streaming bodies, a request object and a response object per call): with aiohttp that was a
quarter of a seamless round's CPU in the server. :class:`Http1Pool` keeps what the exchange
needs: persistent connections to one origin (TCP, or TLS for ``https``), at most ``limit`` of
them, each an :class:`asyncio.Protocol` whose answers httptools parses (the parser of the
server's own HTTP stack: ``Content-Length`` and chunked bodies alike), and a deadline per call.

A call that fails on a connection reused from the pool before any byte of an answer arrived
(the wallet closed it while idle: a keep-alive race every client meets) is sent once more on a
new connection. That is safe here because every wallet call is idempotent on its transaction
id (docs/wallet.md); any other failure is the caller's to judge (:class:`CallFailed`).
"""

from __future__ import annotations

import asyncio
import ssl
from collections import deque
from urllib.parse import urlsplit

import httptools

__all__ = ["CallFailed", "Http1Pool"]


class CallFailed(Exception):
    """No complete answer: the connection failed or closed, or the deadline passed."""


class _Exchange(asyncio.Protocol):
    """One connection: a request written, its answer read, then the next on the same connection."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.transport: asyncio.Transport | None = None
        self.parser = httptools.HttpResponseParser(self)
        self.answer: asyncio.Future[tuple[int, bytes]] | None = None
        self.body: list[bytes] = []
        self.answered_any = False  # a byte of an answer arrived in the current exchange
        self.open = False

    # -- asyncio's side ---------------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.open = True

    def data_received(self, data: bytes) -> None:
        self.answered_any = True
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError as error:
            self._fail(CallFailed(f"unreadable answer: {error}"))
            self.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.open = False
        self._fail(CallFailed(f"connection closed{f': {exc}' if exc else ''}"))

    # -- httptools' side ------------------------------------------------------------------------
    def on_body(self, chunk: bytes) -> None:
        self.body.append(chunk)

    def on_message_complete(self) -> None:
        if not self.parser.should_keep_alive():
            self.close()
        if self.answer is not None and not self.answer.done():
            self.answer.set_result((self.parser.get_status_code(), b"".join(self.body)))

    # -- the pool's side ------------------------------------------------------------------------
    def send(self, request: bytes) -> asyncio.Future[tuple[int, bytes]]:
        """Write ``request``; the future of its answer's status and body."""
        self.answer, self.body, self.answered_any = self.loop.create_future(), [], False
        self.transport.write(request)
        return self.answer

    def close(self) -> None:
        self.open = False
        if self.transport is not None:
            self.transport.close()

    def _fail(self, error: CallFailed) -> None:
        if self.answer is not None and not self.answer.done():
            self.answer.set_exception(error)


class Http1Pool:
    """Persistent HTTP/1.1 connections to one origin (``http://`` or ``https://host[:port]``), at
    most ``limit`` at once; its coroutines run on one event loop (the wallets' call loop). An
    ``https`` origin's certificate is checked against the system's authorities, or ``tls``'s."""

    def __init__(self, origin: str, *, limit: int = 100, connect_timeout: float = 1.0,
                 tls: ssl.SSLContext | None = None) -> None:
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"expected an http:// or https:// address, got {origin!r}")
        self.host = parts.hostname
        self.port = parts.port or (443 if parts.scheme == "https" else 80)
        self.base_path = parts.path.rstrip("/")
        self.host_header = parts.netloc.rsplit("@", 1)[-1].encode("idna")
        self.tls = (tls or ssl.create_default_context()) if parts.scheme == "https" else None
        self.connect_timeout = connect_timeout
        self.limit = limit
        self._idle: deque[_Exchange] = deque()
        self._turns: asyncio.Semaphore | None = None

    async def post(self, path: str, body: bytes, headers: dict[str, str], timeout: float) -> tuple[int, bytes]:
        """``POST`` ``body`` to ``path`` (below the origin's path): the answer's status and body,
        or :class:`CallFailed` (``timeout`` seconds for the whole call, connecting included)."""
        request = self._request(path, body, headers)
        try:
            async with asyncio.timeout(timeout):
                async with self._turn():
                    exchange, reused = await self._connection()
                    try:
                        return await self._send_on(exchange, request)
                    except CallFailed:
                        if not reused or exchange.answered_any:
                            raise
                    exchange, _ = await self._new_connection()  # it was closed while idle: once more
                    return await self._send_on(exchange, request)
        except TimeoutError as error:
            raise CallFailed(f"no answer within {timeout} s") from error
        except OSError as error:
            raise CallFailed(f"{type(error).__name__}: {error}") from error

    async def close(self) -> None:
        """Close the idle connections (a call in flight closes its own when it ends)."""
        while self._idle:
            self._idle.pop().close()

    # -- connections ------------------------------------------------------------------------------
    def _request(self, path: str, body: bytes, headers: dict[str, str]) -> bytes:
        head = [f"POST {self.base_path}{path} HTTP/1.1", f"Host: {self.host_header.decode()}",
                f"Content-Length: {len(body)}", *(f"{name}: {value}" for name, value in headers.items())]
        return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body

    def _turn(self) -> asyncio.Semaphore:
        if self._turns is None:  # made on the loop that uses it
            self._turns = asyncio.Semaphore(self.limit)
        return self._turns

    async def _connection(self) -> tuple[_Exchange, bool]:
        """An idle open connection (reused: True) or a new one."""
        while self._idle:
            exchange = self._idle.pop()
            if exchange.open:
                return exchange, True
        return await self._new_connection()

    async def _new_connection(self) -> tuple[_Exchange, bool]:
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(self.connect_timeout):
            _, exchange = await loop.create_connection(
                lambda: _Exchange(loop), self.host, self.port, ssl=self.tls,
                server_hostname=self.host if self.tls else None)
        return exchange, False

    async def _send_on(self, exchange: _Exchange, request: bytes) -> tuple[int, bytes]:
        """The answer to ``request`` on ``exchange``, which goes back to the pool after it, or is
        closed if the call fails or is cancelled half-way (its stream cannot be trusted)."""
        try:
            answer = await exchange.send(request)
        except BaseException:
            exchange.close()
            raise
        if exchange.open:
            self._idle.append(exchange)
        return answer
