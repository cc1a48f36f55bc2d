"""The hardened GET (tui/network/fetch.py) against a hostile loopback server."""

from __future__ import annotations

import gzip
import hashlib
import json

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.hostile_server import (
    gzip_bomb,
    json_ok,
    lying_length,
    not_modified,
    ok,
    raw,
    reset,
    slow_headers,
    stacked_gzip,
    trickle,
)
from tui.network.fetch import (
    BadEncoding,
    FetchError,
    NetworkError,
    TooLarge,
    TooSlow,
    fetch,
    header_token,
)

BODY = json.dumps({"agents": {"a": {"name": "x"}}}).encode()


async def test_plain_body_is_hashed(server, client):
    server.route("/plain", json_ok(BODY, ETag='"v1"'))
    result = await fetch(client, server.url + "/plain", cap=1000)
    assert result.body == BODY and result.sha256 == hashlib.sha256(BODY).hexdigest()
    assert result.etag == '"v1"'


async def test_gzip_body_is_decoded_and_hashed_as_the_file(server, client):
    server.route("/gz", ok(gzip.compress(BODY), [("Content-Encoding", "gzip")]))
    result = await fetch(client, server.url + "/gz", cap=1000)
    assert result.body == BODY and result.sha256 == hashlib.sha256(BODY).hexdigest()


async def test_trickle_fails_on_the_minimum_rate(server, client):
    server.route("/trickle", trickle(b"x" * 200, every_s=0.2))
    with pytest.raises(TooSlow, match="bytes/s"):
        await fetch(client, server.url + "/trickle", cap=1000, min_rate=100, rate_grace_s=0.5)


async def test_trickle_fails_at_the_deadline(server, client):
    server.route("/trickle-d", trickle(b"x" * 200, every_s=0.1))
    with pytest.raises(TooSlow, match="within"):
        await fetch(client, server.url + "/trickle-d", cap=1000, deadline_s=0.5, min_rate=0)


async def test_slow_headers_fail_in_bounded_time(server, client):
    server.route("/slowhead", slow_headers(0.2))
    with pytest.raises(TooSlow):
        await fetch(client, server.url + "/slowhead", cap=1000, min_rate=100, rate_grace_s=0.5)


async def test_gzip_bomb_stops_at_the_cap(server, client):
    server.route("/bomb", gzip_bomb(64 << 20))
    with pytest.raises(TooLarge) as caught:
        await fetch(client, server.url + "/bomb", cap=1 << 20)
    # stopped within one decoder piece of the cap, not after the whole bomb
    assert caught.value.seen <= (1 << 20) + (64 << 10)


async def test_gzip_bomb_under_the_cap_is_refused_by_its_ratio(server, client):
    server.route("/ratio", gzip_bomb(16 << 20))
    with pytest.raises(TooLarge, match="ratio"):
        await fetch(client, server.url + "/ratio", cap=128 << 20)


async def test_stacked_encodings_are_refused(server, client):
    server.route("/stacked", stacked_gzip(BODY))
    with pytest.raises(BadEncoding, match="stacked"):
        await fetch(client, server.url + "/stacked", cap=1000)


async def test_unknown_encoding_is_refused(server, client):
    server.route("/br", ok(b"xx", [("Content-Encoding", "br")]))
    with pytest.raises(BadEncoding):
        await fetch(client, server.url + "/br", cap=1000)


async def test_broken_gzip_is_an_encoding_error(server, client):
    server.route("/badgz", ok(gzip.compress(BODY)[:-12], [("Content-Encoding", "gzip")]))
    with pytest.raises(BadEncoding):
        await fetch(client, server.url + "/badgz", cap=1000)


async def test_declared_length_over_the_cap_is_refused_before_reading(server, client):
    server.route("/long", ok(b"x" * 5000))
    with pytest.raises(TooLarge) as caught:
        await fetch(client, server.url + "/long", cap=1000)
    assert caught.value.seen == 0


async def test_lying_content_length_is_a_network_error(server, client):
    server.route("/liar", lying_length(b"x" * 10, declared=500))
    with pytest.raises(NetworkError):
        await fetch(client, server.url + "/liar", cap=1000)


async def test_reset_is_a_network_error(server, client):
    server.route("/reset", reset())
    with pytest.raises(NetworkError):
        await fetch(client, server.url + "/reset", cap=1000)


async def test_non_ascii_validators_are_dropped(server, client):
    server.route(
        "/nonascii",
        raw(
            b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n"
            b'ETag: "\xc3\xa9t\xc3\xa9"\r\nLast-Modified: Mon, 01 Jan \xff\r\n\r\n{}'
        ),
    )
    result = await fetch(client, server.url + "/nonascii", cap=1000)
    assert result.body == b"{}" and result.etag is None and result.last_modified is None
    # and a non-ASCII validator given back (from an old cache) is not sent
    server.route("/nm", not_modified())
    again = await fetch(client, server.url + "/nm", cap=1000, etag='"é"', last_modified="\x1b")
    assert again.not_modified
    assert "if-none-match" not in server.requests[-1].headers


def test_header_token():
    assert header_token('W/"abc"') == 'W/"abc"'
    for bad in ('"é"', 123, None, "", " x", "a\x1bb", "x" * 2000, b"\xff"):
        assert header_token(bad) is None


async def test_error_names_the_url_without_credentials(server, client):
    url = server.url.replace("http://", "http://alice:s3cretpw@") + "/reset"
    server.route("/reset", reset())
    with pytest.raises(NetworkError) as caught:
        await fetch(client, url, cap=1000)
    assert "s3cretpw" not in str(caught.value) and "***@127.0.0.1" in str(caught.value)


class Scripted(httpx.AsyncBaseTransport):
    """Hands back whatever status, headers and body bytes hypothesis makes up."""

    def __init__(self, status, headers, chunks):
        self.status, self.headers, self.chunks = status, headers, chunks

    async def handle_async_request(self, request):
        chunks = self.chunks

        class Stream(httpx.AsyncByteStream):
            async def __aiter__(self):
                for chunk in chunks:
                    yield chunk

        return httpx.Response(self.status, headers=self.headers, stream=Stream())


header_names = st.sampled_from(
    [b"content-encoding", b"content-length", b"etag", b"last-modified", b"retry-after", b"x-y"]
)
header_values = st.one_of(
    st.binary(max_size=30).map(lambda b: b.replace(b"\r", b"").replace(b"\n", b"")),
    st.sampled_from([b"gzip", b"gzip, gzip", b"deflate", b"br", b"identity", b"5", b"-1"]),
)


@given(
    status=st.sampled_from([200, 200, 200, 204, 304, 404, 500, 302]),
    headers=st.lists(st.tuples(header_names, header_values), max_size=6),
    chunks=st.lists(
        st.one_of(st.binary(max_size=200), st.just(gzip.compress(BODY)), st.just(BODY)),
        max_size=4,
    ),
)
async def test_any_reply_is_a_value_or_a_fetch_error(status, headers, chunks):
    async with httpx.AsyncClient(transport=Scripted(status, headers, chunks)) as client:
        try:
            result = await fetch(client, "http://h/x", cap=500, etag='"e"')
        except FetchError as exc:
            assert exc.reason and exc.kind
        else:
            assert result.status == status
            for value in (result.etag, result.last_modified, result.retry_after):
                assert value is None or header_token(value) == value
