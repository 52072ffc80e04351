"""Every route fuzzed from its own contract: requests drawn from contract.schema.json with
hypothesis-jsonschema, the same requests with one field broken, and bytes that are not JSON at
all. No input may produce a 5xx, a hang or a traceback; every answer is JSON, an error is
`{"error", "kind"}`, and a success is the schema's answer.

Bounded for CI: a few hundred requests in all, derandomized.
The figures (requests per route, statuses seen) are printed and recorded in docs/security.md.
"""

from __future__ import annotations

import asyncio
import collections
import copy
import json
import random
import time
from pathlib import Path
from typing import Any

import pytest

hypothesis = pytest.importorskip("hypothesis")
hypothesis_jsonschema = pytest.importorskip("hypothesis_jsonschema")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

pytest_plugins = ("pytest_jupyter.jupyter_server",)

#: requests drawn per route from each strategy (valid, broken, not JSON)
EXAMPLES = {"valid": 30, "broken": 30, "garbage": 8}
#: seconds one request may take before it counts as a hang
HANG = 60

CUSTOM = ("x-errors", "x-kind", "x-routes", "tsType", "$comment")


def _contract() -> dict[str, Any]:
    from magicpush_lab.server.validation import contract

    return contract()


def _plain(node: Any) -> Any:
    """The schema without this project's keywords (hypothesis-jsonschema reads standard ones)."""
    if isinstance(node, dict):
        return {k: _plain(v) for k, v in node.items() if k not in CUSTOM}
    if isinstance(node, list):
        return [_plain(v) for v in node]
    return node


def _predicate_as_any_of(defs: dict[str, Any]) -> dict[str, Any]:
    """The Predicate definition's if/then per kind as an anyOf of one schema per kind, which
    hypothesis-jsonschema draws from directly (the same expressions)."""
    branches = []
    for rule in defs["Predicate"]["allOf"]:
        kind = rule["if"]["properties"]["kind"]
        for name in kind.get("enum", [kind.get("const")]):
            then = copy.deepcopy(rule["then"])
            if "$ref" in then:
                then = copy.deepcopy(defs[then["$ref"].rsplit("/", 1)[1]])
            then.setdefault("properties", {})["kind"] = {"const": name}
            then["required"] = sorted(set(then.get("required", [])) | {"kind"})
            then["type"] = "object"
            branches.append(then)
    return {"anyOf": branches}


PREDICATE_SLOT = {"$predicate": True}


def _inline(node: Any, defs: dict[str, Any], stack: tuple[str, ...], depth: int) -> Any:
    """`node` with every $ref replaced by its definition, recursion cut after `depth` levels, and
    each predicate left as a slot that `predicates()` fills (hypothesis-jsonschema draws from
    schemas without recursive references, and slowly from big alternatives)."""
    if isinstance(node, list):
        return [_inline(v, defs, stack, depth) for v in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[1]
        if name == "Predicate":
            return {"const": PREDICATE_SLOT}
        if stack.count(name) >= depth:
            return {"not": {}}
        return _inline(defs[name], defs, stack + (name,), depth)
    return {k: _inline(v, defs, stack, depth) for k, v in node.items()}


def _flat(node: Any) -> Any:
    """`allOf`s of objects merged into one object (their `if`/`then` left out): drawing from an
    allOf makes hypothesis-jsonschema merge schemas on every draw, which is slow."""
    if isinstance(node, list):
        return [_flat(v) for v in node]
    if not isinstance(node, dict):
        return node
    node = {k: _flat(v) for k, v in node.items()}
    if "allOf" in node:
        parts = [p for p in node.pop("allOf") if "if" not in p]
        for part in parts:
            for key, value in part.items():
                if key == "properties":
                    node.setdefault("properties", {}).update(value)
                elif key == "required":
                    node["required"] = sorted(set(node.get("required", [])) | set(value))
                else:
                    node.setdefault(key, value)
    return node


def _small(node: Any) -> Any:
    """Arrays of at most 3 items and texts of at most 40 characters: the fuzz is about shapes
    (the size limits have tests of their own), and a few hundred requests should take seconds."""
    if isinstance(node, list):
        return [_small(v) for v in node]
    if not isinstance(node, dict):
        return node
    node = {k: _small(v) for k, v in node.items()}
    if node.get("type") == "array" or "items" in node:
        node["maxItems"] = min(node.get("maxItems", 3), 3)
    if "string" in (node.get("type") if isinstance(node.get("type"), list) else [node.get("type")]):
        node["maxLength"] = min(node.get("maxLength", 40), 40)
    return node


def request_schema(definition: str, depth: int = 1) -> dict[str, Any]:
    """A request definition as hypothesis-jsonschema draws it: references inlined, predicates as
    slots, allOfs merged, sizes small."""
    defs = _plain(_contract())["definitions"]
    out = _small(_flat(_inline(defs[definition], defs, (definition,), depth)))
    out["$schema"] = "http://json-schema.org/draft-07/schema#"
    return out


def predicates(defs: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Predicates of the contract's Predicate definition: one branch per kind, its fields drawn
    from their schemas, its sub-expressions drawn recursively."""
    branches = _predicate_as_any_of(defs)["anyOf"]

    def is_predicate(node: Any) -> bool:
        return isinstance(node, dict) and node.get("$ref") == "#/definitions/Predicate"

    def field(prop: dict[str, Any], children: Any) -> Any:
        if is_predicate(prop):
            return children
        if prop.get("type") == "array" and is_predicate(prop.get("items")):
            return st.lists(children, min_size=prop.get("minItems", 0), max_size=3)
        if prop.get("type") == "array" and isinstance(prop.get("items"), dict) and is_predicate(
                prop["items"].get("items")):  # CASE branches: [condition, value] pairs
            return st.lists(st.lists(children, min_size=2, max_size=2), max_size=3)
        return hypothesis_jsonschema.from_schema(_small(_inline(prop, defs, (), 1)))

    def kinds(children: Any, leaves_only: bool) -> Any:
        options = []
        for branch in branches:
            props = branch["properties"]
            recursive = any("Predicate" in json.dumps(p) for p in props.values())
            if leaves_only and recursive:
                continue
            fields = {k: field(p, children) for k, p in props.items() if p != {}}
            required = {k: v for k, v in fields.items() if k in branch["required"]}
            optional = {k: v for k, v in fields.items() if k not in branch["required"]}
            options.append(st.fixed_dictionaries(required, optional=optional))
        return st.one_of(options)

    return st.recursive(kinds(None, True), lambda children: kinds(children, False), max_leaves=6)


def _fill(value: Any, supply: list[Any]) -> Any:
    if value == PREDICATE_SLOT:
        return supply.pop() if supply else {"kind": "Col", "name": "v"}
    if isinstance(value, dict):
        return {k: _fill(v, supply) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, supply) for v in value]
    return value


def requests_of(definition: str) -> st.SearchStrategy[Any]:
    """Requests of a definition of the contract: hypothesis-jsonschema for the request, the
    predicates in it from `predicates()`."""
    defs = _plain(_contract())["definitions"]
    shape = hypothesis_jsonschema.from_schema(request_schema(definition))
    return st.tuples(shape, st.lists(predicates(defs), min_size=6, max_size=6)).map(
        lambda drawn: _fill(drawn[0], list(drawn[1])))


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10**30, 10**30) | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            found += _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found += _paths(v, prefix + (i,))
    return found


def _broken(args: tuple[Any, random.Random, Any, bool]) -> Any:
    """A valid request with one field replaced by another JSON value, or dropped."""
    request, rnd, value, drop = args
    request = copy.deepcopy(request)
    paths = [p for p in _paths(request) if p]
    if not paths:
        return value
    path = rnd.choice(paths)
    parent = request
    for part in path[:-1]:
        parent = parent[part]
    if drop and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return request


GARBAGE = st.one_of(st.binary(max_size=64), st.text(max_size=64).map(str.encode),
                    JSON_VALUES.map(lambda v: json.dumps(v).encode()))


@pytest.fixture
def jp_server_config():
    return {"ServerApp": {"jpserver_extensions": {"magicpush_lab": True}}}


@pytest.fixture
def fuzz_root(jp_root_dir: Path) -> Path:
    (jp_root_dir / "nb").mkdir()
    (jp_root_dir / "nb" / "notes.txt").write_text("not a notebook\n")
    (jp_root_dir / "nb" / "bad.ipynb").write_text("{ not json")
    return jp_root_dir


ROUTES = {"optimize": "OptimizeRequest", "measure": "MeasureRequest", "runtime": "RuntimeRequest",
          "replay": "ReplayRequest"}
RESPONSES = {"optimize": "OptimizeResult", "measure": "MeasureResult", "runtime": "RuntimeResult",
             "replay": "OptimizeResult"}
REPLAY_PATHS = ["nb/notes.txt", "nb/bad.ipynb", "nb", "../etc/passwd", ".hidden.py", "nb/missing.py"]


def _with_real_targets(route: str, request: Any, kernel_id: str, rnd: random.Random) -> Any:
    """Point half of the requests at things that exist: the running kernel, files under the root."""
    if not isinstance(request, dict) or rnd.random() < 0.5:
        return request
    if route in ("optimize", "measure", "runtime") and "kernel_id" in request:
        request = {**request, "kernel_id": kernel_id}
    if route == "runtime" and isinstance(request.get("suggestion"), dict) and request["suggestion"].get("kind") == \
            "equivalent":  # the schema's if/then, left out of the drawing
        request = {**request, "suggestion": {"late_filter_event": 1, **request["suggestion"]}}
    if route == "replay" and "path" in request:
        request = {**request, "path": rnd.choice(REPLAY_PATHS)}
    return request


async def test_no_request_to_any_route_gives_a_5xx_a_hang_or_a_traceback(jp_fetch, jp_serverapp, fuzz_root):
    import jsonschema

    from magicpush_lab.server.validation import validator

    kernel_id = await jp_serverapp.kernel_manager.start_kernel()  # a kernel without tracing or Spark
    loop = asyncio.get_running_loop()
    statuses: dict[str, collections.Counter[int]] = collections.defaultdict(collections.Counter)
    kinds: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    slowest: dict[str, float] = collections.defaultdict(float)
    problems: list[str] = []

    def send(route: str, body: bytes | None) -> None:
        method = "GET" if body is None else "POST"
        started = time.monotonic()
        async def fetch() -> Any:  # jp_fetch's client belongs to the server's event loop
            return await jp_fetch("magicpush-lab", route, method=method, body=body, request_timeout=HANG,
                                  raise_error=False)

        try:
            response = asyncio.run_coroutine_threadsafe(fetch(), loop).result(HANG + 10)
        except Exception as err:  # a hang (the client's time-out) or a broken connection
            problems.append(f"{route}: {type(err).__name__} for {body[:200] if body else body!r}")
            return
        took = time.monotonic() - started
        slowest[route] = max(slowest[route], took)
        statuses[route][response.code] += 1
        text = response.body.decode("utf-8", "replace")
        if response.code >= 500 or "Traceback" in text:
            problems.append(f"{route}: {response.code} {text[:300]} for {(body or b'')[:300]!r}")
            return
        try:
            answer = json.loads(text)
        except ValueError:
            problems.append(f"{route}: {response.code} answer is not JSON: {text[:200]}")
            return
        if response.code == 200:
            definition = RESPONSES.get(route, "Health")
            try:
                jsonschema.validate(answer, {**_contract(), "$ref": f"#/definitions/{definition}"})
            except jsonschema.ValidationError as err:
                problems.append(f"{route}: 200 answer not in the contract: {err.message[:200]}")
        else:
            kinds[route][answer.get("kind", "?")] += 1
            try:
                validator("Error").validate(answer)
            except jsonschema.ValidationError as err:
                problems.append(f"{route}: error answer not in the contract: {err.message[:200]}")

    common = settings(deadline=None, derandomize=True, database=None, print_blob=False,
                      suppress_health_check=list(HealthCheck))

    def fuzz(route: str) -> None:
        valid = requests_of(ROUTES[route])
        aimed = st.tuples(valid, st.randoms(use_true_random=False)).map(
            lambda a: _with_real_targets(route, a[0], kernel_id, a[1]))
        broken = st.tuples(aimed, st.randoms(use_true_random=False), JSON_VALUES, st.booleans()).map(_broken)

        @settings(common, max_examples=EXAMPLES["valid"])
        @given(aimed)
        def valid_requests(request: Any) -> None:
            send(route, json.dumps(request).encode())

        @settings(common, max_examples=EXAMPLES["broken"])
        @given(broken)
        def broken_requests(request: Any) -> None:
            send(route, json.dumps(request).encode())

        @settings(common, max_examples=EXAMPLES["garbage"])
        @given(GARBAGE)
        def garbage(body: bytes) -> None:
            send(route, body)

        valid_requests()
        broken_requests()
        garbage()

    started = time.monotonic()
    try:
        for route in ROUTES:
            await loop.run_in_executor(None, fuzz, route)
        for _ in range(4):
            await loop.run_in_executor(None, send, "health", None)
    finally:
        await jp_serverapp.kernel_manager.shutdown_kernel(kernel_id, now=True)
    took = time.monotonic() - started
    total = sum(sum(c.values()) for c in statuses.values())
    print(f"\nroute fuzz: {total} requests in {took:.1f} s")
    for route in [*ROUTES, "health"]:
        print(f"  {route}: {sum(statuses[route].values())} requests, statuses {dict(sorted(statuses[route].items()))}, "
              f"error kinds {dict(kinds[route].most_common())}, slowest {slowest[route]:.2f} s")
    assert problems == [], "\n".join(problems[:20])
    assert 250 <= total <= 500
