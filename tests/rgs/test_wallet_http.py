"""The wallet calls' HTTP/1.1 client against real sockets: answers read whole (a length or
chunks), connections kept and reused, a connection the wallet closed while idle retried once on
a new one, a deadline that closes the connection it interrupted, the pool's limit, and TLS."""

from __future__ import annotations

import asyncio
import shutil
import ssl
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from services import require

from slotforge.rgs.wallets.http1 import CallFailed, Http1Pool

from .loops import in_a_loop_of_its_own

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def read_request(reader: asyncio.StreamReader) -> tuple[bytes, bytes]:
    """One request off the stream: its head and its body."""
    head = await reader.readuntil(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
    return head, await reader.readexactly(length)


def answer(body: bytes, status: str = "200 OK", extra: str = "") -> bytes:
    return f"HTTP/1.1 {status}\r\nContent-Length: {len(body)}\r\n{extra}\r\n".encode() + body


class Wallet:
    """A raw HTTP server whose every connection runs ``handler``; it counts connections."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.connections = 0
        self.open_now = 0
        self.most_open = 0

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self.open_now += 1
        self.most_open = max(self.most_open, self.open_now)
        try:
            await self.handler(reader, writer)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self.open_now -= 1
            writer.close()

    async def start(self, tls: ssl.SSLContext | None = None) -> tuple[asyncio.Server, int]:
        server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=tls)
        return server, server.sockets[0].getsockname()[1]


async def echo_forever(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Answers each request on the connection with its own body, keeping the connection."""
    while True:
        _head, body = await read_request(reader)
        writer.write(answer(body))
        await writer.drain()


def test_calls_on_one_connection_each_get_their_own_answer() -> None:
    async def scenario() -> None:
        wallet = Wallet(echo_forever)
        server, port = await wallet.start()
        pool = Http1Pool(f"http://127.0.0.1:{port}")
        for n in range(5):
            assert await pool.post("/debit", f'{{"n":{n}}}'.encode(), {}, 2.0) == (200, f'{{"n":{n}}}'.encode())
        assert wallet.connections == 1  # kept alive and reused
        await pool.close()
        server.close()
    in_a_loop_of_its_own(scenario)


def test_the_request_is_a_post_to_the_path_below_the_origin_with_its_headers() -> None:
    seen: list[bytes] = []

    async def record(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head, body = await read_request(reader)
        seen.append(head + body)
        writer.write(answer(b"{}"))
        await writer.drain()

    async def scenario() -> None:
        server, port = await Wallet(record).start()
        pool = Http1Pool(f"http://127.0.0.1:{port}/slotforge/")
        await pool.post("/credit", b'{"a":1}', {"X-Signature": "abc", "Content-Type": "application/json"}, 2.0)
        await pool.close()
        server.close()
    in_a_loop_of_its_own(scenario)
    request = seen[0]
    assert request.startswith(b"POST /slotforge/credit HTTP/1.1\r\n")
    assert b"\r\nHost: 127.0.0.1:" in request
    assert b"\r\nX-Signature: abc\r\n" in request and b"\r\nContent-Length: 7\r\n" in request
    assert request.endswith(b'\r\n\r\n{"a":1}')


def test_a_chunked_answer_and_an_error_status_are_read_whole() -> None:
    async def chunked(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            await read_request(reader)
            writer.write(b"HTTP/1.1 402 Payment Required\r\nTransfer-Encoding: chunked\r\n\r\n"
                         b"5\r\n{\"err\r\n9\r\nor\": \"NO\"\r\n1\r\n}\r\n0\r\n\r\n")
            await writer.drain()

    async def scenario() -> None:
        wallet = Wallet(chunked)
        server, port = await wallet.start()
        pool = Http1Pool(f"http://127.0.0.1:{port}")
        assert await pool.post("/debit", b"{}", {}, 2.0) == (402, b'{"error": "NO"}')
        assert await pool.post("/debit", b"{}", {}, 2.0) == (402, b'{"error": "NO"}')
        assert wallet.connections == 1
        await pool.close()
        server.close()
    in_a_loop_of_its_own(scenario)


def test_an_answer_saying_connection_close_is_not_reused() -> None:
    async def once(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(answer(b"{}", extra="Connection: close\r\n"))
        await writer.drain()

    async def scenario() -> None:
        wallet = Wallet(once)
        server, port = await wallet.start()
        pool = Http1Pool(f"http://127.0.0.1:{port}")
        for _ in range(3):
            assert (await pool.post("/credit", b"{}", {}, 2.0))[0] == 200
        assert wallet.connections == 3
        await pool.close()
        server.close()
    in_a_loop_of_its_own(scenario)


def test_a_connection_the_wallet_closed_while_idle_is_retried_once_on_a_new_one() -> None:
    async def one_then_close(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        _head, body = await read_request(reader)
        writer.write(answer(body))  # keep-alive promised, then closed without a word
        await writer.drain()

    async def scenario() -> None:
        wallet = Wallet(one_then_close)
        server, port = await wallet.start()
        pool = Http1Pool(f"http://127.0.0.1:{port}")
        assert await pool.post("/debit", b"1", {}, 2.0) == (200, b"1")
        await asyncio.sleep(0.05)  # the close reaches the client while the connection is idle
        assert await pool.post("/debit", b"2", {}, 2.0) == (200, b"2")
        assert wallet.connections == 2
        await pool.close()
        server.close()
    in_a_loop_of_its_own(scenario)


def test_a_kept_connection_closed_as_the_next_request_arrives_is_retried_once_on_a_new_one() -> None:
    """The keep-alive race: the wallet gives up an idle connection just as a call is written on
    it, so the call meets a closed connection before any byte of an answer. Every wallet call is
    idempotent on its transaction id, so the pool sends it once more on a new connection."""
    received: list[bytes] = []

    async def answer_one_then_drop_the_next(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        _head, body = await read_request(reader)
        received.append(body)
        writer.write(answer(body))
        await writer.drain()
        _head, body = await read_request(reader)
        received.append(body)  # read, then the connection is closed unanswered

    async def scenario() -> None:
        wallet = Wallet(answer_one_then_drop_the_next)
        server, port = await wallet.start()
        pool = Http1Pool(f"http://127.0.0.1:{port}")
        assert await pool.post("/debit", b"1", {}, 2.0) == (200, b"1")
        assert await pool.post("/debit", b"2", {}, 2.0) == (200, b"2")
        assert wallet.connections == 2
        await pool.close()
        server.close()
    in_a_loop_of_its_own(scenario)
    assert received == [b"1", b"2", b"2"]


def test_a_connection_closed_after_the_request_arrived_is_a_failure_not_a_second_send() -> None:
    requests: list[bytes] = []

    async def read_then_drop(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        _head, body = await read_request(reader)
        requests.append(body)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n{\"bal")  # half an answer
        await writer.drain()

    async def scenario() -> None:
        server, port = await Wallet(read_then_drop).start()
        pool = Http1Pool(f"http://127.0.0.1:{port}")
        with pytest.raises(CallFailed, match="connection closed"):
            await pool.post("/debit", b"x", {}, 2.0)
        await pool.close()
        server.close()
    in_a_loop_of_its_own(scenario)
    assert requests == [b"x"]  # the caller decides about a retry: the pool sent it once


def test_a_deadline_fails_the_call_and_closes_its_connection() -> None:
    async def scenario() -> None:
        given_up = asyncio.Event()

        async def hang_first(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            _head, body = await read_request(reader)
            if body == b"slow":
                if await reader.read(1) == b"":  # no answer; the client hangs up
                    given_up.set()
                return
            writer.write(answer(body))
            await writer.drain()
            await echo_forever(reader, writer)

        wallet = Wallet(hang_first)
        server, port = await wallet.start()
        pool = Http1Pool(f"http://127.0.0.1:{port}")
        started = asyncio.get_running_loop().time()
        with pytest.raises(CallFailed, match="no answer within 0.2 s"):
            await pool.post("/debit", b"slow", {}, 0.2)
        assert asyncio.get_running_loop().time() - started < 2
        await asyncio.wait_for(given_up.wait(), 2)  # the interrupted connection is closed, not kept
        # A late answer must never be read as the next call's: that goes on a new connection.
        assert await pool.post("/debit", b"next", {}, 2.0) == (200, b"next")
        assert wallet.connections == 2
        await pool.close()
        server.close()
    in_a_loop_of_its_own(scenario)


def test_nobody_listening_is_a_failure_naming_the_cause() -> None:
    async def scenario() -> None:
        pool = Http1Pool("http://127.0.0.1:9")  # the discard port: nothing listens there
        with pytest.raises(CallFailed, match="ConnectionRefusedError"):
            await pool.post("/debit", b"{}", {}, 1.0)
    in_a_loop_of_its_own(scenario)


def test_no_more_connections_than_the_limit_however_many_calls_wait() -> None:
    async def slow_echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            _head, body = await read_request(reader)
            await asyncio.sleep(0.02)
            writer.write(answer(body))
            await writer.drain()

    async def scenario() -> None:
        wallet = Wallet(slow_echo)
        server, port = await wallet.start()
        pool = Http1Pool(f"http://127.0.0.1:{port}", limit=4)
        answers = await asyncio.gather(*(pool.post("/credit", str(n).encode(), {}, 5.0) for n in range(40)))
        assert [body for _status, body in answers] == [str(n).encode() for n in range(40)]
        assert wallet.most_open == 4
        await pool.close()
        server.close()
    in_a_loop_of_its_own(scenario)


@settings(max_examples=40, deadline=None)
@given(body=st.binary(max_size=3000), split=st.integers(min_value=1, max_value=64))
def test_any_body_arriving_in_any_pieces_is_the_answer(body: bytes, split: int) -> None:
    """Property: whatever the body's bytes and however the network cuts the answer, the call
    returns exactly the body the wallet sent."""
    async def dribble(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        whole = answer(body)
        for start in range(0, len(whole), split):
            writer.write(whole[start:start + split])
            await writer.drain()

    async def scenario() -> None:
        server, port = await Wallet(dribble).start()
        pool = Http1Pool(f"http://127.0.0.1:{port}")
        assert await pool.post("/credit", b"{}", {}, 5.0) == (200, body)
        await pool.close()
        server.close()
    in_a_loop_of_its_own(scenario)


def test_an_https_wallet_is_called_over_tls_with_its_certificate_checked(tmp_path: Path) -> None:
    require(shutil.which("openssl") is not None, "openssl is not installed: apt-get install openssl")
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
                    str(cert), "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"],
                   check=True, capture_output=True)
    serving = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    serving.load_cert_chain(cert, key)
    trusting = ssl.create_default_context(cafile=str(cert))

    async def scenario() -> None:
        server, port = await Wallet(echo_forever).start(serving)
        pool = Http1Pool(f"https://localhost:{port}", tls=trusting)
        assert await pool.post("/debit", b"secret", {}, 5.0) == (200, b"secret")
        strangers = Http1Pool(f"https://localhost:{port}")  # the system's authorities do not know it
        with pytest.raises(CallFailed, match="CERTIFICATE_VERIFY_FAILED"):
            await strangers.post("/debit", b"secret", {}, 5.0)
        await pool.close()
        server.close()
    in_a_loop_of_its_own(scenario)


def test_an_address_that_is_not_http_is_refused() -> None:
    with pytest.raises(ValueError, match="expected an http:// or https:// address"):
        Http1Pool("ftp://wallet.example")
