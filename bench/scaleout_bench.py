"""Two app servers behind a load balancer, on one PostgreSQL: nothing in a process's memory is
the truth.

Needs HAProxy from Debian's packages (`make haproxy`, which is `apt-get install -y haproxy`;
`make bench` runs it) and the PostgreSQL server at 127.0.0.1:5432 (or BENCH_POSTGRES). On a
database of its own, made and migrated here and dropped after, it starts two gunicorn servers
of 4 workers each (127.0.0.1:8301 and :8302) and HAProxy in front of them (127.0.0.1:8300,
round robin; its statistics on :8303 say which server answered what), which adds the
client's address to X-Forwarded-For, so the servers run with TRUSTED_PROXIES=1, DEBUG=False
and one SECRET_KEY (after `collectstatic`, into staticfiles/ as `make run` does); it stops
them all by their PIDs on the way out. Then it checks and prints:

- the twelve phones of race_bench.py, through the balancer for SECONDS: no 5xx, no hand lost,
  stale writes answered 409, every match replaying to its stored result;
- the throttles count across both servers: wrong passwords from one address (a loopback
  address of its own, 127.0.0.x), spread over both servers, are refused (429) at the same try
  as on one server alone, and so are sign-ups; an X-Forwarded-For a client writes is not
  believed;
- a session made on one server is good on the other, and a board drawn on one is taken by
  the other from the shared cache;
- what one gunicorn worker (127.0.0.1:8304) answers a second, three phones keeping it busy,
  against the log-in page in the same run (docs/scaling.md).

Run with `.venv/bin/python bench/scaleout_bench.py [SECONDS]`.
"""

import csv
import io
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from race_bench import PHONES, POSTGRES, SECONDS, TABLES, lost, race, shown, sound  # noqa: E402

from tests.liveserver import PASSWORD, Phone, hidden, own_database, query, serve  # noqa: E402

BALANCER, SERVERS, STATS, ONE = 8300, {"a": 8301, "b": 8302}, 8303, 8304
# A server as deployed, but on plain HTTP: the same key on every server (sessions are signed).
SERVER = {"DEBUG": "false", "SECRET_KEY": secrets.token_urlsafe(50), "TRUSTED_PROXIES": "1"}
SCALEOUT_ONE = "SELECT pid FROM pg_stat_activity WHERE application_name = 'scaleout-one'"
CLUB = {"upcard": "clubs", "t0": "2", "t1": "1", "t2": "1", "t3": "1"}
HAPROXY = """
defaults
    mode http
    timeout connect 5s
    timeout client 60s
    timeout server 60s
    option forwardfor

frontend phones
    bind 127.0.0.1:{balancer}
    default_backend app

backend app
    balance roundrobin
    http-response set-header X-Server %s
{servers}

frontend stats
    bind 127.0.0.1:{stats}
    stats enable
    stats uri /
"""


@contextmanager
def balancer(servers: dict[str, int]):
    """The base URL of HAProxy in front of `servers` (name: port), stopped on the way out."""
    lines = "\n".join(f"    server {name} 127.0.0.1:{port}" for name, port in servers.items())
    config = HAPROXY.format(balancer=BALANCER, servers=lines, stats=STATS)
    with tempfile.TemporaryDirectory() as folder, tempfile.TemporaryFile() as log:
        (Path(folder) / "haproxy.cfg").write_text(config)
        proxy = subprocess.Popen(
            ["haproxy", "-db", "-f", f"{folder}/haproxy.cfg"], stdout=log, stderr=log
        )
        base = f"http://127.0.0.1:{BALANCER}"
        try:
            for _ in range(100):
                try:
                    requests.get(base + "/healthz", timeout=5)
                    break
                except requests.ConnectionError:
                    time.sleep(0.1)
            yield base
        finally:
            proxy.terminate()
            try:
                proxy.wait(10)
            except subprocess.TimeoutExpired:
                proxy.kill()
                proxy.wait()
            log.seek(0)
            if proxy.returncode not in (0, -15, 143):
                print(log.read().decode(errors="replace"), file=sys.stderr)


def answered() -> Counter:
    """Requests each server has answered, by HAProxy's own count, and their 5xx."""
    text = requests.get(f"http://127.0.0.1:{STATS}/;csv").text.removeprefix("# ")
    counts = Counter()
    for row in csv.DictReader(io.StringIO(text)):
        if row["pxname"] == "app" and row["svname"] in SERVERS:
            counts[row["svname"]] += int(row["stot"])
            counts["5xx"] += int(row["hrsp_5xx"] or 0)
    return counts


class FromAddress(requests.adapters.HTTPAdapter):
    """Connections from another loopback address: another client, to the throttles."""

    def __init__(self, address: str):
        self.address = address
        super().__init__()

    def init_poolmanager(self, *args, **kwargs):
        super().init_poolmanager(*args, source_address=(self.address, 0), **kwargs)


def client(address: str) -> requests.Session:
    http = requests.Session()
    http.mount("http://", FromAddress(address))
    return http


def poster(base: str, path: str, address: str):
    """Sends the form of `path` from `address`, each time as a new visitor holding the CSRF
    cookie and token of one visit of the page: one request a try, so that the balancer
    alternates the tries between the servers."""
    http = client(address)
    fields = hidden(http.get(base + path).text, 'method="post"')
    cookie = http.cookies["csrftoken"]

    def send(data: dict, headers: dict | None = None) -> requests.Response:
        visitor = client(address)
        visitor.cookies.set("csrftoken", cookie)
        return visitor.post(base + path, {**fields, **data}, headers=headers, allow_redirects=False)

    return send


def first_refusal(send, most: int) -> tuple[int | None, Counter]:
    """The try that `send` (of the try's number) is first answered 429, and which server
    answered each try until then."""
    servers = Counter()
    for n in range(1, most + 1):
        response = send(n)
        servers[response.headers.get("X-Server", "")] += 1
        if response.status_code == 429:
            return n, servers
    return None, servers


def spread(servers: Counter) -> str:
    return ", ".join(f"{servers[name]} on {name}" for name in SERVERS)


def busy(senders: list, seconds: float = 5) -> int:
    """Requests answered while each of `senders` (functions of no argument, one a phone)
    sends request after request for `seconds`."""
    done = Counter()
    until = time.monotonic() + seconds

    def loop(i: int, send) -> None:
        while time.monotonic() < until:
            send()
            done[i] += 1

    threads = [threading.Thread(target=loop, args=pair) for pair in enumerate(senders)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(done.values())


def cpu(pid: int) -> float:
    """The processor seconds a process has used so far (user and system)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def worker(port: int) -> int:
    """The PID of the one gunicorn worker serving `port`: of the processes started with that
    port, the one whose parent is one too."""
    parents = {}
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if f"127.0.0.1:{port}".encode() in (proc / "cmdline").read_bytes():
                parents[int(proc.name)] = int((proc / "stat").read_text().rsplit(")")[1].split()[1])
        except OSError:  # gone meanwhile
            continue
    [pid] = [pid for pid, parent in parents.items() if parent in parents]
    return pid


def one_worker(base: str, database: str) -> dict[str, tuple[float, float, float]]:
    """What one gunicorn worker answers, three phones keeping it busy, at a match of 20 hands,
    over two rounds of 5 s: the log-in page (a small page, for scale), polls of an unchanged
    board (204), hand checks, saves, the board's page and the home page. For each: requests a
    second of the worker's processor time, milliseconds of PostgreSQL's processor time a
    request (the worker's connection, named "scaleout-one"), and the worker's share of a core
    meanwhile (the machine is shared)."""
    phones = [Phone(base, "bench") for _ in range(3)]
    match = phones[0].new_match(starting_score=200)
    page = phones[0].page(match)
    for _ in range(20):
        page = phones[0].save(match, page, CLUB).text
    version, hands = shown(page)
    htmx = {"HX-Request": "true"}

    def get(http: requests.Session, url: str, status: int = 200, headers=None):
        def send():
            response = http.get(url, headers=headers)
            assert response.status_code == status, (url, response.status_code)

        return send

    def check(phone: Phone):
        data = {**hidden(phone.page(match), 'id="hand-form"'), "upcard": "hearts", "maker": "0"}

        def send():
            response = phone.http.post(f"{base}/matches/{match}/hands/check/", data, headers=htmx)
            assert response.status_code == 200

        return send

    def save(phone: Phone):
        at = {}

        def send():
            if 'id="hand-form"' not in at.get("page", ""):  # new, or won: a match anew
                at["match"] = phone.new_match(starting_score=200)
                at["page"] = phone.page(at["match"])
            hands = shown(at["page"])[1]
            response = phone.save(at["match"], at["page"], CLUB)
            assert response.status_code == 200 and shown(response.text)[1] == hands + 1
            at["page"] = response.text

        return send

    poll = f"{base}/matches/{match}/?v={version}&n={hands}"
    kinds = {
        "log-in page": [get(requests.Session(), base + "/accounts/login/") for _ in phones],
        "polls (204)": [get(p.http, poll, 204, htmx) for p in phones],
        "hand checks": [check(p) for p in phones],
        "saves": [save(p) for p in phones],
        "board pages": [get(p.http, f"{base}/matches/{match}/") for p in phones],
        "home pages": [get(p.http, base + "/") for p in phones],
    }
    app = worker(int(base.rsplit(":", 1)[1]))
    [(backend,)] = query(database, SCALEOUT_ONE)
    spent = {kind: Counter() for kind in kinds}
    for _ in range(2):
        for kind, senders in kinds.items():
            start, app_cpu, database_cpu = time.monotonic(), cpu(app), cpu(backend)
            spent[kind]["requests"] += busy(senders)
            spent[kind]["app"] += cpu(app) - app_cpu
            spent[kind]["database"] += cpu(backend) - database_cpu
            spent[kind]["wall"] += time.monotonic() - start
    return {
        kind: (t["requests"] / t["app"], 1000 * t["database"] / t["requests"], t["app"] / t["wall"])
        for kind, t in spent.items()
    }


def free(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


FAILURES: list[str] = []


def check(ok: bool, what: str) -> None:
    if not ok:
        FAILURES.append(what)


def phones_through(base: str, database: str) -> None:
    """The twelve phones of race_bench.py, through the balancer."""
    Phone(base, "bench", signup=True)
    owner = Phone(base, "bench")
    matches = [owner.new_match(starting_score=200) for _ in range(TABLES)]
    before = answered()
    counts, seen = race(base, matches)
    by = answered() - before
    found = sum((lost(database, m, seen) for m in matches), Counter())
    whole = sum(sound(owner, database, m) for m in matches)
    hands = [len(owner.exported(m)["hands"]) for m in matches]
    print(f"{TABLES * PHONES} phones at {TABLES} tables for {SECONDS:.0f} s, through it:")
    print(
        f"  {counts['requests']} requests: 2xx {counts['2xx']}, 409 {counts['409']}, "
        f"other 4xx {counts['4xx']}, 5xx {counts['5xx']}; "
        f"answered {spread(by)}, 5xx by HAProxy's count {by['5xx']}"
    )
    print(
        f"  hands lost {found['lost']} (of {found['mine']} saves answered as stored); "
        f"{len(seen)} boards shown, {found['torn']} drawn across a write (torn)"
    )
    print(f"  {whole}/{len(matches)} matches replay to their stored results, hands {hands}")
    check(counts["5xx"] == 0 and by["5xx"] == 0, "a server error")
    check(found["lost"] == 0 and found["mine"] > 0, "a hand lost")
    check(counts["409"] > 0 and counts["4xx"] == 0, "a stale write not answered 409")
    check(whole == len(matches), "a match that does not replay to its stored result")
    check(all(by[name] > 0 for name in SERVERS), "a server the balancer never used")


def throttles(base: str, server: str) -> None:
    """Wrong passwords and sign-ups from one address, through the balancer (spread over both
    servers) and on `server` alone: refused at the same try."""

    # Each try from one address, a client's own X-Forwarded-For on each, to no avail.
    def wrong(base: str, address: str, forge: bool):
        log_in = poster(base, "/accounts/login/", address)

        def send(n: int) -> requests.Response:
            headers = {"X-Forwarded-For": f"198.51.100.{n}"} if forge else {}
            return log_in({"username": f"member{n}", "password": "123456"}, headers)

        return send

    def right(address: str) -> int:
        log_in = poster(base, "/accounts/login/", address)
        return log_in({"username": "bench", "password": PASSWORD}).status_code

    most = 40  # the limit is 30 (LOGIN_FAILURES_PER_ADDRESS)
    spread_at, servers = first_refusal(wrong(base, "127.0.0.2", forge=True), most)
    one_at, _ = first_refusal(wrong(server, "127.0.0.3", forge=False), most)
    locked, elsewhere = right("127.0.0.2"), right("127.0.0.4")
    print(
        f"wrong passwords from one address: 429 at try {spread_at} through the balancer "
        f"({spread(servers)}), at try {one_at} on one server"
    )
    print(f"  then the right one from that address: {locked}; from another: {elsewhere}")
    check(spread_at is not None and spread_at == one_at, "a log-in throttle not shared")
    check(all(servers[name] > 1 for name in SERVERS), "log-ins not spread over both")
    check(locked == 429 and elsewhere == 302, "a throttle on the wrong address")

    def sign_up(base: str, address: str, prefix: str):
        form = poster(base, "/signup/", address)
        secret = {"password1": PASSWORD, "password2": PASSWORD}
        return lambda n: form({"username": f"{prefix}{n}", **secret})

    spread_at, servers = first_refusal(sign_up(base, "127.0.0.5", "lb"), 20)
    one_at, _ = first_refusal(sign_up(server, "127.0.0.6", "one"), 20)
    print(
        f"sign-ups from one address: 429 at try {spread_at} through the balancer "
        f"({spread(servers)}), at try {one_at} on one server"
    )
    check(spread_at is not None and spread_at == one_at, "a sign-up throttle not shared")
    check(all(servers[name] > 1 for name in SERVERS), "sign-ups not spread over both")


def shared(server_a: str, server_b: str, database: str) -> None:
    """A session made on server a, used on server b; a board drawn on a, taken by b."""
    phone = Phone(server_a, "bench")
    match = phone.new_match()
    # Boards' keys are hashed (games/regions.py cache_key): the board is the one new.
    boards = "SELECT cache_key, expires FROM games_cache WHERE cache_key LIKE '%board:%'"
    before = set(query(database, boards))
    page = phone.page(match)  # drawn on a, and cached
    drawn_on_a = set(query(database, boards)) - before
    phone.base = server_b
    on_b = phone.page(match)  # a miss would draw it again and store it with a new expiry
    taken_on_b = set(query(database, boards)) - before
    saved = phone.save(match, page, CLUB)  # from the page a drew, sent to b
    session = "its board" if shown(on_b) == shown(page) else "no board"
    after = shown(saved.text) or (None, None)
    print(
        f"a session made on a, on b: {session}; "
        f"a save on b from a page drawn on a: {saved.status_code}, hands {after[1]}"
    )
    print(
        f"a board drawn on a ({len(drawn_on_a)} in the cache), taken by b from the cache: "
        f"{'yes' if drawn_on_a and drawn_on_a == taken_on_b else 'no'}"
    )
    check(shown(page) is not None and shown(on_b) == shown(page), "a session not shared")
    check(saved.status_code == 200 and after[1] == 1, "a save across servers")
    check(len(drawn_on_a) == 1 and drawn_on_a == taken_on_b, "a board cache not shared")


def main() -> None:
    if not shutil.which("haproxy"):
        sys.exit("The scale-out bench needs HAProxy: `make haproxy` (apt-get install -y haproxy).")
    taken = [p for p in (BALANCER, *SERVERS.values(), STATS, ONE) if not free(p)]
    if taken:
        sys.exit(f"Ports {taken} of 127.0.0.1 are taken.")
    os.environ["DATABASE_URL"] = os.environ.get("BENCH_POSTGRES", POSTGRES)
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
        cwd=ROOT,
        env={**os.environ, **SERVER},
        check=True,
    )
    a, b = SERVERS.values()
    with (
        own_database("scaleout") as database,
        serve(4, database, port=a, **SERVER) as (server_a, _),
        serve(4, database, migrate=False, port=b, **SERVER) as (server_b, _),
        balancer(SERVERS) as base,
    ):
        print("two gunicorn servers (4 workers each) behind HAProxy, round robin, PostgreSQL")
        phones_through(base, database)
        throttles(base, server_a)
        shared(server_a, server_b, database)
        named = f"{database}?application_name=scaleout-one"
        with serve(1, named, migrate=False, port=ONE, **SERVER) as (one, _):
            costs = one_worker(one, database)
    print("one gunicorn worker, 3 phones keeping it busy, a 20-hand match:")
    print(f"  {'':<14} {'a core-second':>13} {'ratio':>6} {'PostgreSQL':>11} {'core':>5}")
    for what, (rate, database_ms, share) in costs.items():
        ratio = rate / costs["log-in page"][0]
        print(f"  {what:<14} {rate:>13.0f} {ratio:>5.2f}× {database_ms:>8.1f} ms {share:>5.0%}")
    for what in FAILURES:
        print(f"FAILED: {what}")
    print("all checks passed" if not FAILURES else f"{len(FAILURES)} checks failed")
    sys.exit(1 if FAILURES else 0)


if __name__ == "__main__":
    main()
