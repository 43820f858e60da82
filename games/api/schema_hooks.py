"""Schema post-processing: the answers every operation can give, whatever its view, and what drf-spectacular
cannot say of request bodies.

Any request can carry a URL too long for the server (414 `url_too_long`, ttr_server/limits.py), so every
operation lists it, with the error body; an operation that takes no body lists the 400 a body gets there
(games/api/bodies.py) and the 413 of one too large. drf-spectacular never describes a DELETE's body, and
`DELETE /api/me` takes one (the password, docs/API.md): `add_delete_bodies` writes it in from the view's own
serializer, with the rules between fields that the serializers' `validate` hold (a JSON schema per field cannot
say them: `oneOf`, `uniqueItems`), so the schema refuses what the server refuses.
"""

from __future__ import annotations

import copy
from typing import Any

from drf_spectacular.generators import SchemaGenerator
from rest_framework.request import Request

from games.api.error_responses import ERROR_STATUSES

EVERYWHERE = (414,)
WITHOUT_BODY = {  # what an operation that takes no body answers to one (games/api/bodies.py)
    400: "a body, where this operation takes none (`invalid`, field `body`)",
    413: ERROR_STATUSES[413],
}


def add_common_errors(
    result: dict[str, Any], generator: SchemaGenerator, request: Request | None, public: bool
) -> dict[str, Any]:
    error_ref = {"$ref": "#/components/schemas/Error"}
    for path in result.get("paths", {}).values():
        for operation in path.values():
            answers = {status: ERROR_STATUSES[status] for status in EVERYWHERE}
            if "requestBody" not in operation:
                answers.update(WITHOUT_BODY)
            for status, description in answers.items():
                operation["responses"].setdefault(
                    str(status), {"description": description, "content": {"application/json": {"schema": error_ref}}}
                )
    return result


# DELETE operations that take a body: path -> the serializer's component (games/api/views_account.py)
DELETE_BODIES = {"/api/me": "PasswordRequest"}


def cross_field_rules() -> dict[str, dict[str, Any]]:
    """Request components -> the rules between their fields (games/api/serializers.py), merged into them."""
    from games.api import serializers as s  # (here: the hooks are loaded by the settings, early)

    return {"GameCreate": s.GAME_CREATE_RULES, "Queue": s.QUEUE_RULES, "Read": s.READ_RULES}


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
    components = result.get("components", {}).get("schemas", {})
    for name, rules in cross_field_rules().items():
        _merge(components[name], copy.deepcopy(rules))
    for path in result.get("paths", {}).values():
        for operation in path.values():
            if _names_a_field(_request_schema(operation, components)):
                operation["requestBody"]["required"] = True  # no body is {}, which names none: refused
    return result


def _request_schema(operation: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    ref = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {})
    return dict(components.get(ref.get("$ref", "").rpartition("/")[2], {}))


def _names_a_field(schema: dict[str, Any]) -> bool:
    """Whether every body this schema allows names at least one field (so no body at all is refused)."""
    branches = schema.get("oneOf", [])
    return bool(schema.get("required")) or (bool(branches) and all(b.get("required") for b in branches))


def _merge(schema: dict[str, Any], rules: dict[str, Any]) -> None:
    """Write `rules` into `schema`: objects merged key by key, anything else set."""
    for key, value in rules.items():
        if isinstance(value, dict) and isinstance(schema.get(key), dict):
            _merge(schema[key], value)
        else:
            schema[key] = value
