"""A hostile network: every text field the service sends carries markup, escapes or odd Unicode.

``hostile_documents()`` returns valid state documents (they pass the models) whose ids, names,
bios, channel names and rules, titles, authors, URLs, trait names, seed texts, tags and
proposal voters are built from :data:`PAYLOADS`. ``hostile_network()`` serves them from the real
sandbox app (correct manifest and hashes), so tests drive them through the real store and screens.

ARCHITECTURE.md, untrusted text: the app must not crash, must show the text literally, and no escape byte from the
data may reach the terminal.
"""

from __future__ import annotations

import io
import re
from datetime import timedelta
from typing import Any

from tui.sandbox.generator import DEFAULT_EPOCH, iso

__all__ = [
    "LITERALS",
    "LONG",
    "MARKDOWN_ATTACKS",
    "PAYLOADS",
    "assert_clean_terminal",
    "hostile_conversation",
    "hostile_documents",
    "hostile_network",
    "hostile_pulse",
    "terminal_stream",
]

LONG = "L" * 10_000

PAYLOADS: tuple[str, ...] = (
    "[@click=app.quit]click me[/]",
    "a[/]b",
    "[bold]x[/italic]",
    "[link=https://evil.example]evil link[/link]",
    "[OK]",
    "[$accent]accent",
    "\x1b[2Jclear screen",
    "\x1b]0;pwned title\x07",
    "\x9b31mcsi red",
    "nul\x00byte",
    "bell\x07 and backspace\x08",
    "\u202eevil override\u202c",
    "\u0645\u0631\u062d\u0628\u0627 \u0628\u0627\u0644\u0639\u0627\u0644\u0645",  # RTL Arabic
    "e\u0301\u0302\u0303 combining",
    "emoji \U0001f99c\U0001f3f3\ufe0f\u200d\U0001f308\U0001f469\u200d\U0001f469\u200d\U0001f467",
    "tab\there\r\nand crlf",
    LONG,
)

# Texts that must appear literally on screen (markup is shown, not interpreted).
LITERALS: tuple[str, ...] = (
    "[@click=app.quit]",
    "a[/]b",
    "[bold]x[/italic]",
    "[link=https://evil.example]",
    "[OK]",
    "[$accent]",
    "\u241b[2J",  # ESC shown as its control picture
)

_ID_PAYLOADS = (
    "[@click=app.quit]",
    "a[/]b",
    "[bold]x[/italic]",
    "[OK]",
    "[$accent]",
    "id\x1b[2J",
    "id\x1b]0;t\x07",
    "id\x9b31m",
    "id\x00nul",
    "\u0645\u0631\u062d\u0628\u0627",
    "\U0001f99c-parrot",
    LONG[:500],
)


def _p(index: int) -> str:
    return PAYLOADS[index % len(PAYLOADS)]


def hostile_documents() -> dict[str, dict[str, Any]]:
    """agents/channels/trending/stats/seeds documents full of hostile text."""
    stamp = iso(DEFAULT_EPOCH)
    channel_slugs = [
        "[@click=app.quit]",
        "a[/]b",
        "chan\x1b[2J",
        "\u0645\u0631\u062d\u0628\u0627",
        "plain",
    ]
    agents: dict[str, Any] = {}
    for n, agent_id in enumerate(_ID_PAYLOADS):
        agents[agent_id] = {
            "name": _p(n),
            "display_name": _p(n + 1) if n % 2 else None,
            "framework": _p(n + 2)[:40],
            "bio": "\n".join(PAYLOADS),
            "avatar_seed": _p(n + 3),
            "joined": "2026-01-01T00:00:00Z" if n % 3 else "not a date \x1b[2J",
            "heartbeat_last": stamp,
            "status": ["active", "dormant", "[OK]", "\x1b[31mred"][n % 4],
            "subscribed_channels": channel_slugs,
            "post_count": n,
            "comment_count": 2 * n,
            "karma": 10 * n,
            "karma_balance": n,
            "traits": {_p(i): (i % 5) / 4 for i in range(n, n + 4)},
            "callback_url": "javascript:alert(1)",
            "gateway_url": "https://evil\x1b]0;x\x07.example",
            "verified": bool(n % 2),
            "[@click=app.quit]extra": _p(n + 4),
            "nested\x1b[2J": {"deep": [_p(n + 5), {"k\x9b": _p(n + 6)}]},
        }
        agents[agent_id] = {k: v for k, v in agents[agent_id].items() if v is not None}
    channels: dict[str, Any] = {}
    for n, slug in enumerate(channel_slugs):
        channels[slug] = {
            "slug": slug,
            "name": _p(n + 7),
            "description": _p(n + 8),
            "rules": "\n".join(PAYLOADS[n : n + 6]),
            "created_by": _ID_PAYLOADS[n],
            "created_at": stamp,
            "post_count": n * 3,
            "topic_affinity": [_p(n), _p(n + 1)],
            "verified": n % 2 == 0,
            "constitution": _p(n + 9),
            "icon": "\x1b[5m",
            "tag": _p(n + 10)[:50],
            "moderators": list(_ID_PAYLOADS[:3]),
        }
    urls = [
        "https://example.org/post/1",
        "javascript:alert(1)",
        "https://evil\x1b]0;t\x07.example/",
        "[link=https://evil]x[/link]",
        "https://example.org/" + "p" * 3000,
    ]
    trending = {
        "trending": [
            {
                "title": _p(n),
                "author": _ID_PAYLOADS[n % len(_ID_PAYLOADS)],
                "channel": channel_slugs[n % len(channel_slugs)],
                "upvotes": n,
                "downvotes": 1,
                "commentCount": n * 2,
                "score": 100.0 - n,
                "number": 1000 + n if n % 4 else None,
                "url": urls[n % len(urls)],
            }
            for n in range(len(PAYLOADS))
        ],
        "top_agents": [
            {
                "agent_id": agent_id,
                "posts": 3,
                "comments_received": 1,
                "reactions_received": 2,
                "score": 9.5,
            }
            for agent_id in _ID_PAYLOADS
        ],
        "top_channels": [
            {"channel": slug, "posts": 2, "comments": 1, "reactions": 1, "score": 4.0}
            for slug in channel_slugs
        ],
        "top_topics": [
            {"topic": _p(n), "posts": 1, "comments": 0, "reactions": 0, "score": 1.0}
            for n in range(6)
        ],
        "_meta": {"generated_at": stamp, "note": _p(3)},
    }
    stats = {
        "last_updated": stamp,
        "total_agents": len(agents),
        "active_agents": 3,
        "dormant_agents": 3,
        "total_posts": 10,
        "total_comments": 20,
        "total_channels": len(channels),
        "total_pokes": 0,
        "[@click=app.quit]": 1,
        "total_\x1b[2J": 2,
        "a[/]b": 3,
    }

    def seed(n: int) -> dict[str, Any]:
        return {
            "id": _ID_PAYLOADS[n % len(_ID_PAYLOADS)] + f"-seed{n}",
            "text": "\n".join(PAYLOADS[n : n + 5]),
            "context": _p(n + 1),
            "source": _p(n + 2)[:60],
            "tags": [_p(n), _p(n + 3)[:30]],
            "injected_at": stamp,
            "frames_active": n,
            "convergence": {
                "score": 0.5,
                "resolved": False,
                "signal_count": 3,
                "channels": channel_slugs,
                "agents": list(_ID_PAYLOADS[:4]),
                "synthesis": _p(n + 4),
            },
        }

    seeds = {
        "active": seed(0),
        "proposals": [
            {
                "id": _ID_PAYLOADS[n] + f"-prop{n}",
                "text": _p(n),
                "context": _p(n + 2),
                "author": _ID_PAYLOADS[(n + 1) % len(_ID_PAYLOADS)],
                "tags": [_p(n + 5)[:20]],
                "proposed_at": stamp,
                "votes": list(_ID_PAYLOADS[: n + 1]),
                "vote_count": n + 1,
            }
            for n in range(6)
        ],
        "queue": [seed(1), seed(2)],
        "history": [seed(3)],
    }
    return {
        "agents.json": {"agents": agents, "_meta": {"count": len(agents), "last_updated": stamp}},
        "channels.json": {"channels": channels, "_meta": {"count": len(channels)}},
        "trending.json": trending,
        "stats.json": stats,
        "seeds.json": seeds,
    }


def hostile_network():
    """A sandbox DemoNetwork serving :func:`hostile_documents`, :func:`hostile_conversation`
    and :func:`hostile_pulse` with a correct manifest."""
    from tui.sandbox.published import DemoNetwork

    documents = hostile_documents()
    return DemoNetwork(
        {
            **documents,
            **hostile_conversation(),
            **hostile_pulse(list(documents["agents.json"]["agents"])),
        },
        generated_at=iso(DEFAULT_EPOCH),
    )


# --------------------------------------------------------------------------- the pulse


def hostile_pulse(
    agents: list[str], number: int = 900, *, target: str | None = None
) -> dict[str, Any]:
    """``notifications.json``, ``pokes.json``, ``changes.json`` and ``social_graph.json``
    whose every text field carries :data:`PAYLOADS`: types, senders, details, messages, a poke
    pin's context (a ``javascript:`` URL, a place of payloads), timestamps that are not dates,
    unknown fields and types, audits with odd counts; each agent in ``agents`` has items (with
    ``target``, every item is that agent's)."""
    notifications = []
    pokes = []
    changes = []
    for n, payload in enumerate(PAYLOADS):
        aimed = target or agents[n % len(agents)]
        sender = agents[(n + 1) % len(agents)]
        stamp = iso(DEFAULT_EPOCH - timedelta(minutes=n)) if n % 3 else payload
        notifications.append(
            {
                "agent_id": aimed,
                "type": payload if n % 2 else "poke",
                "from_agent": payload if n % 4 == 1 else sender,
                "timestamp": stamp,
                "read": False,
                "detail": payload,
                _p(n + 3)[:40]: payload,  # an unknown field
            }
        )
        pokes.append(
            {
                "from_agent": sender if n % 4 else payload,
                "target_agent": aimed,
                "message": payload,
                "timestamp": stamp,
                "context": {
                    "type": payload,
                    "discussion": number if n % 2 else None,
                    "url": ("javascript:alert(1)", f"https://evil.example/{payload[:40]}")[n % 2],
                    "location": {"lat": payload[:20], "lon": 6.05, "name": payload},
                },
                "resolved": bool(n % 2),
                "resolved_at": payload,
            }
        )
        changes.append({"ts": stamp, "type": "heartbeat", "id": payload})
        changes.append({"ts": stamp, "type": payload, "id": sender, "target": payload})
        changes.append(
            {
                "ts": stamp,
                "type": "heartbeat_audit",
                "agents_marked_dormant": payload,
                "total_active": n,
                _p(n + 1)[:40]: payload,
            }
        )
    nodes = [{"id": agent, "degree": 3, "in_degree": 1, "out_degree": 2} for agent in agents]
    edges = [
        {"source": agents[n % len(agents)], "target": payload, "weight": 1e300 if n else 2.5}
        for n, payload in enumerate(PAYLOADS)
    ]
    return {
        "notifications.json": {"notifications": notifications, "_meta": {"count": _p(1)}},
        "pokes.json": {"pokes": pokes, "_meta": {"note": _p(2)}},
        "changes.json": {"last_updated": _p(3), "changes": changes},
        "social_graph.json": {"nodes": nodes, "edges": edges, "_meta": {"top": _p(4)}},
    }


# --------------------------------------------------------------------------- the conversation

#: Markdown a hostile agent writes: markup for Textual and Rich, images and links that would
#: fetch or open, raw HTML, nesting without end, escapes inside code.
MARKDOWN_ATTACKS: tuple[str, ...] = (
    "[@click=app.quit]click me[/] and [b]bold[/b] and a[/]b",
    "![tracker](https://tracker.example/pixel.png) and ![](https://tracker.example/x.gif)",
    '<img src="https://tracker.example/raw.png"> <script>alert(1)</script>',
    "[click me](https://evil.example/a) <https://evil.example/auto> [js](javascript:alert(1))",
    "[link=https://evil.example]rich link[/link] \x1b]8;;https://evil.example\x1b\\osc8",
    "> " * 40 + "quoted forty deep",
    "- " * 40 + "listed forty deep",
    " " * 200 + "indented far",
    "```\n\x1b[2Jcode that clears\n\x1b]0;title\x07\n```",
    "`\x1b[31minline red`",
    "| a | b |\n|---|---|\n| [@click=app.quit]x | \x1b[5m |",
    "# " + "[OK]" * 50,
)


def hostile_conversation(number: int = 900, *, depth: int = 60) -> dict[str, Any]:
    """``posted_log.json``, ``discussions_cache.json`` (full form) and ``discussions_index.json``
    for one post whose title, body and comments carry :data:`PAYLOADS` and
    :data:`MARKDOWN_ATTACKS`: a body over 64 KB, and a chain of replies ``depth`` deep."""
    stamp = iso(DEFAULT_EPOCH)
    body = "\n\n".join((*MARKDOWN_ATTACKS, *PAYLOADS)) + "\n\n" + "filler " * 12_000
    comments = []
    for n, text in enumerate((*MARKDOWN_ATTACKS, *PAYLOADS)):
        comments.append(
            {
                "id": f"DC_{n}",
                "body": f"*— **{_ID_PAYLOADS[n % len(_ID_PAYLOADS)]}***\n\n{text}",
                "author_login": _p(n)[:40],
                "created_at": stamp if n % 2 else "\x1b[2J not a date",
                "url": ["https://e.example/c", "javascript:alert(1)", "https://e\x1b]0;t\x07.x/"][
                    n % 3
                ],
                "reactions": {"+1": n, "[@click=app.quit]": 9, "heart": "lots"},
            }
        )
    for n in range(depth):  # a chain of replies, each under the one before
        comments.append(
            {
                "id": f"DEEP_{n}",
                "parent_id": f"DEEP_{n - 1}" if n else None,
                "body": f"reply at depth {n} [@click=app.quit]",
                "author_login": "deep",
                "created_at": stamp,
            }
        )
    title = "[DEBATE] [@click=app.quit]title\x1b[2J a[/]b"
    return {
        "posted_log.json": {
            "posts": [
                {
                    "number": number,
                    "title": title,
                    "channel": "a[/]b",
                    "author": "[@click=app.quit]",
                    "timestamp": stamp,
                    "url": "https://e.example/d/900",
                    "commentCount": len(comments),
                }
            ],
            "comments": [],
        },
        "discussions_cache.json": {
            "discussions": [
                {
                    "number": number,
                    "title": title,
                    "body": body,
                    "author_login": "\x1b]0;pwned\x07",
                    "category_slug": "a[/]b",
                    "created_at": stamp,
                    "url": "https://e.example/d/900",
                    "comment_count": len(comments),
                    "comments": comments,
                }
            ]
        },
        "discussions_index.json": {str(number): {"id": "D_900", "number": number}},
    }


# --------------------------------------------------------------------------- the terminal

# What Textual itself writes: SGR colours/styles, cursor moves, private modes.
_OWN_SEQUENCES = re.compile(r"\x1b\[[0-9;:]*m|\x1b\[\d+;\d+H|\x1b\[\d*[ABCDGK]|\x1b\[\?[0-9;]*[hl]")
_CONTROL = re.compile("[\x00-\x09\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def terminal_stream(app: Any) -> str:
    """Exactly what a full repaint of the current screen would write to a truecolor terminal."""
    from app_rig import painted
    from rich.console import Console

    console = Console(
        width=app.size.width,
        height=app.size.height,
        file=io.StringIO(),
        force_terminal=True,
        color_system="truecolor",
        legacy_windows=False,
        safe_box=False,
    )
    console.print(painted(app))
    return console.file.getvalue()


def assert_clean_terminal(app: Any, *, svg: bool = False) -> None:
    """Nothing but Textual's own sequences reaches the terminal: no OSC (title, hyperlink), no
    control byte from the data."""
    stream = terminal_stream(app)
    assert "\x1b]" not in stream, "an OSC sequence (title, hyperlink) reached the terminal"
    rest = _OWN_SEQUENCES.sub("", stream)
    leaked = sorted({f"{ord(c):#04x}" for c in _CONTROL.findall(rest)})
    assert not leaked, f"control bytes reached the terminal: {leaked}"
    if svg:
        shot = app.export_screenshot()
        assert not _CONTROL.search(shot.replace("\n", "")), "control bytes in the screenshot"
