"""Schema post-processing: the answers every operation can give, whatever its view.

Any request can carry a URL too long for the server (414 `url_too_long`, ttr_server/limits.py), so every
operation lists it, with the error body.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.generators import SchemaGenerator
from rest_framework.request import Request

from games.api.errors import ERROR_STATUSES

EVERYWHERE = (414,)


def add_common_errors(
    result: dict[str, Any], generator: SchemaGenerator, request: Request | None, public: bool
) -> dict[str, Any]:
    error_ref = {"$ref": "#/components/schemas/Error"}
    for path in result.get("paths", {}).values():
        for operation in path.values():
            for status in EVERYWHERE:
                operation["responses"].setdefault(
                    str(status),
                    {"description": ERROR_STATUSES[status], "content": {"application/json": {"schema": error_ref}}},
                )
    return result
