"""HTTP in the server's error form: error answers, the body limit, validation errors, and
uvicorn's protocols answering a request they cannot parse (and sending each response in one
write).

``uvicorn.run(..., http=PROTOCOL)``: an import string, so that worker processes load it too.

A request uvicorn cannot read (a malformed ``Content-Length``, request line or header) never
reaches the application: uvicorn answers it itself, in plain text. These subclasses of its two
protocols answer ``400 {"error": "INVALID_REQUEST", "message": ...}`` instead, as JSON like every
other error, and close the connection as uvicorn does (the stream cannot be trusted past it).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from fastapi.responses import JSONResponse
from starlette.types import Receive
from uvicorn.protocols.http.h11_impl import H11Protocol

from slotforge.rgs.api.answers import refusal_of
from slotforge.rgs.errors import DomainError, Internal, Invalid, TooLarge
from slotforge.rgs.metrics import count_error

MAX_BODY_BYTES = 64 * 1024
LOCATIONS = (["body"], ["query"], ["path"], ["header"])  # where FastAPI says a field was
INTERNAL = Internal("internal error; nothing was changed")  # no stack trace leaves


def error_answer(error: DomainError) -> JSONResponse:
    """A refusal answered with the status and code of its row in the table (``answers.REFUSALS``):
    ``{"error", "message", "field"?, ...details}``, and ``Retry-After`` when it helps."""
    refusal = refusal_of(error)
    body: dict[str, Any] = {"error": refusal.code, "message": error.message}
    if error.field:
        body["field"] = error.field
    headers = {} if error.retry_after_s is None else {"Retry-After": str(error.retry_after_s)}
    return coded_answer(refusal.status, {**body, **error.details}, headers)


def coded_answer(status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> JSONResponse:
    """An error's answer, its code counted for ``/metrics``."""
    count_error(body["error"])
    return JSONResponse(body, status_code=status, headers=headers)


def too_large() -> TooLarge:
    return TooLarge(f"body: larger than {MAX_BODY_BYTES} bytes", field="body")


def validation_error(first: dict[str, Any]) -> Invalid:
    """422 ``VALIDATION`` naming the field of a request's first validation error (pydantic's
    form: ``loc``, ``type``, ``msg``)."""
    location = [str(part) for part in first.get("loc", ())]
    if location[:1] in LOCATIONS:
        location = location[1:]
    field = ".".join(location) or "body"
    if first.get("type") == "json_invalid":
        return Invalid("body: not valid JSON", field="body")
    return Invalid(f"{field}: {first.get('msg', 'invalid')}", field=field)


async def read_body(receive: Receive) -> bytes:
    """A request's whole body, refused (413) as soon as it passes ``MAX_BODY_BYTES``."""
    chunks, size = [], 0
    while True:
        message = await receive()
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise too_large()
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def invalid_request(reason: str, default_headers: list[tuple[bytes, bytes]]) -> bytes:
    """The raw HTTP/1.1 answer to an unreadable request: JSON, then the connection closes."""
    body = json.dumps({"error": "INVALID_REQUEST", "message": f"request: {reason.rstrip('.')}: the request line, "
                       "a header or the Content-Length is malformed; nothing was done"}).encode()
    head = [b"HTTP/1.1 400 Bad Request"]
    head += [name + b": " + value for name, value in default_headers]
    head += [b"content-type: application/json", b"content-length: " + str(len(body)).encode(),
             b"connection: close"]
    return b"\r\n".join(head) + b"\r\n\r\n" + body


class OneSendPerTurn:
    """A connection's transport that holds a write back until the next one or the end of the
    event loop's turn, then sends both at once: uvicorn writes a response's head and its body
    separately, two system calls that woke the client twice (under load the first write alone
    took an eighth of the server's interpreter time). Everything but writing and closing is the
    transport's own."""

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._held = b""

    def write(self, data: bytes) -> None:
        if self._held:  # a body after its head: both leave now
            data, self._held = self._held + data, b""
            self._transport.write(data)
        elif data:
            self._held = data
            self._loop.call_soon(self.flush)

    def flush(self) -> None:
        """Send a write held back (a head whose body never came in the same turn, say)."""
        if self._held:
            data, self._held = self._held, b""
            if not self._transport.is_closing():
                self._transport.write(data)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class JsonErrorsH11(H11Protocol):
    """uvicorn's pure-Python protocol, with unreadable requests answered in JSON and a
    response's writes sent at once."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(OneSendPerTurn(transport, self.loop))  # type: ignore[arg-type]

    def send_400_response(self, msg: str) -> None:
        self.transport.write(invalid_request(msg, self.server_state.default_headers))
        self.transport.close()


try:  # uvicorn's choice too: httptools when installed (uvicorn[standard]), else h11
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # pragma: no cover - the pure-Python parser then
    PROTOCOL = "slotforge.rgs.api.http:JsonErrorsH11"
else:
    PROTOCOL = "slotforge.rgs.api.http:JsonErrorsHttpTools"

    class JsonErrorsHttpTools(HttpToolsProtocol):
        """uvicorn's httptools protocol, with unreadable requests answered in JSON and a
        response's writes sent at once."""

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(OneSendPerTurn(transport, self.loop))  # type: ignore[arg-type]

        def send_400_response(self, msg: str) -> None:
            self.transport.write(invalid_request(msg, self.server_state.default_headers))
            self.transport.close()

