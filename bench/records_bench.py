"""How the pages that list matches grow with a user's number of matches, measured in one run.

Stores 10 finished matches for one user and 1,000 for another (random valid matches of every
preset, four a night, through Match.create as the app stores them) on a throwaway SQLite
database, then times the home page, the past-matches list and a player's record
(`/matches/?player=ID`) of each through the test client, and prints each page's cost with
1,000 matches over its cost with 10. Run with `.venv/bin/python bench/records_bench.py`.
"""

import random
from datetime import timedelta

from inprocess import DB, answered, by_turns  # sets Django up: before anything of Django's

# isort: split

from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from games import rules
from games.models import Match, Player
from tests.matches import random_match

SIZES = (10, 1000)
STAKES = rules.Stakes(per_game=100, per_point=10, per_set=25)


def store(user, count: int, rnd: random.Random):
    """`count` finished matches, four a night, the latest night this evening."""
    evening = timezone.now() - timedelta(hours=1)
    for i in range(count):
        m = random_match(rnd, rnd.choice(sorted(rules.PRESETS)))
        while not m.hands or not rules.replay(m.start(), m.hands)[0].finished:
            m = random_match(rnd, rnd.choice(sorted(rules.PRESETS)))
        night, game = divmod(count - 1 - i, 4)
        played_at = evening - timedelta(days=7 * night, minutes=50 * (3 - game))
        Match.create(
            user, m.preset, m.ruleset, STAKES, m.players, m.first_dealer, m.hands, played_at
        )


def main():
    rnd = random.Random(8)
    pages = {}
    for n in SIZES:
        user = get_user_model().objects.create_user(f"user{n}")
        store(user, n, rnd)
        ann = Player.objects.get(group__home_of=user, name="Ann")
        client = Client()
        client.force_login(user)
        for page, url in (
            ("home", "/"),
            ("past matches", "/matches/"),
            ("record", f"/matches/?player={ann.pk}"),
        ):
            pages[page, n] = answered(200, client.get, url)
    figures = by_turns(pages, rounds=60)
    small, big = SIZES
    for page in ("home", "past matches", "record"):
        a, b = figures[page, small], figures[page, big]
        print(
            f"{page:13} {small:5} matches: {a * 1000:6.2f} ms   {big:5} matches: "
            f"{b * 1000:6.2f} ms   ratio {b / a:.2f}×"
        )
    DB.unlink()


if __name__ == "__main__":
    main()
