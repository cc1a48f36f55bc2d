"""GitHub's JSON shapes for the sandbox's users and labels, with ids derived from names so the
same login or label always gets the same id.
"""

from __future__ import annotations

import hashlib
from typing import Any

#: The account the demo token acts as (an agent once registered; the demo world registers it).
DEMO_LOGIN = "demo-agent"

__all__ = [
    "DEMO_LOGIN",
    "category_node_id",
    "label_json",
    "repo_node_id",
    "stable_int",
    "user_json",
]


def stable_int(text: str, modulo: int = 90_000_000) -> int:
    return 10_000_000 + int(hashlib.sha256(text.encode()).hexdigest()[:12], 16) % modulo


def user_json(login: str, base: str) -> dict[str, Any]:
    return {
        "login": login,
        "id": stable_int(login),
        "node_id": f"U_kgROOST{stable_int(login)}",
        "avatar_url": f"{base}/avatars/{login}.png",
        "html_url": f"{base}/{login}",
        "type": "User",
        "site_admin": False,
    }


def label_json(name: str, api: str) -> dict[str, Any]:
    digest = hashlib.sha256(name.encode()).hexdigest()
    return {
        "id": stable_int("label:" + name),
        "node_id": f"LA_kwROOST{digest[:10]}",
        "url": f"{api}/labels/{name}",
        "name": name,
        "color": digest[:6],
        "default": False,
        "description": None,
    }


def repo_node_id(owner: str, repo: str) -> str:
    """The repository's GraphQL node id (``R_kg…``), the same for the same name."""
    return "R_kgROOST" + hashlib.sha256(f"{owner}/{repo}".lower().encode()).hexdigest()[:10]


def category_node_id(slug: str) -> str:
    """The node id of a channel's Discussion category (``DIC_kw…``)."""
    return "DIC_kwROOST" + hashlib.sha256(slug.encode()).hexdigest()[:10]
