"""The server's errors: ``{"error": CODE, "message": ..., "field"?: ...}`` with their status."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """An answer other than success, with the status and code the contract names."""

    def __init__(self, status: int, code: str, message: str, field: str | None = None,
                 headers: dict[str, str] | None = None, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.headers = headers or {}
        self.extra = extra

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"error": self.code, "message": self.message}
        if self.field:
            body["field"] = self.field
        return {**body, **self.extra}


def not_found(what: str) -> ApiError:
    return ApiError(404, "NOT_FOUND", f"{what} not found")


def invalid(field: str, message: str, code: str = "VALIDATION") -> ApiError:
    return ApiError(422, code, message, field=field)


def field_of(message: str) -> str | None:
    """The field an engine error names ("bet.lines: expected ..." -> "bet.lines")."""
    head = message.split(":", 1)[0]
    return head if head and " " not in head else None
