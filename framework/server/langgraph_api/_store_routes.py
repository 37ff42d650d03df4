"""The store endpoints over cadre's encrypted store (:class:`LangGraphStore`). Each tenant
sees its own namespaces: they live under ``("tenant", TENANT)``, so they are sealed under the
tenant's data key and ``cadre purge --scope tenant:TENANT`` erases them."""

from __future__ import annotations

from typing import Any

from langgraph.store.base import Item, SearchItem
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from framework.server._http import blocking, body_of, caller_of, json_response, server_of
from framework.server._requests import (
    DeleteItemBody,
    NamespacesBody,
    PutItemBody,
    SearchItemsBody,
)
from framework.server._shapes import iso

__all__ = ["store_routes"]


def _own(tenant: str, namespace: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """The tenant's namespace ``namespace``; 422 for a label the store cannot keep."""
    for label in namespace:
        _check_label(label)
    return ("tenant", tenant, *namespace)


_FORBIDDEN_IN_LABELS = (".", "/", "\x00")


def _check_label(label: str) -> None:
    if not label:
        raise HTTPException(422, "namespace: labels must not be empty")
    if any(mark in label for mark in _FORBIDDEN_IN_LABELS):
        raise HTTPException(
            422, f"namespace: label {label!r} holds '.', '/' or NUL: use letters, digits, - or _"
        )


def _item(found: Item | SearchItem) -> dict[str, Any]:
    shown: dict[str, Any] = {
        "namespace": list(found.namespace[2:]),
        "key": found.key,
        "value": found.value,
        "created_at": iso(found.created_at.timestamp()),
        "updated_at": iso(found.updated_at.timestamp()),
    }
    if isinstance(found, SearchItem):
        shown["score"] = found.score
    return shown


async def _put(request: Request) -> Response:
    caller = caller_of(request, "store_write")
    body = await body_of(request, PutItemBody)
    store = server_of(request).store
    namespace = _own(caller.tenant, body.namespace)
    await blocking(
        lambda: store.put(namespace, body.key, body.value, index=body.index, ttl=body.ttl)
    )
    return Response(status_code=204)


async def _get(request: Request) -> Response:
    caller = caller_of(request, "store_read")
    key = request.query_params.get("key")
    dotted = request.query_params.get("namespace", "")
    if not key:
        raise HTTPException(422, "key: required")
    namespace = _own(caller.tenant, dotted.split(".") if dotted else [])
    refresh = request.query_params.get("refresh_ttl")
    store = server_of(request).store
    found = await blocking(
        lambda: store.get(
            namespace, key, refresh_ttl=None if refresh is None else refresh == "true"
        )
    )
    if found is None:
        raise HTTPException(404, f"item {key!r} not found in namespace {dotted!r}")
    return json_response(_item(found))


async def _delete(request: Request) -> Response:
    caller = caller_of(request, "store_write")
    body = await body_of(request, DeleteItemBody)
    store = server_of(request).store
    namespace = _own(caller.tenant, body.namespace)
    await blocking(lambda: store.delete(namespace, body.key))
    return Response(status_code=204)


async def _search(request: Request) -> Response:
    caller = caller_of(request, "store_read")
    body = await body_of(request, SearchItemsBody)
    store = server_of(request).store
    prefix = _own(caller.tenant, body.namespace_prefix)
    found = await blocking(
        lambda: store.search(
            prefix,
            query=body.query,
            filter=body.filter,
            limit=body.limit,
            offset=body.offset,
            refresh_ttl=body.refresh_ttl,
        )
    )
    return json_response({"items": [_item(item) for item in found]})


async def _namespaces(request: Request) -> Response:
    caller = caller_of(request, "store_read")
    body = await body_of(request, NamespacesBody)
    store = server_of(request).store
    prefix = _own(caller.tenant, body.prefix or ())
    depth = None if body.max_depth is None else body.max_depth + 2
    found = await blocking(
        lambda: store.list_namespaces(
            prefix=prefix,
            suffix=tuple(body.suffix) if body.suffix else None,
            max_depth=depth,
            limit=body.limit,
            offset=body.offset,
        )
    )
    return json_response({"namespaces": [list(namespace[2:]) for namespace in found]})


def store_routes() -> list[Route]:
    """The store endpoints."""
    return [
        Route("/store/items", _put, methods=["PUT"]),
        Route("/store/items", _get, methods=["GET"]),
        Route("/store/items", _delete, methods=["DELETE"]),
        Route("/store/items/search", _search, methods=["POST"]),
        Route("/store/namespaces", _namespaces, methods=["POST"]),
    ]
