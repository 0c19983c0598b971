"""How /me/ grows with a member's number of matches, measured in one run.

Stores 10 finished matches for one account and 1,000 for another (random valid matches of every
preset, four a night, through create_match as the app stores them, with a payment a night) on a
throwaway SQLite database; each account says "this is me" of Ann in its group. Then times /me/
of each through the test client and prints its cost with 1,000 matches over its cost with 10
(the page reads the stored results and payments, so it should stay within 3×). Run with
`.venv/bin/python bench/me_bench.py`.
"""

import random

from inprocess import DB, answered, by_turns  # sets Django up: before anything of Django's

# isort: split

from django.contrib.auth import get_user_model
from django.test import Client
from records_bench import store

from games.models import Group, Membership, Night, Payment, Player, mark_transfer

SIZES = (10, 1000)


def main():
    rnd = random.Random(18)
    pages = {}
    for n in SIZES:
        user = get_user_model().objects.create_user(f"user{n}")
        group = Group.home(user)
        store(user, n, rnd)
        ann = Player.objects.get(group=group, name="Ann")
        Membership.objects.filter(group=group, user=user).update(player=ann)
        for night in Night.objects.filter(group=group):
            settle_up = night.settle_up()
            for s in settle_up:
                mark_transfer(
                    night, s.key(s.transfers[0]), True, Night.fingerprint(settle_up), by=user
                )
        client = Client()
        client.force_login(user)
        pages[n] = answered(200, client.get, "/me/")
        print(f"{n:5} matches: {Payment.objects.filter(group=group).count()} payments")
    figures = by_turns(pages, rounds=40)
    small, big = SIZES
    a, b = figures[small], figures[big]
    print(
        f"/me/  {small:5} matches: {a * 1000:6.2f} ms   {big:5} matches: {b * 1000:6.2f} ms   "
        f"ratio {b / a:.2f}×"
    )
    DB.unlink()


if __name__ == "__main__":
    main()
