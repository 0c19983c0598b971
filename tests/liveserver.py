"""A real server for the many-phones tests and the race benchmark.

gunicorn with several workers, on a database of its own (pytest-django's test database lives
in memory or in a transaction that is never committed, so a server process could not see it),
and phones that talk to it as a browser with htmx would.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import closing, contextmanager, nullcontext
from pathlib import Path

import requests

from .matches import STARTED, TABLE

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "card-table-42"


# A database migrated once in this process, copied for each server that asks for a migrated
# one: migrating anew costs each server about two seconds of a core.
_TEMPLATES: dict[str, str] = {}


def _migrate(database: str) -> None:
    env = {**os.environ, "DATABASE_URL": database, "DEBUG": "true"}
    command = [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"]
    subprocess.run(command, cwd=ROOT, env=env, check=True)


def _drop(url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def own_database(prefix: str = "live", migrated: bool = False):
    """A database URL for the server: a new database (named `prefix`_…) on the PostgreSQL
    server that DATABASE_URL names, or else a SQLite file. With `migrated`, a copy of one
    database migrated once for the whole run."""
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith("postgres"):
        import psycopg

        server = url.rsplit("/", 1)[0]
        if migrated and url not in _TEMPLATES:
            template = f"{prefix}_template_{uuid.uuid4().hex[:12]}"
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute(f'CREATE DATABASE "{template}"')
            atexit.register(_drop, url, template)
            _migrate(f"{server}/{template}")
            _TEMPLATES[url] = template
        name = f"{prefix}_{uuid.uuid4().hex[:12]}"
        copy = f' TEMPLATE "{_TEMPLATES[url]}"' if migrated else ""
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"{copy}')
        try:
            yield f"{server}/{name}"
        finally:
            _drop(url, name)
    else:
        if migrated and "sqlite" not in _TEMPLATES:
            folder = tempfile.mkdtemp(prefix="live-template-")
            atexit.register(shutil.rmtree, folder, ignore_errors=True)
            _migrate(f"sqlite:///{folder}/live.sqlite3")
            _TEMPLATES["sqlite"] = f"{folder}/live.sqlite3"
        with tempfile.TemporaryDirectory() as folder:
            if migrated:  # SQLite's own copy: what the template's write-ahead log holds too
                with (
                    closing(sqlite3.connect(_TEMPLATES["sqlite"])) as source,
                    closing(sqlite3.connect(f"{folder}/live.sqlite3")) as copy,
                ):
                    source.backup(copy)
            yield f"sqlite:///{folder}/live.sqlite3"


def query(database: str, sql: str) -> list[tuple]:
    """Rows straight from the server's database, to check what it really stored."""
    if database.startswith("sqlite:///"):
        with sqlite3.connect(database.removeprefix("sqlite:///")) as conn:
            return conn.execute(sql).fetchall()
    import psycopg

    with psycopg.connect(database) as conn:
        return conn.execute(sql).fetchall()


def hand_scores(database: str, match: int) -> list[list[int]]:
    """Every seat's score after each hand, as the server stored it with the hands."""
    sql = f"SELECT scores FROM games_hand WHERE match_id = {match} ORDER BY number"
    rows = query(database, sql)
    # SQLite hands JSON back as text, PostgreSQL as the value.
    return [json.loads(scores) if isinstance(scores, str) else scores for (scores,) in rows]


# What a test's server runs with (the benchmarks' run the app's settings as they are).
FAST_HASH = {"DJANGO_SETTINGS_MODULE": "tests.server_settings"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serve(
    workers: int = 4,
    database: str | None = None,
    migrate: bool = True,
    port: int | None = None,
    **variables,
):
    """(base URL, database URL) of gunicorn serving the app, stopped on the way out; on its
    own database unless given one, on a free port unless given one, with these environment
    variables set."""
    if database and migrate:
        _migrate(database)
    with nullcontext(database) if database else own_database(migrated=migrate) as database:
        env = {**os.environ, "DATABASE_URL": database, "DEBUG": "true", **variables}
        port = port or _free_port()
        with tempfile.TemporaryFile() as log:
            server = subprocess.Popen(
                [sys.executable, "-m", "gunicorn", "scorekeeper.wsgi", "--workers", str(workers)]
                + ["--bind", f"127.0.0.1:{port}", "--timeout", "60"],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=log,
            )
            base = f"http://127.0.0.1:{port}"
            try:
                for _ in range(300):
                    try:
                        requests.get(base + "/accounts/login/", timeout=5)
                        break
                    except (requests.ConnectionError, requests.Timeout):  # still starting
                        time.sleep(0.1)
                yield base, database
            finally:
                server.terminate()
                try:
                    server.wait(10)
                except subprocess.TimeoutExpired:
                    server.kill()
                    server.wait()
                log.seek(0)
                errors = log.read().decode(errors="replace")
                if "Traceback" in errors:
                    print(errors, file=sys.stderr)  # shown with a failing test


def hidden(html: str, form: str) -> dict:
    """The hidden inputs of the form whose opening tag matches `form`."""
    found = re.search(rf"<form[^>]*{form}.*?</form>", html, re.S)
    if not found:
        return {}
    fields = {}
    for tag in re.findall(r"<input[^>]*>", found.group(0)):
        if 'type="hidden"' in tag:
            name = re.search(r'name="([^"]+)"', tag).group(1)
            fields[name] = re.search(r'value="([^"]*)"', tag).group(1)
    return fields


class Phone:
    """One phone at the table: its own session, logged in, sending what htmx would send."""

    def __init__(self, base: str, username: str, signup: bool = False, address: str = ""):
        self.base = base
        self.http = requests.Session()
        if address:  # as a proxy names the phone (a server run with TRUSTED_PROXIES=1)
            self.http.headers["X-Forwarded-For"] = address
        path = "/signup/" if signup else "/accounts/login/"
        page = self.http.get(base + path).text
        data = {"username": username, **hidden(page, 'method="post"')}
        if signup:
            data |= {"password1": PASSWORD, "password2": PASSWORD}
        else:
            data |= {"password": PASSWORD}
        response = self.http.post(base + path, data, allow_redirects=False)
        assert response.status_code == 302, response.text[:500]

    def new_match(self, preset: str = "standard", names=TABLE, **house_rules) -> int:
        page = self.http.get(self.base + "/matches/new/").text
        seats = {f"seat_{i}": name for i, name in enumerate(names)}
        rules = {f"rule_{name}": value for name, value in house_rules.items()}
        data = {**hidden(page, 'method="post"'), **STARTED, "preset": preset, **seats, **rules}
        response = self.http.post(self.base + "/matches/new/", data, allow_redirects=False)
        return int(re.search(r"/matches/(\d+)/", response.headers["Location"]).group(1))

    def page(self, match: int, path: str = "") -> str:
        return self.http.get(f"{self.base}/matches/{match}/{path}").text

    def post(self, match: int, path: str, data: dict) -> requests.Response:
        return self.http.post(
            f"{self.base}/matches/{match}/{path}",
            data,
            headers={"HX-Request": "true"},
            allow_redirects=False,
        )

    def save(self, match: int, page: str, hand: dict) -> requests.Response:
        """Save `hand` from the board `page` as it was drawn (its hidden inputs)."""
        return self.post(match, "hands/", {**hidden(page, 'id="hand-form"'), **hand})

    def edit(self, match: int, number: int, page: str, hand: dict) -> requests.Response:
        data = {**hidden(page, 'id="hand-form"'), **hand}
        return self.post(match, f"hands/{number}/", data)

    def undo(self, match: int, page: str) -> requests.Response:
        return self.post(match, "hands/undo/", hidden(page, r'action="[^"]*hands/undo/"'))

    def invite(self, role: str = "scorer") -> str:
        """An invitation link to this phone's own group (its first in the list)."""
        groups = self.http.get(self.base + "/groups/").text
        group = re.search(r'href="/groups/(\d+)/"', groups).group(1)
        page = self.http.get(f"{self.base}/groups/{group}/").text
        form = hidden(page, r'action="[^"]*/invites/"')
        answer = self.http.post(f"{self.base}/groups/{group}/invites/", {**form, "role": role})
        return re.search(r'href="(http[^"]*/join/[^"]+/)"', answer.text).group(1)

    def join(self, link: str) -> None:
        page = self.http.get(link).text
        response = self.http.post(link, hidden(page, 'method="post"'), allow_redirects=False)
        assert response.status_code == 302, response.text[:500]

    def exported(self, match: int) -> dict:
        response = self.http.get(f"{self.base}/matches/{match}/export/")
        assert response.status_code == 200
        return response.json()
