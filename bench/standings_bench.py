"""What a season's standings cost as history grows (#44 §3), measured in one run.

Two groups, each one account's own: 300 finished matches over the past year, and 3,000 over
the past ten years (300 a year, as a group that keeps playing piles them up), with three
matches still going in each; random valid matches of every preset stored through
create_match as the app stores them, on a throwaway database (SQLite, or PostgreSQL where
DATABASE_URL names a PostgreSQL database: see inprocess.py). Times the standings of this
year and of all time, and their CSV, through the test client, by turns, and prints each with
3,000 matches over itself with 300 (the aim: at most 1.5×), and each as a share of a minimal
view of the same group (a small template and one query).

Twice: as served (the page's table drawn once a version of the group, then cached; the CSV
is read every time), then drawn anew on every request (no cache: the first look after a
write). A year reads its matches' results (the group's index of when its matches began finds
them); all time reads the players' stored sums less the matches still going.
Run with `.venv/bin/python bench/standings_bench.py`.
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
from games.models import Group, Match, create_match
from tests.matches import random_match

SMALL = engines["django"].from_string("<!doctype html><title>{{ n }}</title><p>{{ n }} matches</p>")
STAKES = (rules.Stakes(per_game=100, per_point=10, per_set=25), rules.Stakes())
SIZES = (300, 3000)
A_YEAR = 300
ROUNDS = 40
GROWTH = 1.5
PAGES = ("this year", "all time", "this year CSV", "all time CSV")
NO_CACHE = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}


def store(user, count: int, rnd: random.Random) -> None:
    """`count` finished matches, A_YEAR a year back from this evening, and three going."""
    evening = timezone.now() - timedelta(hours=1)
    days = 365 / A_YEAR
    for i in range(count + 3):
        m = random_match(rnd, rnd.choice(sorted(rules.PRESETS)))
        going = i >= count
        while not going and (not m.hands or not rules.replay(m.start(), m.hands)[0].finished):
            m = random_match(rnd, rnd.choice(sorted(rules.PRESETS)))
        hands = m.hands[:1] if going else m.hands
        played_at = evening - timedelta(days=days * (count - 1 - i)) if not going else evening
        create_match(
            user, m.preset, m.ruleset, STAKES[i % 2], m.players, m.first_dealer, hands, played_at
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


def group_of(count: int, rnd: random.Random) -> dict:
    user = get_user_model().objects.create_user(f"user{count}")
    store(user, count, rnd)
    group = Group.home(user).pk
    client = Client()
    client.force_login(user)
    year = timezone.localdate().year
    pages = {
        "this year": f"/groups/{group}/standings/?season={year}",
        "all time": f"/groups/{group}/standings/?season=all",
        "this year CSV": f"/groups/{group}/standings.csv?season={year}",
        "all time CSV": f"/groups/{group}/standings.csv?season=all",
    }
    return {
        "minimal": answered(200, client.get, "/minimal/"),
        **{page: answered(200, client.get, url) for page, url in pages.items()},
    }


def main():
    rnd = random.Random(44)
    groups = {size: group_of(size, rnd) for size in SIZES}
    requests = {(page, size): send for size, g in groups.items() for page, send in g.items()}
    served = by_turns(requests, rounds=ROUNDS)
    with override_settings(CACHES=NO_CACHE):
        anew = by_turns(requests, rounds=ROUNDS)
    every = report("As served (drawn once a version of the group's data, then cached):", served)
    every = (
        report("Drawn anew on every request (no cache: the first look after a write):", anew)
        and every
    )
    print("\nEvery aim met." if every else "\nNot every aim is met.")
    DB.unlink()


def report(title: str, took: dict) -> bool:
    small, large = SIZES
    print(
        f"\n{title}\nA season's standings on {DATABASE}: {small:,} matches (a year) and {large:,} "
        f"(ten years, {A_YEAR} a year); the minimal view {took['minimal', small] * 1000:.2f} ms"
    )
    print(f"{'':14}{f'{small:,} ms':>10}{f'{large:,} ms':>11}{'growth':>9}{'aim':>7}{'share':>8}")
    every = True
    for page in PAGES:
        growth = took[page, large] / took[page, small]
        share = took["minimal", small] / took[page, small]
        met = growth <= GROWTH
        every = every and met
        print(
            f"{page:14}{took[page, small] * 1000:10.2f}{took[page, large] * 1000:11.2f}"
            f"{growth:8.2f}×{'≤1.5×':>7}{share:7.2f}×  " + ("aim met" if met else "aim missed")
        )
    return every


if __name__ == "__main__":
    main()
