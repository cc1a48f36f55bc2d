"""The sandbox's read interface: ``GET /state/<file>`` with ETags and a correct manifest.

What it serves comes from the published demo network, bent by the read fault knobs (latency,
errors, hash mismatch, truncation, malformed or schema-invalid files, no manifest). Beside the
state files it publishes what the deployment does: its contract (``/skill.json``), its
repository manifest (``/state/manifest.json``: repository and Discussion category ids), the
newer processor's receipts (``/state/inbox/…``) and each agent's soul page
(``/state/memory/<id>.md``, Markdown, not in the manifest; 404 for an agent without one, and
for all of them, or one, while the ``unpublished`` knob names ``memory`` or
``memory/<id>.md``). The same files answer at a raw repository's
URL too (``/raw/{owner}/{repo}/{branch}/state/…``, ``…/skill.json``), for clients that build
their read URLs that way.
"""

from __future__ import annotations

import hashlib
import json

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tui.network.state_files import CHANNELS, MANIFEST_FILE, MEMORY_DIR, STATE_DIR
from tui.sandbox.conditional import JSON_TYPE, etag_matches
from tui.sandbox.deployment import skill_document
from tui.sandbox.faults import corrupt_same_size, malformed_bytes, schema_invalid_bytes
from tui.sandbox.generator import build_manifest
from tui.sandbox.github_shapes import category_node_id, repo_node_id
from tui.sandbox.state import SandboxState, base_url_of, pause, sandbox_of

__all__ = ["MARKDOWN_TYPE", "RAW_PATH", "REPO_MANIFEST", "repo_manifest", "routes", "state_file"]

#: What a soul page is served as.
MARKDOWN_TYPE = "text/markdown; charset=utf-8"

#: Where the files are at a raw repository's URL: ``{base}/raw/{owner}/{repo}/{branch}/…``.
RAW_PATH = "/raw"


def _served(state: SandboxState, name: str) -> tuple[bytes, str] | None:
    """The bytes (and their hash) the read interface serves for ``name`` under the
    persistent faults (unpublished, malformed or schema-invalid files, and the manifest that
    lists them); None: not served."""
    faults = state.faults
    if name in faults.unpublished:
        return None
    broken = {n for n in faults.malformed | faults.schema_invalid if n != MANIFEST_FILE}
    if not broken and not faults.unpublished:
        return state.network.entry(name)
    files, _ = state.network.snapshot()
    for file_name in faults.unpublished:
        files.pop(file_name, None)
    for file_name in broken:
        if file_name in files:
            if file_name in faults.malformed:
                files[file_name] = malformed_bytes(files[file_name])
            else:
                files[file_name] = schema_invalid_bytes(files[file_name])
    if name == MANIFEST_FILE:
        data = build_manifest(files, state.network.generated_at)
    elif name in files:
        data = files[name]
    else:
        return None
    return data, hashlib.sha256(data).hexdigest()


#: The deployment's repository manifest (not the manifest of hashes).
REPO_MANIFEST = "manifest.json"


def repo_manifest(state: SandboxState, base: str) -> bytes:
    """``state/manifest.json`` as the deployment writes it: owner, repo, the repository's node
    id and one Discussion category per channel."""
    channels = state.network.docs[CHANNELS].get("channels", {})
    slugs = sorted(channels)
    document = {
        "_meta": {"description": "Static manifest of the roost demo network"},
        "owner": state.owner,
        "repo": state.repo,
        "branch": "main",
        "repo_id": repo_node_id(state.owner, state.repo),
        "raw_base_url": base,
        "category_ids": {slug: category_node_id(slug) for slug in slugs},
        "category_names": {slug: str(channels[slug].get("name") or slug) for slug in slugs},
    }
    return json.dumps(document, indent=2, ensure_ascii=False).encode("utf-8")


def _conditional(request: Request, data: bytes, media_type: str = JSON_TYPE) -> Response:
    etag = f'"{hashlib.sha256(data).hexdigest()}"'
    headers = {"ETag": etag, "Cache-Control": "no-cache"}
    if etag_matches(request.headers.get("if-none-match"), etag):
        return Response(status_code=304, headers=headers)
    return Response(data, 200, headers=headers, media_type=media_type)


def soul_page(state: SandboxState, name: str) -> bytes | None:
    """The soul page served for ``memory/<id>.md``, or None (no such agent, no page, or the
    pages unpublished)."""
    agent = name.removeprefix(f"{MEMORY_DIR}/").removesuffix(".md")
    unpublished = state.faults.unpublished
    if not agent or "/" in agent or MEMORY_DIR in unpublished or name in unpublished:
        return None
    return state.network.soul_page(agent)


async def skill_file(request: Request) -> Response:
    state = sandbox_of(request)
    await pause(state.faults.latency)
    if state.faults.no_skill:
        return JSONResponse({"message": "Not Found"}, 404)
    document = state.skill_override or skill_document(
        base_url_of(request), state.owner, state.repo, classic=state.processor == "classic"
    )
    return _conditional(request, json.dumps(document, indent=2).encode("utf-8"))


async def state_file(request: Request) -> Response:
    return await _state_file(request, request.path_params["file"])


async def raw_file(request: Request) -> Response:
    """The deployment's files at a raw repository URL, as clients that read
    ``{raw}/{owner}/{repo}/{branch}/state/<file>`` ask for them (any branch)."""
    params = request.path_params
    state = sandbox_of(request)
    path = params["path"]
    known = (params["owner"].lower(), params["repo"].lower()) == (
        state.owner.lower(),
        state.repo.lower(),
    )
    if known and path == "skill.json":
        return await skill_file(request)
    if known and path.startswith(f"{STATE_DIR}/"):
        return await _state_file(request, path.removeprefix(f"{STATE_DIR}/"))
    await pause(state.faults.latency)
    return JSONResponse({"message": "Not Found"}, 404)


async def _state_file(request: Request, name: str) -> Response:
    state = sandbox_of(request)
    faults = state.faults
    await pause(faults.latency)
    failure = faults.take_read_failure()
    if failure is not None:
        return JSONResponse({"message": f"sandbox fault: {failure}"}, failure)
    if name == MANIFEST_FILE and faults.no_manifest:
        return JSONResponse({"message": "Not Found"}, 404)
    if name == REPO_MANIFEST:
        return _conditional(request, repo_manifest(state, base_url_of(request)))
    if name.startswith("inbox/"):
        receipt = state.receipts.get(name)
        if receipt is None:
            return JSONResponse({"message": "Not Found"}, 404)
        return _conditional(request, receipt)
    if name.startswith(f"{MEMORY_DIR}/") and name.endswith(".md"):
        page = soul_page(state, name)
        if page is None:
            return JSONResponse({"message": "Not Found"}, 404)
        return _conditional(request, page, MARKDOWN_TYPE)
    entry = _served(state, name)
    if entry is None:
        return JSONResponse({"message": "Not Found"}, 404)
    data, digest = entry
    mismatch = name != MANIFEST_FILE and faults.mismatch.get(name, 0) != 0
    if mismatch:
        data = corrupt_same_size(data)
        digest = hashlib.sha256(data).hexdigest()
    etag = f'"{digest}"'
    headers = {"ETag": etag, "Cache-Control": "no-cache"}
    if etag_matches(request.headers.get("if-none-match"), etag):
        return Response(status_code=304, headers=headers)
    if mismatch:
        faults.take_mismatch(name)
    if faults.take_truncate(name):
        data = data[: len(data) // 2]
    return Response(data, 200, headers=headers, media_type=JSON_TYPE)


def routes() -> list[Route]:
    """The read interface's routes (the read URL is the app's base URL)."""
    return [
        Route(f"/{STATE_DIR}/{{file:path}}", state_file, methods=["GET"]),
        Route("/skill.json", skill_file, methods=["GET"]),
        Route(RAW_PATH + "/{owner}/{repo}/{branch}/{path:path}", raw_file, methods=["GET"]),
    ]
