"""What the pages over many matches cost, and how they grow, measured in one run.

Three groups, each one account's own: the table of 300 finished matches over 60 nights (five
a night), and 10 and 1,000 finished matches (four a night, a week apart), random valid matches
of every preset stored through create_match as the app stores them, on a throwaway database
(SQLite, or PostgreSQL where DATABASE_URL names a PostgreSQL database: see inprocess.py).
Times the home page, the past-matches list, a player's record (`/matches/?player=ID`), the
latest night, a player's page, the group's balances, its nights, its players and the group's
own page through the test client, each against
a minimal view of the same group (a small template and one query), and prints those ratios,
each page's cost with 1,000 matches over its cost with 10, and whether each meets its aim.

Twice: as the pages are served (a page drawn for a version of the group's stored data is
taken from the cache until the next write), then drawn anew on every request (no cache), the
cost of the first look after a write. Run with `.venv/bin/python bench/records_bench.py`.
"""

import random
import sys
import types
from datetime import timedelta

from inprocess import DATABASE, DB, answered, by_turns  # sets Django up: before Django's

# isort: split

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.template import engines
from django.test import Client, override_settings
from django.urls import include, path
from django.utils import timezone

from games import rules
from games.models import Group, Match, Player, create_match
from tests.matches import random_match

SMALL = engines["django"].from_string("<!doctype html><title>{{ n }}</title><p>{{ n }} matches</p>")
STAKES = rules.Stakes(per_game=100, per_point=10, per_set=25)
# The table: (matches, matches a night, days between nights); then the growth pair.
TABLE = (300, 5, 1)
SMALL_GROUP, LARGE_GROUP = (10, 4, 7), (1000, 4, 7)
ROUNDS = 60
# Each page's aim: its speed as a share of the minimal view's, at the table's size; and at
# most GROWTH times its cost with 10 matches when it has 1,000.
AIMS = {
    "home": 0.4,
    "past matches": 0.4,
    "record": 0.4,
    "night": 0.4,
    "player": 0.3,
    "balances": None,
    "nights": None,
    "players": None,
    "group": None,
}
GROWTH = 1.5
NO_CACHE = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}


def store(user, count: int, rnd: random.Random, per_night: int = 4, days_apart: int = 7):
    """`count` finished matches, `per_night` a night, the latest night this evening."""
    evening = timezone.now() - timedelta(hours=1)
    for i in range(count):
        m = random_match(rnd, rnd.choice(sorted(rules.PRESETS)))
        while not m.hands or not rules.replay(m.start(), m.hands)[0].finished:
            m = random_match(rnd, rnd.choice(sorted(rules.PRESETS)))
        night, game = divmod(count - 1 - i, per_night)
        played_at = evening - timedelta(days=days_apart * night, minutes=50 * (3 - game))
        create_match(
            user, m.preset, m.ruleset, STAKES, m.players, m.first_dealer, m.hands, played_at
        )


@login_required
def minimal(request):
    """Django's own floor for a page: a small template and one query."""
    count = Match.objects.filter(group__memberships__user=request.user).count()
    return HttpResponse(SMALL.render({"n": count}))


urls = types.ModuleType("bench_urls")
urls.urlpatterns = [path("minimal/", minimal), path("", include("scorekeeper.urls"))]
sys.modules["bench_urls"] = urls
settings.ROOT_URLCONF = "bench_urls"
PAGES = tuple(AIMS)


def group_of(size: tuple[int, int, int], rnd: random.Random) -> dict:
    """A group of `size`'s matches and a signed-in client of its owner: each page's URL."""
    count, per_night, days_apart = size
    user = get_user_model().objects.create_user(f"user{count}-{per_night}")
    store(user, count, rnd, per_night, days_apart)
    ann = Player.objects.get(group__home_of=user, name="Ann")
    night = Match.objects.filter(group__home_of=user).latest("played_at").night_id
    client = Client()
    client.force_login(user)
    paths = (
        "/",
        "/matches/",
        f"/matches/?player={ann.pk}",
        f"/nights/{night}/",
        f"/players/{ann.pk}/",
        f"/groups/{Group.home(user).pk}/balances/",
        "/nights/",
        "/players/",
        f"/groups/{Group.home(user).pk}/",
    )
    return {
        "minimal": answered(200, client.get, "/minimal/"),
        **{page: answered(200, client.get, url) for page, url in zip(PAGES, paths, strict=True)},
    }


def report(title: str, figures: dict) -> bool:
    """Print one run's ratios and growth, page by page; whether every aim was met."""
    table, small, large = TABLE, SMALL_GROUP, LARGE_GROUP

    def ratio(page, size):
        return figures["minimal", size] / figures[page, size]

    print(f"\n{title} (the minimal view: {figures['minimal', table] * 1000:.2f} ms)")
    print(
        f"{'':13}{'300 matches/60 nights':>22}{'aim':>8}{'10 matches':>12}{'1,000 matches':>15}"
        f"{'growth':>9}{'aim':>8}{'1,000/300':>11}"
    )
    every = True
    for page in PAGES:
        aim, growth = AIMS[page], figures[page, large] / figures[page, small]
        met_ratio = aim is None or ratio(page, table) >= aim
        met_growth = growth <= GROWTH
        every = every and met_ratio and met_growth
        aim_words = "–" if aim is None else f"≥{aim:.1f}×"
        beyond = figures[page, large] / figures[page, table]
        print(
            f"{page:13}{ratio(page, table):21.2f}×{aim_words:>8}{ratio(page, small):11.2f}×"
            f"{ratio(page, large):14.2f}×{growth:8.2f}×{'≤' + str(GROWTH) + '×':>8}"
            f"{beyond:10.2f}×  " + ("aims met" if met_ratio and met_growth else "aim missed")
        )
    return every


def main():
    rnd = random.Random(8)
    groups = {size: group_of(size, rnd) for size in (TABLE, SMALL_GROUP, LARGE_GROUP)}
    requests = {(page, size): send for size, g in groups.items() for page, send in g.items()}
    served = by_turns(requests, rounds=ROUNDS)
    with override_settings(CACHES=NO_CACHE):
        anew = by_turns(requests, rounds=ROUNDS)
    print(
        f"Pages over many matches on {DATABASE}: each page's speed as a share of a minimal "
        "view's in the same group (higher is cheaper); growth: its cost with 1,000 matches "
        "over its cost with 10"
    )
    met = report("As served (drawn once a version of the group's data, then cached):", served)
    report("Drawn anew on every request (no cache: the first look after a write):", anew)
    print(
        "(1,000/300: its cost with 1,000 matches over its cost with 300, where a list is a full\n"
        "page of 20 cards and a chart has its 60 points already: what grows past it is history)"
    )
    print("\nEvery aim met as served." if met else "\nNot every aim is met as served.")
    DB.unlink()


if __name__ == "__main__":
    main()
