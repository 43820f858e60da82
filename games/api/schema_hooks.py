"""Schema post-processing: the answers every operation can give, whatever its view, and the one body drf-spectacular
leaves out.

Any request can carry a URL too long for the server (414 `url_too_long`, ttr_server/limits.py), so every
operation lists it, with the error body. drf-spectacular never describes a DELETE's body, and `DELETE /api/me`
takes one (the password, docs/API.md): `add_delete_bodies` writes it in from the view's own serializer.
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


# DELETE operations that take a body: path -> the serializer's component (games/api/views_account.py)
DELETE_BODIES = {"/api/me": "PasswordRequest"}


def add_delete_bodies(
    result: dict[str, Any], generator: SchemaGenerator, request: Request | None, public: bool
) -> dict[str, Any]:
    from games.api.views_account import PasswordSerializer  # (here: the hooks are loaded by the settings, early)

    for path, name in DELETE_BODIES.items():
        operation = result.get("paths", {}).get(path, {}).get("delete")
        if operation is None:
            continue
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {"password": {"type": "string", "writeOnly": True, "maxLength": 128}},
            "required": ["password"],
        }
        assert set(PasswordSerializer().fields) == set(schema["properties"])  # the serializer and this agree
        result.setdefault("components", {}).setdefault("schemas", {})[name] = schema
        operation["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{name}"}}},
        }
    return result
