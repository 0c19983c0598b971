"""The phones' side of deploy/check: the stack of compose.yaml as a phone meets it, over HTTPS
with Caddy's local authority the only one trusted.

    check_stack.py --domain D --port P --http-port H --ca ROOT.crt headers
    check_stack.py ... play PLAYED.json   sign up, play a match, record a payment; note it all
    check_stack.py ... find PLAYED.json   log in and find every hand, score and payment noted

The phone talks as tests/liveserver.py's phones do (their way, not their code, which the tests
are free to change): the app's own forms, their hidden inputs (CSRF token, version), and htmx's
header for a save. Over HTTPS Django also wants the Referer a browser sends.
"""

import argparse
import json
import re
import socket
import sys
from pathlib import Path

import requests

USERNAME = "deploycheck"
PASSWORD = "card-table-42"
# A new match as the form sends it: four seats, Dan dealing first, started at once.
NAMES = ("Ann", "Bob", "Cat", "Dan")
NEW_MATCH = {"preset": "standard", "dealer": "3", "create": "1"}
# Four hands of a standard match: two turned clubs, an ordered hand with a drop, a sweep.
HANDS = [
    {"upcard": "clubs", "t0": "2", "t1": "1", "t2": "1", "t3": "1"},
    {"upcard": "hearts", "maker": "1", "trump": "hearts", "dropped": "Cat"}
    | {"t0": "0", "t1": "3", "t3": "2"},
    {"upcard": "clubs", "t0": "1", "t1": "2", "t2": "1", "t3": "1"},
    {"upcard": "hearts", "maker": "1", "trump": "hearts", "dropped": ["Ann", "Cat", "Dan"]}
    | {"t1": "5"},
]


def hidden(html: str, form: str) -> dict[str, str]:
    """The hidden inputs (CSRF token, version …) of the form whose opening tag matches `form`,
    as tests/liveserver.py's phones send them."""
    found = re.search(rf"<form[^>]*{form}.*?</form>", html, re.S)
    fields = {}
    for tag in re.findall(r"<input[^>]*>", found.group(0) if found else ""):
        name, value = re.search(r'name="([^"]+)"', tag), re.search(r'value="([^"]*)"', tag)
        if 'type="hidden"' in tag and name and value:
            fields[name.group(1)] = value.group(1)
    return fields


def fail(words: str) -> None:
    sys.exit(f"deploy-check: {words}")


class Phone:
    def __init__(self, base: str, ca: str) -> None:
        self.base = base
        self.http = requests.Session()
        # Caddy's root alone (never verify=False); given with each request, as a session's own
        # verify loses to REQUESTS_CA_BUNDLE in the environment.
        self.ca = ca

    def get(self, path: str) -> requests.Response:
        response = self.http.get(self.base + path, verify=self.ca)
        if response.status_code != 200:
            fail(f"GET {path}: {response.status_code}\n{response.text[:800]}")
        return response

    def post(self, path: str, data: dict, htmx: bool = False) -> requests.Response:
        headers = {"Referer": self.base + path}
        if htmx:
            headers["HX-Request"] = "true"
        return self.http.post(
            self.base + path, data, headers=headers, allow_redirects=False, verify=self.ca
        )

    def enter(self, path: str, username: str, fields: dict) -> None:
        page = self.get(path).text
        answer = self.post(path, {"username": username, **hidden(page, 'method="post"'), **fields})
        if answer.status_code != 302:
            fail(f"POST {path}: {answer.status_code}\n{answer.text[:800]}")


def scoreboard(phone: Phone, match: int) -> str:
    """The board as a player reads it: scores, who pays whom, and every hand with each
    player's change and score (the page's text, up to the change log's link)."""
    page = phone.get(f"/matches/{match}/").text
    main = re.search(r"<main.*?</main>", page, re.S)
    text = " ".join(re.sub(r"<[^>]+>", " ", main.group(0) if main else "").split())
    if "1. " not in text or "Change log" not in text:
        fail(f"no board with its hands on /matches/{match}/: {text[:800]}")
    return text[: text.index("Change log")]


def balances(phone: Phone, group: str) -> str:
    page = phone.get(f"/groups/{group}/balances/").text
    return " ".join(re.sub(r"<[^>]+>", " ", page).split())


def play(phone: Phone, noted: Path) -> None:
    phone.enter("/signup/", USERNAME, {"password1": PASSWORD, "password2": PASSWORD})
    page = phone.get("/matches/new/").text
    seats = {f"seat_{i}": name for i, name in enumerate(NAMES)}
    stakes = {"per_game": "1.00", "per_point": "0.10", "per_set": "0.25", "currency": "USD"}
    data = {**hidden(page, 'method="post"'), **NEW_MATCH, **seats, **stakes}
    answer = phone.post("/matches/new/", data)
    if answer.status_code != 302:
        fail(f"a new match: {answer.status_code}\n{answer.text[:800]}")
    match = int(re.search(r"/matches/(\d+)/", answer.headers["Location"]).group(1))
    for number, hand in enumerate(HANDS, 1):
        board = phone.get(f"/matches/{match}/").text
        data = {**hidden(board, 'id="hand-form"'), **hand}
        answer = phone.post(f"/matches/{match}/hands/", data, htmx=True)
        # The board after it: the next hand's, or the sweep's end of the match.
        after = f"Hand {number + 1}" if number < len(HANDS) else f"Final after {number} hands"
        if answer.status_code != 200 or after not in answer.text:
            fail(f"hand {number}: {answer.status_code}\n{answer.text[:800]}")
    groups = phone.get("/groups/").text
    group = re.search(r'href="/groups/(\d+)/"', groups).group(1)
    page = phone.get(f"/groups/{group}/balances/").text
    players = dict(re.findall(r'<option value="(\d+)">([^<]+)</option>', page))
    ids = {name: pk for pk, name in players.items()}
    form = hidden(page, 'class="payment-form"')
    payment = {"payer": ids["Ann"], "payee": ids["Bob"], "amount": "1.25", "currency": "USD"}
    answer = phone.post(f"/groups/{group}/balances/", {**form, **payment})
    if answer.status_code != 302:
        fail(f"a payment: {answer.status_code}\n{answer.text[:800]}")
    # The page it redirects to, as a browser follows it, says (once) "Recorded: …".
    if "Recorded: Ann paid Bob $1.25." not in balances(phone, group):
        fail("the balances page does not say the payment was recorded")
    board = scoreboard(phone, match)
    money = balances(phone, group)
    if "Ann paid Bob $1.25" not in money:
        fail(f"the payment is not on the balances page: {money[:800]}")
    played = {"match": match, "group": group, "board": board, "balances": money}
    noted.write_text(json.dumps(played, indent=1))
    print(f"played: match {match}, {len(HANDS)} hands for money, a payment of $1.25")
    print("  " + board[board.index("Hands") :])


def find(phone: Phone, noted: Path) -> None:
    played = json.loads(noted.read_text())
    phone.enter("/accounts/login/", USERNAME, {"password": PASSWORD})
    board = scoreboard(phone, played["match"])
    if board != played["board"]:
        fail(f"the board differs:\n{board}\nnot\n{played['board']}")
    money = balances(phone, played["group"])
    if money != played["balances"]:
        fail(f"the balances differ:\n{money}\nnot\n{played['balances']}")
    print(f"found: match {played['match']}, its board, the balances and the payment as played")


def headers(base: str, http_base: str, ca: str) -> None:
    redirect = requests.get(http_base + "/accounts/login/", allow_redirects=False)
    if redirect.status_code not in (301, 308) or not redirect.headers.get(
        "Location", ""
    ).startswith("https://"):
        fail(f"plain HTTP is not redirected to HTTPS: {redirect.status_code} {redirect.headers}")
    page = requests.get(base + "/accounts/login/", verify=ca)
    for name in ("Strict-Transport-Security", "Content-Security-Policy"):
        if name not in page.headers:
            fail(f"no {name} on the log-in page: {dict(page.headers)}")
    if "no-store" not in page.headers.get("Cache-Control", ""):
        fail(f"Cache-Control: {page.headers.get('Cache-Control')}")
    print("HTTP redirected to HTTPS; HSTS, CSP and no-store on a page")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--domain", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--http-port", type=int, required=True)
    parser.add_argument("--ca", required=True)
    parser.add_argument("what", choices=["headers", "play", "find"])
    parser.add_argument("noted", nargs="?", type=Path)
    args = parser.parse_args()
    # The name is on the home network, which this machine's resolver does not know: it is
    # 127.0.0.1 here, and still the name the certificate and the Host header carry.
    resolve = socket.getaddrinfo

    def getaddrinfo(host, *rest, **kw):  # type: ignore[no-untyped-def]
        return resolve("127.0.0.1" if host == args.domain else host, *rest, **kw)

    socket.getaddrinfo = getaddrinfo
    base = f"https://{args.domain}:{args.port}"
    if args.what == "headers":
        headers(base, f"http://{args.domain}:{args.http_port}", args.ca)
    else:
        phone = Phone(base, args.ca)
        (play if args.what == "play" else find)(phone, args.noted)


if __name__ == "__main__":
    main()
