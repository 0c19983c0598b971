"""What the pages of a match cost, as ratios to a minimal view, measured in one run.

The minimal view renders a small template with one query (Django's own floor for a page).
Against it: the scoreboard, a check of a hand being entered and a save, at 3, 20 and 60 hands,
the shared board (no account) and a live board's poll of an unchanged match (a 204). Through
the test client on a throwaway database (SQLite, or PostgreSQL where DATABASE_URL names one:
see inprocess.py), logged in; checks and saves are sent form-encoded, as htmx sends them. The
requests take turns, and each figure is the median of 200. Prints each page's ratio, its aim
where it has one (at 20 hands), and whether every aim is met. Run with
`.venv/bin/python bench/pages_bench.py`.
"""

import sys
import types
from urllib.parse import urlencode

from inprocess import DATABASE, DB, answered, by_turns  # sets Django up: before Django

# isort: split

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.template import engines
from django.test import Client
from django.urls import include, path

from games import rules
from games.models import Match, create_match, record_hands

CLUB = rules.Hand("clubs", tricks={"Ann": 2, "Bob": 1, "Cat": 1, "Dan": 1})
CHECK = {"upcard": "hearts", "maker": "1", "trump": "hearts", "dropped": "Cat"}
SAVE = {"upcard": "clubs", "t0": "2", "t1": "1", "t2": "1", "t3": "1"}
HX = {"HTTP_HX_REQUEST": "true"}
SMALL = engines["django"].from_string("<!doctype html><title>{{ n }}</title><p>{{ n }} matches</p>")
ROUNDS, WARM_UP = 200, 5
# Each page's aim at 20 hands: its speed as a share of the minimal view's (higher is cheaper).
AIMS = {
    "scoreboard, 20 hands": 0.5,
    "check, 20 hands": 0.5,
    "shared board, 20 hands": 0.5,
    "204 poll, 20 hands": 0.9,
}


@login_required
def minimal(request):
    return HttpResponse(
        SMALL.render({"n": Match.objects.filter(group__memberships__user=request.user).count()})
    )


urls = types.ModuleType("bench_urls")
urls.urlpatterns = [path("minimal/", minimal), path("", include("scorekeeper.urls"))]
sys.modules["bench_urls"] = urls
settings.ROOT_URLCONF = "bench_urls"


def post(client: Client, url: str, data: dict):
    """A form sent as htmx sends it."""
    body = urlencode(data)
    return client.post(url, body, content_type="application/x-www-form-urlencoded", **HX)


def main():
    user = get_user_model().objects.create_user("bench")
    ruleset = rules.make_ruleset("standard", starting_score=10_000)

    def match_with(n: int) -> Match:
        match = create_match(
            user, "standard", ruleset, rules.Stakes(), ["Ann", "Bob", "Cat", "Dan"], "Dan"
        )
        record_hands(match, [CLUB] * n)
        return match

    client = Client()
    client.force_login(user)
    requests = {"minimal view": answered(200, client.get, "/minimal/")}
    for n in (3, 20, 60):
        match = match_with(n)
        board = match.get_absolute_url()
        check = {**CHECK, "number": n + 1, "version": match.version}
        fresh = iter([match_with(n) for _ in range(ROUNDS + WARM_UP)])

        def save(fresh=fresh, n=n):
            m = next(fresh)
            data = {**SAVE, "number": n + 1, "version": m.version}
            assert post(client, f"/matches/{m.pk}/hands/", data).status_code == 200

        requests[f"scoreboard, {n} hands"] = answered(200, client.get, board)
        requests[f"check, {n} hands"] = answered(200, post, client, f"{board}hands/check/", check)
        requests[f"save, {n} hands"] = save
    match = match_with(20)
    requests["shared board, 20 hands"] = answered(200, Client().get, match.get_share_url())
    poll = {"v": match.version, "n": 20}
    requests["204 poll, 20 hands"] = answered(204, client.get, match.get_absolute_url(), poll, **HX)
    figures = by_turns(requests, ROUNDS, WARM_UP)
    base = figures["minimal view"]
    print(f"The pages of a match on {DATABASE}")
    print(f"{'':24} {'ms':>7}  {'× the minimal view':>18}  {'aim':>6}")
    missed = []
    for name, seconds in figures.items():
        ratio, aim = base / seconds, AIMS.get(name)
        verdict = "" if aim is None else f"≥{aim:.1f}×  " + ("met" if ratio >= aim else "missed")
        if aim is not None and ratio < aim:
            missed.append(name)
        print(f"{name:24} {seconds * 1000:7.2f}  {ratio:18.2f}  {verdict}")
    for what in ("scoreboard", "check", "save"):
        ratio = figures[f"{what}, 60 hands"] / figures[f"{what}, 3 hands"]
        print(f"{what}: 60 hands cost {ratio:.2f}× what 3 hands cost")
    print(f"Aims missed: {', '.join(missed)}." if missed else "Every aim met.")
    DB.unlink()


if __name__ == "__main__":
    main()
