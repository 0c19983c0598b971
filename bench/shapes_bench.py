"""The settle-up's bound (docs/rules.md §11) in the shapes a group may store, measured in one run.

Two groups, each one account's own, on a throwaway database (SQLite, or PostgreSQL where
DATABASE_URL names one: see inprocess.py), their finished matches stored through create_match
as the app stores them:

- **Many currencies**: one night of 16 currencies × 16 players (four matches of four a
  currency, one sweep each): an exact search per currency would be 16 of them in one answer.
- **A loose payment**: 12 nights of 16 players (four matches of four, one sweep each, a week
  apart) and one payment of $0.01 recorded for no night that pays no transfer of any of them,
  though its payer owes and its payee is owed every night (a loser of the first table to the
  winner of the second: the fewest transfers settle each table on its own), so that every
  night is a night it might pay.

Times, drawn anew on every request (no cache: the first look after a write), the night's page
as htmx asks for it, its settle-up CSV, the balances and their CSV, home, and "Mark paid" (the
night's first transfer marked paid, then not paid after all, in turns), each the median of
ROUNDS, and prints each in milliseconds with the number of exact searches it ran
(`rules.fewest_transfers`). Run with `.venv/bin/python bench/shapes_bench.py`.
"""

import re
from datetime import timedelta

from inprocess import DATABASE, DB, answered, by_turns  # sets Django up: before Django's

# isort: split

from django.contrib.auth import get_user_model
from django.test import Client, override_settings
from django.utils import timezone

from games import rules
from games.models import Group, Match, Player, create_match, record_payment

ROUNDS, WARM_UP = 5, 1
HX = {"HTTP_HX_REQUEST": "true"}
NO_CACHE = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
NAMES = [f"P{i:02d}" for i in range(16)]


def night_of_16(user, at, currency: str) -> None:
    """Four matches of four of the 16 players, one sweep each: 16 owing or owed."""
    for m in range(4):
        table = NAMES[4 * m : 4 * m + 4]
        maker, *others = table[m % 4 :] + table[: m % 4]
        sweep = rules.Hand("hearts", "hearts", maker, None, tuple(others), {maker: 5})
        stakes = rules.Stakes(per_game=100 + 7 * m, per_point=10 + m, currency=currency)
        create_match(
            user,
            "standard",
            rules.make_ruleset("standard"),
            stakes,
            table,
            table[-1],
            [sweep],
            at + timedelta(minutes=40 * m),
        )


def pages(user, night: int) -> dict:
    """Each page of the shape as a request of no argument (a signed-in client of `user`)."""
    group = Group.home(user)
    client = Client()
    client.force_login(user)
    page = client.get(f"/nights/{night}/").content.decode()
    form = re.search(r'<form method="post" action="/nights/\d+/paid/".*?</form>', page, re.S)
    assert form, "no Mark paid on the night's page"
    hidden = dict(re.findall(r'type="hidden" name="(\w+)" value="([^"]*)"', form.group(0)))
    state = {"paid": "1"}

    def mark():
        data = {**hidden, "paid": state["paid"]}
        assert client.post(f"/nights/{night}/paid/", data, **HX).status_code == 200
        state["paid"] = "0" if state["paid"] == "1" else "1"

    return {
        "night (htmx)": answered(200, client.get, f"/nights/{night}/", **HX),
        "night's CSV": answered(200, client.get, f"/nights/{night}/settle-up.csv"),
        "balances": answered(200, client.get, f"/groups/{group.pk}/balances/"),
        "balances CSV": answered(200, client.get, f"/groups/{group.pk}/balances.csv"),
        "home": answered(200, client.get, "/"),
        "Mark paid": mark,
    }


def searches(send) -> int:
    """How many exact searches one request runs."""
    real, count = rules.fewest_transfers, [0]

    def counted(net):
        count[0] += 1
        return real(net)

    rules.fewest_transfers = counted
    try:
        send()
    finally:
        rules.fewest_transfers = real
    return count[0]


def main():
    evening = timezone.now() - timedelta(hours=4)
    many = get_user_model().objects.create_user("currencies")
    for c in range(16):
        night_of_16(many, evening, f"C{c:02d}")
    loose = get_user_model().objects.create_user("loose")
    for week in range(12):
        night_of_16(loose, evening - timedelta(days=7 * (11 - week)), "USD")
    players = {p.name: p for p in Player.objects.filter(group=Group.home(loose))}
    # P01 lost the first table of every night, P05 won the second: no transfer between them.
    record_payment(Group.home(loose), players["P01"], players["P05"], 1, "USD", None)
    shapes = {
        "16 currencies × 16 players": pages(
            many, Match.objects.filter(group__home_of=many)[0].night_id
        ),
        "12 nights, a loose payment": pages(
            loose, Match.objects.filter(group__home_of=loose).latest("played_at").night_id
        ),
    }
    requests = {(shape, page): send for shape, p in shapes.items() for page, send in p.items()}
    with override_settings(CACHES=NO_CACHE):
        counts = {key: searches(send) for key, send in requests.items()}
        figures = by_turns(requests, ROUNDS, WARM_UP)
    print(f"The settle-up's shapes on {DATABASE}, drawn anew (median of {ROUNDS}):")
    for shape in shapes:
        print(f"\n{shape}")
        for (which, page), seconds in figures.items():
            if which == shape:
                searched = counts[which, page]
                print(f"  {page:16}{seconds * 1000:9.1f} ms  {searched:3} exact searches")
    DB.unlink()


if __name__ == "__main__":
    main()
