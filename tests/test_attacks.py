"""A stranger on the public server, against gunicorn with 4 workers on its own database.

Oversized bodies, imports as large as one may be, password stuffing and sign-up floods from
one address, a lock-out tried from another, a save while the database is locked and a corrupt
database: each is answered with its status and a page in words, never a 5xx but the 503s
meant, and nothing over a limit is written to the disk.
"""

import json
import re
import socket
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
import requests

from .liveserver import FAST_HASH, PASSWORD, Phone, hidden, query, serve
from .matches import CLUB_POST as CLUB
from .matches import long_match

CANT_SAVE = "The score keeper can't save right now; nothing was lost. Try again in a moment."


@pytest.fixture(scope="module")
def uploads(tmp_path_factory):
    """The folder the server's temporary files go to (TMPDIR): it must stay empty."""
    return tmp_path_factory.mktemp("uploads")


@pytest.fixture(scope="module")
def server(uploads):
    variables = {"TMPDIR": str(uploads), "TRUSTED_PROXIES": "1"}
    with serve(workers=4, **variables, **FAST_HASH) as (base, database):
        Phone(base, "table", signup=True)
        yield base, database


def raw(base: str, head: str, body: bytes = b"", wait: float = 10) -> bytes:
    """Send `head` and `body` on a socket of its own, and what the server answers, read until
    it closes: an answer that comes while most of a claimed body is still unsent."""
    host, port = urlsplit(base).hostname, urlsplit(base).port
    with socket.create_connection((host, port), timeout=wait) as conn:
        conn.sendall(head.encode() + body)
        answer = b""
        try:
            while chunk := conn.recv(65536):
                answer += chunk
        except ConnectionResetError:
            pass
        return answer


def claim(path: str, length: int, **headers) -> str:
    lines = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", f"Content-Length: {length}"]
    lines += ["Content-Type: application/x-www-form-urlencoded", "Connection: close"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return "\r\n".join(lines) + "\r\n\r\n"


@pytest.mark.parametrize("path", ["/accounts/login/", "/signup/", "/matches/import/"])
def test_a_300_mb_body_is_refused_before_it_is_sent(server, uploads, path):
    base, _ = server
    # The answer comes though the other 299.9 MB are never sent: it did not wait for them.
    answer = raw(base, claim(path, 300_000_000), b"username=" + b"x" * 60_000)
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
    assert b"That is more than" in answer and b"Nothing was" in answer
    assert list(uploads.iterdir()) == []


def test_a_body_over_the_limit_never_reaches_the_disk(server, uploads):
    base, _ = server
    phone = Phone(base, "table")
    csrf = {"X-CSRFToken": phone.http.cookies["csrftoken"]}
    form = {"Content-Type": "multipart/form-data; boundary=b", **csrf}
    # Sent in full, with its length.
    response = phone.http.post(base + "/matches/import/", b"x" * 20_000_000, headers=form)
    assert response.status_code == 413 and "Nothing was imported" in response.text

    # Sent in chunks, with no length: read up to the limit only.
    def chunks():
        for _ in range(5_000):
            yield b"x" * 65_536  # 327 MB, if it were all read

    response = phone.http.post(base + "/matches/import/", chunks(), headers=form)
    assert response.status_code == 413
    response = phone.http.post(
        base + "/accounts/login/", (c for c in [b"a=" + b"1" * 20_000]), headers=form
    )
    assert response.status_code == 413 and "at most 16 KB" in response.text
    # A log-in sent in chunks, under the limit, is read as it was sent.
    stranger = requests.Session()
    page = stranger.get(base + "/accounts/login/").text
    fields = {**hidden(page, 'method="post"'), "username": "table", "password": PASSWORD}
    body = "&".join(f"{k}={v}" for k, v in fields.items()).encode()
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    response = stranger.post(
        base + "/accounts/login/", iter([body]), headers=headers, allow_redirects=False
    )
    assert response.status_code == 302
    # An import under the limit, two files of 1 MB, is held in memory, not in a file.
    padded = json.dumps(long_match(3, "2024-05-01T19:00:00-05:00")) + " " * 990_000
    files = [("file", (f"{i}.json", padded.encode())) for i in range(2)]
    page = phone.http.post(base + "/matches/import/", files=files, headers=csrf)
    assert page.status_code == 200 and "Match imported." in page.text
    assert list(uploads.iterdir()) == []


def test_maximal_imports_leave_the_log_in_page_answering(server):
    base, _ = server
    files = [
        (
            "file",
            (
                f"m{i}.json",
                json.dumps(long_match(1000, f"2024-04-0{i + 1}T19:00:00-05:00")).encode(),
            ),
        )
        for i in range(4)
    ]
    phones = [Phone(base, "table"), Phone(base, "importer", signup=True)]

    # The order of events, not their times: the log-in page is answered while both imports
    # are still being read and stored (a server held up by them would answer it after).
    events: list[str] = []

    def import_all(phone):
        response = phone.http.post(
            base + "/matches/import/",
            files=files,
            headers={"X-CSRFToken": phone.http.cookies["csrftoken"]},
        )
        events.append("import answered")
        return response

    with ThreadPoolExecutor(4) as pool:
        imports = [pool.submit(import_all, phone) for phone in phones]
        while "import answered" not in events:
            assert requests.get(base + "/accounts/login/", timeout=60).status_code == 200
            events.append("log-in page answered")
        answers = [i.result() for i in imports]
    # Several, one after another, before either import was done: the first may have gone
    # before the imports reached the server; the later ones went while they ran.
    assert events.index("import answered") >= 3, events
    assert all(response.status_code == 200 for response in answers)
    texts = [response.text for response in answers]
    assert all("3 matches imported." in t for t in texts)
    assert all(
        "m3.json: Nothing was imported. One import takes at most 3,000 hands" in t for t in texts
    )


def log_in(base: str, username: str, password: str, address: str) -> requests.Response:
    http = requests.Session()
    page = http.get(base + "/accounts/login/").text
    data = {**hidden(page, 'method="post"'), "username": username, "password": password}
    headers = {"X-Forwarded-For": address}  # the one proxy in front (TRUSTED_PROXIES=1)
    return http.post(base + "/accounts/login/", data, headers=headers, allow_redirects=False)


def test_stuffing_from_one_address_is_stopped_for_every_worker(server):
    base, _ = server
    with ThreadPoolExecutor(8) as pool:
        tries = [(f"member{i}", "123456", "203.0.113.9") for i in range(40)]
        codes = [r.status_code for r in pool.map(lambda t: log_in(base, *t), tries)]
    assert set(codes) == {200, 429}, codes
    assert codes.count(200) <= 30 and codes.count(429) >= 10
    refused = log_in(base, "table", PASSWORD, "203.0.113.9")
    assert refused.status_code == 429
    assert "Too many wrong passwords from this address" in refused.text
    assert log_in(base, "table", PASSWORD, "198.51.100.7").status_code == 302


def test_a_stranger_cannot_lock_the_table_out(server):
    base, _ = server
    codes = [log_in(base, "table", "guess", "192.0.2.66").status_code for _ in range(12)]
    assert codes == [200] * 9 + [429] * 3
    assert log_in(base, "table", PASSWORD, "192.0.2.66").status_code == 429
    assert log_in(base, "table", PASSWORD, "198.51.100.8").status_code == 302


def test_a_sign_up_flood_from_one_address_gets_ten_accounts(server):
    base, database = server

    def sign_up(i):
        http = requests.Session()
        page = http.get(base + "/signup/").text
        data = {**hidden(page, 'method="post"'), "username": f"flood{i}"}
        data |= {"password1": PASSWORD, "password2": PASSWORD}
        headers = {"X-Forwarded-For": "203.0.113.50"}
        return http.post(base + "/signup/", data, headers=headers, allow_redirects=False)

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(sign_up, range(20)))
    codes = [r.status_code for r in answers]
    assert sorted(codes) == [302] * 10 + [429] * 10
    assert all(
        "Too many new accounts from this address" in r.text for r in answers if r.status_code == 429
    )
    [(made,)] = query(database, "SELECT count(*) FROM auth_user WHERE username LIKE 'flood%'")
    assert made == 10


def test_odd_charsets_and_usernames_are_answered_in_words(server):
    base, _ = server
    for path in ("/accounts/login/", "/admin/login/"):
        stranger = requests.Session()
        page = stranger.get(base + path).text
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)[1]
        data = {"csrfmiddlewaretoken": token, "username": "x" * 300, "password": "y"}
        response = stranger.post(base + path, data)
        assert response.status_code == 200 and "correct username and password" in response.text
        body = f"csrfmiddlewaretoken={token}&username=+AGEAbgBu-&password=x".encode()
        content_type = "application/x-www-form-urlencoded; charset=utf-7"
        response = stranger.post(base + path, body, headers={"Content-Type": content_type})
        assert response.status_code == 400 and "UTF-8 only" in response.text


def hold_a_lock(database: str, match: int):
    """Another writer holding the match (PostgreSQL) or the whole database (SQLite), for
    longer than the server waits (DATABASE_TIMEOUT=1); let go by closing what it gives."""
    if database.startswith("sqlite:///"):
        conn = sqlite3.connect(database.removeprefix("sqlite:///"), isolation_level=None)
        conn.execute("BEGIN IMMEDIATE")
        return conn
    import psycopg

    conn = psycopg.connect(database)
    conn.execute(f"SELECT id FROM games_match WHERE id = {match} FOR UPDATE")
    return conn


def test_a_save_while_the_database_is_locked_is_a_503_with_the_entry_kept():
    with serve(workers=2, DATABASE_TIMEOUT="1", **FAST_HASH) as (base, database):
        phone = Phone(base, "table", signup=True)
        match = phone.new_match()
        page = phone.page(match)
        lock = hold_a_lock(database, match)
        try:
            htmx = phone.save(match, page, CLUB)
            data = {**hidden(page, 'id="hand-form"'), **CLUB}
            plain = phone.http.post(f"{base}/matches/{match}/hands/", data, allow_redirects=False)
        finally:
            lock.close()
        # Once the lock is gone, the same entry saves, once.
        saved = phone.save(match, page, CLUB)
        hands = query(database, f"SELECT count(*) FROM games_hand WHERE match_id = {match}")
    assert htmx.status_code == 503 and unquote(htmx.headers["X-Problem"]) == CANT_SAVE
    assert plain.status_code == 503 and "nothing was lost" in plain.text
    assert re.search(r'name="upcard" value="clubs"[^>]*checked', plain.text)  # kept
    assert saved.status_code == 200 and hands == [(1,)]


def test_the_health_url_and_static_files(server):
    base, _ = server
    health = requests.get(base + "/healthz", headers={"Host": "elsewhere.example"})
    assert health.status_code == 200 and health.text == "ok\n"
    css = requests.get(base + "/static/css/app.css")
    assert css.headers["Content-Security-Policy"] == "default-src 'none'"
    assert css.headers["X-Content-Type-Options"] == "nosniff"


def test_a_corrupt_database_answers_503_and_the_health_url_says_so(tmp_path):
    corrupt = tmp_path / "corrupt.sqlite3"
    corrupt.write_bytes(b"not a database, whatever it once was " * 200)
    with serve(workers=1, database=f"sqlite:///{corrupt}", migrate=False, **FAST_HASH) as (base, _):
        assert requests.get(base + "/healthz").status_code == 503
        http = requests.Session()
        page = http.get(base + "/accounts/login/").text
        data = {**hidden(page, 'method="post"'), "username": "table", "password": PASSWORD}
        response = http.post(base + "/accounts/login/", data)
        assert response.status_code == 503 and "Try again in a moment" in response.text
    assert Path(corrupt).exists()
