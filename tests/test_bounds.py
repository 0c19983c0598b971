"""The settle-up's bound in every shape a group may store (#43 §1, docs/rules.md §11): one
budget of search for all the currencies of an answer, and a night's transfers searched once a
change of the night, not on every read of it or of the nights after it. Counted in searches
(`rules.fewest_transfers`) and their steps, never in seconds."""

import html
import random
import re
from contextlib import contextmanager
from datetime import timedelta

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from games import rules
from games.models import (
    Group,
    Match,
    Night,
    NightTransfers,
    Payment,
    Player,
    create_match,
    delete_match,
    mark_transfer,
    record_payment,
    sums,
)
from games.words import NOT_FEWEST

from .conftest import url
from .matches import MONDAY

NAMES = [f"P{i:02d}" for i in range(16)]
NO_CACHE = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
HX = {"HTTP_HX_REQUEST": "true"}


@contextmanager
def searches(monkeypatch):
    """The exact searches run meanwhile: the steps of each (rules.search_cost)."""
    real, found = rules.fewest_transfers, []

    def counted(net):
        found.append(rules.search_cost(net))
        return real(net)

    with monkeypatch.context() as patch:
        patch.setattr(rules.money, "fewest_transfers", counted)  # where the engine calls it
        yield found


def nets_of(rnd: random.Random, players: int) -> dict[str, int]:
    values = [rnd.randint(-10_000, 10_000) or 1 for _ in range(players - 1)]
    *values, last = [*values, -sum(values)]
    if not last:  # every player owes or is owed: the search is as large as it can be
        values[0] += 1
        last = -1
    return {f"P{i}": v for i, v in enumerate([*values, last])}


# --- The rules: one budget an answer ---------------------------------------------------------


def test_sixteen_currencies_of_sixteen_players_search_within_one_budget(monkeypatch):
    rnd = random.Random(43)
    nets = {f"C{c:02d}": nets_of(rnd, 16) for c in range(16)}
    with searches(monkeypatch) as steps:
        settled = rules.settle_currencies(nets)
    assert sum(steps) <= rules.SEARCH_BUDGET and len(steps) == 2
    assert list(settled) == list(nets)  # in the order asked
    assert sum(fewest for _, fewest in settled.values()) == 2
    for currency, (payments, fewest) in settled.items():
        left = dict(nets[currency])
        for t in payments:
            assert nets[currency][t.payer] < 0 < nets[currency][t.payee]
            left[t.payer] += t.cents
            left[t.payee] -= t.cents
        assert not any(left.values())
        assert len(payments) < 16
        if fewest:
            assert payments == rules.fewest_transfers(nets[currency])
    assert rules.settle_currencies(nets) == settled  # the same nets, the same answer


def test_the_budget_goes_to_the_smallest_searches_first():
    rnd = random.Random(7)
    nets = {"A": nets_of(rnd, 16), "B": nets_of(rnd, 16), "C": nets_of(rnd, 16)}
    nets["Z"] = {"Ann": 6, "Bob": 4, "Cat": -4, "Dan": -3, "Eve": -3}
    settled = rules.settle_currencies(nets)
    assert [fewest for _, fewest in settled.values()] == [True, True, False, True]
    assert len(settled["Z"][0]) == 3  # the fewest, not greedy's 4


def test_one_currency_of_sixteen_is_searched_as_it_always_was():
    net = nets_of(random.Random(16), 16)
    assert rules.settle_nets(net) == (rules.fewest_transfers(net), True)
    assert rules.search_cost(net) * 2 <= rules.SEARCH_BUDGET < rules.search_cost(net) * 3


# --- The pages ---------------------------------------------------------------------------------

pytestmark = pytest.mark.django_db


def night_of_16(group, at, currency="USD", stakes=1):
    """Four tables of four of NAMES, one sweep each: 16 owing or owed, the first table's
    loser P01 owing, the second's winner P05 owed, and no transfer between them (the fewest
    settle each table on its own)."""
    for m in range(4):
        table = NAMES[4 * m : 4 * m + 4]
        maker, *others = table[m % 4 :] + table[: m % 4]
        sweep = rules.Hand("hearts", "hearts", maker, None, tuple(others), {maker: 5})
        create_match(
            group,
            "standard",
            rules.make_ruleset("standard"),
            rules.Stakes(per_game=100 * stakes + 7 * m, per_point=10 + m, currency=currency),
            table,
            table[-1],
            [sweep],
            at + timedelta(minutes=40 * m),
        )


def pages(group, night) -> dict[str, tuple[str, dict]]:
    return {
        "night": (night.get_absolute_url(), {}),
        "night (htmx)": (night.get_absolute_url(), HX),
        "night's CSV": (url("night_csv", night.pk), {}),
        "balances": (url("balances", group.pk), {}),
        "balances CSV": (url("balances_csv", group.pk), {}),
        "home": (url("home"), {}),
    }


@pytest.fixture
def many_currencies(user, monkeypatch):
    group = Group.home(user)
    # Stored as before the transfers were kept (each of the 64 writes would search the
    # night within a budget: 64 of them, for the test's setting up alone).
    with monkeypatch.context() as patch:
        patch.setattr(sums, "keep_transfers", lambda nights: None)
        for c in range(16):
            night_of_16(group, MONDAY, f"C{c:02d}", stakes=c + 1)
    [night] = Night.objects.filter(group=group)
    assert not NightTransfers.objects.exists()
    return group, night


@override_settings(CACHES=NO_CACHE)
def test_a_night_of_sixteen_currencies_searches_one_budget_an_answer(
    client_in, many_currencies, monkeypatch
):
    group, night = many_currencies
    for page, (path, headers) in pages(group, night).items():
        with searches(monkeypatch) as steps:
            response = client_in.get(path, **headers)
        assert response.status_code == 200, page
        assert sum(steps) <= rules.SEARCH_BUDGET and len(steps) <= 2, page
        assert NOT_FEWEST in html.unescape(response.content.decode()), page
    settle_up = night.settle_up()
    assert len(settle_up) == 16 and sum(s.fewest for s in settle_up) == 2


@override_settings(CACHES=NO_CACHE)
def test_a_nights_transfers_are_searched_once_a_change_not_once_a_read(
    client_in, many_currencies, monkeypatch
):
    group, night = many_currencies
    with searches(monkeypatch) as steps:
        assert client_in.get(night.get_absolute_url()).status_code == 200
    assert 0 < sum(steps) <= rules.SEARCH_BUDGET  # searched once, and kept
    with searches(monkeypatch) as steps:
        for path, headers in pages(group, night).values():
            if "balances" not in path:  # (the balances are the group's: one budget each)
                assert client_in.get(path, **headers).status_code == 200
    assert steps == []
    page = client_in.get(night.get_absolute_url()).content.decode()
    form = re.search(r'<form method="post" action="[^"]*/paid/".*?</form>', page, re.S)
    data = dict(re.findall(r'type="hidden" name="(\w+)" value="([^"]*)"', form.group(0)))
    with searches(monkeypatch) as steps:
        assert client_in.post(url("night_paid", night.pk), data, **HX).status_code == 200
    assert steps == [] and Payment.objects.filter(night=night).count() == 1
    # A match of the night deleted: its write searches the night once, within one budget,
    # and no page after it searches.
    with searches(monkeypatch) as steps:
        delete_match(Match.objects.filter(night=night, currency="C03").first())
    assert 0 < sum(steps) <= rules.SEARCH_BUDGET
    with searches(monkeypatch) as steps:
        assert client_in.get(night.get_absolute_url(), **HX).status_code == 200
    assert steps == []


@pytest.fixture
def twelve_nights(user):
    group = Group.home(user)
    for week in range(12):
        night_of_16(group, MONDAY + timedelta(days=7 * week))
    players = {p.name: p for p in Player.objects.filter(group=group)}
    # P01 owes and P05 is owed every night, but no night has a transfer between them: the
    # payment is never used up, and every night is one it might pay.
    record_payment(group, players["P01"], players["P05"], 1, "USD", None)
    latest = Match.objects.filter(group=group).latest("played_at").night
    return group, latest


@override_settings(CACHES=NO_CACHE)
def test_a_loose_payment_over_twelve_nights_searches_no_night_on_a_read(
    client_in, twelve_nights, monkeypatch
):
    group, latest = twelve_nights
    for page, (path, headers) in pages(group, latest).items():
        with searches(monkeypatch) as steps:
            assert client_in.get(path, **headers).status_code == 200, page
        assert len(steps) <= (1 if "balances" in page else 0), page
    with searches(monkeypatch) as steps:
        assert latest.paid_cents() == {}
        settle_up = latest.settle_up()
        key = settle_up[0].key(settle_up[0].transfers[0])
        assert mark_transfer(latest, key, True, Night.fingerprint(settle_up))
        assert mark_transfer(latest, key, False, Night.fingerprint(settle_up))
    assert steps == []


@override_settings(CACHES=NO_CACHE)
def test_nights_kept_before_or_changed_behind_the_app_are_searched_once_then_kept(
    client_in, twelve_nights, monkeypatch
):
    group, latest = twelve_nights
    NightTransfers.objects.all().delete()
    with searches(monkeypatch) as steps:
        client_in.get(latest.get_absolute_url())
    assert len(steps) == 12  # each night the payment might pay, once
    with searches(monkeypatch) as steps:
        client_in.get(latest.get_absolute_url())
        client_in.get(url("home"))
    assert steps == []


def test_a_loose_payment_still_pays_the_earliest_nights_transfer_first(user, twelve_nights):
    group, latest = twelve_nights
    players = {p.name: p for p in Player.objects.filter(group=group)}
    first = Match.objects.filter(group=group).earliest("played_at").night
    [transfer] = [t for s in first.settle_up() for t in s.transfers if t.payer == "P02"]
    record_payment(group, players["P02"], players[transfer.payee], transfer.cents + 5, "USD", None)
    key = f"USD:P02:{transfer.payee}"
    assert first.paid_cents()[key] == transfer.cents
    second = Night.objects.filter(group=group).exclude(pk=first.pk).order_by("pk").first()
    assert second.paid_cents()[key] == 5
    assert key not in latest.paid_cents()


def test_a_rename_or_a_merge_that_leaves_the_nets_searches_nothing_again(
    user, twelve_nights, monkeypatch
):
    group, latest = twelve_nights
    before = [s.transfers for s in latest.settle_up()]
    p03 = Player.objects.get(group=group, name="P03")
    with searches(monkeypatch) as steps:
        p03.rename("Zed")  # last of the four who began together, as P03 was
        renamed = latest.settle_up()
    assert steps == []
    assert [s.transfers for s in renamed] != before  # by the new name
    assert any(t.payer == "Zed" or t.payee == "Zed" for s in renamed for t in s.transfers)
    # A second spelling of a player who never sat with them: the nets stay where they were.
    ghost = Player.objects.create(group=group, name="Ghost")
    with searches(monkeypatch) as steps:
        Player.objects.get(group=group, name="P15").merge(ghost)
        assert latest.settle_up() == [*renamed]
    assert steps == []


def test_a_rename_that_moves_a_player_among_those_who_began_together_searches_in_the_write(
    client_in, user, twelve_nights, monkeypatch
):
    group, latest = twelve_nights
    with searches(monkeypatch) as steps:
        Player.objects.get(group=group, name="P00").rename("Zed")  # now last of the four
    assert 0 < len(steps) <= 12  # each of their nights, once
    with searches(monkeypatch) as steps:
        assert client_in.get(latest.get_absolute_url()).status_code == 200
    assert steps == []
    assert list(latest.settle_up()[0].net)[:4] == ["P01", "P02", "P03", "Zed"]


@override_settings(CACHES=NO_CACHE)
def test_the_balances_read_payment_by_payment_only_those_who_paid(client_in, many_currencies, user):
    group, night = many_currencies
    [s, *_] = night.settle_up()
    assert mark_transfer(night, s.key(s.transfers[0]), True, Night.fingerprint(night.settle_up()))
    with CaptureQueriesContext(connection) as queries:
        assert client_in.get(url("balances", group.pk)).status_code == 200
    payments = Payment._meta.db_table
    [latest] = [q["sql"] for q in queries if "UNION ALL" in q["sql"] and payments in q["sql"]]
    assert latest.count(" latest_") == 2  # the payer and the payee, of 256 balances
    nights = [q["sql"] for q in queries if "UNION ALL" in q["sql"] and payments not in q["sql"]]
    assert [sql.count(" latest_") for sql in nights] == [256]  # each a night in its currency
