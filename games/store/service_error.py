"""The one error a use case raises to refuse a request (games/play/services.py and its neighbours)."""

from __future__ import annotations


class ServiceError(Exception):
    """A refused request: `code` and `status` are the API's (docs/API.md)."""

    status = 400

    def __init__(self, code: str, detail: str, *, status: int | None = None, **extra: str | int | None) -> None:
        super().__init__(detail)
        self.code, self.detail, self.extra = code, detail, extra
        if status is not None:
            self.status = status
