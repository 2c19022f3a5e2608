"""uvicorn's HTTP protocols, answering a request they cannot parse in the server's error form.

``uvicorn.run(..., http=PROTOCOL)``: an import string, so that worker processes load it too.

A request uvicorn cannot read (a malformed ``Content-Length``, request line or header) never
reaches the application: uvicorn answers it itself, in plain text. These subclasses of its two
protocols answer ``400 {"error": "INVALID_REQUEST", "message": ...}`` instead, as JSON like every
other error, and close the connection as uvicorn does (the stream cannot be trusted past it).
"""

from __future__ import annotations

import json

from uvicorn.protocols.http.h11_impl import H11Protocol


def invalid_request(reason: str, default_headers: list[tuple[bytes, bytes]]) -> bytes:
    """The raw HTTP/1.1 answer to an unreadable request: JSON, then the connection closes."""
    body = json.dumps({"error": "INVALID_REQUEST", "message": f"request: {reason.rstrip('.')}: the request line, "
                       "a header or the Content-Length is malformed; nothing was done"}).encode()
    head = [b"HTTP/1.1 400 Bad Request"]
    head += [name + b": " + value for name, value in default_headers]
    head += [b"content-type: application/json", b"content-length: " + str(len(body)).encode(),
             b"connection: close"]
    return b"\r\n".join(head) + b"\r\n\r\n" + body


class JsonErrorsH11(H11Protocol):
    """uvicorn's pure-Python protocol, with unreadable requests answered in JSON."""

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
        """uvicorn's httptools protocol, with unreadable requests answered in JSON."""

        def send_400_response(self, msg: str) -> None:
            self.transport.write(invalid_request(msg, self.server_state.default_headers))
            self.transport.close()
