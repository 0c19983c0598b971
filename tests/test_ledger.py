"""Payments, a group's balances over the weeks and a member's own record (`/me/`): the models,
the pages, bad input, and two phones recording at once against a real server."""

import csv
import html
import io
import random
import re
from collections import Counter
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from games import rules
from games.models import (
    Group,
    Match,
    Membership,
    Night,
    Payment,
    PaymentsChanged,
    Player,
    Result,
    Role,
    create_match,
    delete_match,
    group_balances,
    mark_transfer,
    move_match,
    record_hands,
    record_payment,
)
from games.rules import Hand as GameHand
from games.views import common, ledger
from games.words import NOT_FEWEST
from games.words import money as money_words

from .conftest import command, url
from .matches import CLUB_HAND, MONDAY, STARTED, TABLE, three_nights

A_GAME_AND_A_DIME = rules.Stakes(per_game=100, per_point=10)
BOB_SWEEPS = GameHand("hearts", "hearts", "Bob", None, ("Ann", "Cat", "Dan"), {"Bob": 5})
CAT_SWEEPS = GameHand("diamonds", "spades", "Cat", None, ("Ann", "Bob", "Dan"), {"Cat": 5})


@pytest.fixture
def imported(user, files):
    group = Group.home(user)
    code, out, err = command("import_match", *files(*three_nights()), "--group", str(group.pk))
    assert code == 0, err
    assert Match.objects.filter(group=group).count() == 6
    return group


def text(response) -> str:
    return html.unescape(response.content.decode())


def rows_of(response) -> list[dict]:
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    return list(csv.DictReader(io.StringIO(response.content.decode())))


def hidden(page: str, form: str) -> dict:
    """The hidden inputs of the first form whose opening tag matches `form`."""
    found = re.search(rf"<form[^>]*{form}.*?</form>", page, re.S)
    assert found, form
    return dict(re.findall(r'type="hidden" name="(\w+)" value="([^"]*)"', found.group(0)))


def cents(text: str) -> int:
    return rules.parse_money(text.removeprefix("-")) * (-1 if text.startswith("-") else 1)


def shown_cents(text: str) -> int:
    """Cents from an amount as a page shows it: "+$2.50", "−$3.50"."""
    return cents(text.replace("−", "-").replace("$", "").replace("+", ""))


def pk(name: str) -> str:
    """The id of the first player of that name: of the group a test made first."""
    return str(Player.objects.filter(name=name).order_by("pk").first().pk)


def record(client, group, **data):
    """Record a payment from the balances page as drawn now: its form's version and token."""
    page = client.get(url("balances", group.pk)).content.decode()
    form = hidden(page, 'class="payment-form"')
    return client.post(url("balances", group.pk), {**form, "currency": "USD", **data})


def assert_settled(net: dict[str, int], transfers: list[rules.Payment]):
    """The transfers settle every balance exactly, each from one who owes to one owed, in the
    fewest payments there can be (docs/rules.md §11)."""
    left = dict(net)
    for t in transfers:
        assert net[t.payer] < 0 < net[t.payee] and t.cents > 0
        left[t.payer] += t.cents
        left[t.payee] -= t.cents
    assert not any(left.values())
    assert len(transfers) == len(rules.fewest_transfers(net))


# --- The rules: settling balances --------------------------------------------------------------

balances_strategy = st.lists(st.integers(-5000, 5000), min_size=1, max_size=9).map(
    lambda vs: {f"P{i}": v for i, v in enumerate([*vs, -sum(vs)])}
)


@given(balances_strategy)
def test_a_groups_balances_are_settled_as_a_nights_are_while_the_search_is_small(net):
    payments, fewest = rules.settle_nets(net)
    assert fewest and payments == rules.fewest_transfers(net)


@given(st.lists(st.integers(-5000, 5000), min_size=17, max_size=24))
def test_too_many_to_search_are_still_settled_exactly_in_fewer_payments_than_players(values):
    net = {f"P{i}": v for i, v in enumerate([*values, -sum(values)])}
    payments, fewest = rules.settle_nets(net)
    assert_settled_many(net, payments)
    assert len(payments) < max(1, sum(1 for v in net.values() if v))
    assert fewest == (sum(1 for v in net.values() if v) <= rules.EXACT_SEARCH_MOST)


def test_past_sixteen_the_largest_debt_is_paid_to_the_largest_credit_again_and_again():
    # 17 owing or owed: P0 owes 900 to P1 (the largest credit, 1,000), P2 the other 100 of
    # it; the rest pay each other in pairs. Past the search, whatever an exact one would find.
    net = {"P0": -900, "P1": 1000, "P2": -600, "P3": 500}
    net |= {f"Q{i}": (i + 1) * (1 if i % 2 else -1) * 10 for i in range(12)}
    net["Q12"] = -sum(net.values())
    assert sum(1 for v in net.values() if v) == 17
    payments, fewest = rules.settle_nets(net)
    assert not fewest
    assert payments[0] == rules.Payment("P0", "P1", 900)
    assert rules.Payment("P2", "P1", 100) in payments and rules.Payment("P2", "P3", 500) in payments
    assert_settled_many(net, payments)


@pytest.mark.parametrize("players", [24, 200, 5000])
def test_a_night_of_any_size_is_settled_without_the_exact_search(players, monkeypatch):
    """Past the search's bound the fallback settles it (the exact search of 24 would take
    minutes): shown by the search never running, not by a time (bench/ times it)."""
    rnd = random.Random(players)
    values = [rnd.randint(-10_000, 10_000) for _ in range(players - 1)]
    net = {f"P{i}": v for i, v in enumerate([*values, -sum(values)])}

    def searched(net):
        raise AssertionError(f"the exact search ran for {len(net)} players")

    monkeypatch.setattr(rules.money, "fewest_transfers", searched)
    payments, fewest = rules.settle_nets(net)
    assert not fewest
    assert_settled_many(net, payments)


def assert_settled_many(net, payments):
    left = dict(net)
    for t in payments:
        assert net[t.payer] < 0 < net[t.payee]
        left[t.payer] += t.cents
        left[t.payee] -= t.cents
    assert not any(left.values())


def test_balances_that_do_not_sum_to_zero_are_refused():
    with pytest.raises(ValueError):
        rules.settle_nets({"Ann": 5, "Bob": -4})


# --- The models ---------------------------------------------------------------------------------

pytestmark = pytest.mark.django_db


def played(group, at, hands, names=TABLE, stakes=A_GAME_AND_A_DIME):
    return create_match(
        group, "standard", rules.make_ruleset("standard"), stakes, names, names[-1], hands, at
    )


def players(group):
    return {p.name: p for p in Player.objects.filter(group=group)}


def balance(group, currency="USD") -> dict[str, int]:
    return next(s.net for s in group_balances(group) if s.currency == currency)


def test_a_balance_is_every_nights_net_plus_what_was_paid_minus_what_was_received(user):
    group = Group.home(user)
    first = played(group, MONDAY, [BOB_SWEEPS])  # Ann, Cat, Dan pay Bob $3.50 each
    played(group, MONDAY + timedelta(days=7), [CAT_SWEEPS])  # and Cat $3.50 each a week on
    nights = [s.net for m in Match.objects.all() for s in m.night.settle_up()]
    p = players(group)
    before = group.payments.version()
    record_payment(group, p["Ann"], p["Bob"], 200, "USD", before, by=user)
    after = {name: sum(n.get(name, 0) for n in nights) for name in TABLE}
    after["Ann"] += 200
    after["Bob"] -= 200
    assert balance(group) == after == {"Ann": -500, "Bob": 500, "Cat": 700, "Dan": -700}
    [usd] = group_balances(group)
    assert usd.transfers == [rules.Payment("Ann", "Bob", 500), rules.Payment("Dan", "Cat", 700)]
    assert usd.fewest and sum(usd.net.values()) == 0
    assert p["Ann"].balance() == {"USD": -500}
    assert p["Cat"].balance() == {"USD": 700}
    assert first.night.settle_up()[0].net["Ann"] == -350  # a night's own nets keep to the night


def test_a_night_of_24_players_is_settled_at_once_everywhere_and_says_it_may_not_be_fewest(
    client, user
):
    # Six matches of four new names, one sweep each: 24 owing or owed, past the exact search
    # (which at 24 would run for minutes), so every view takes the same quicker answer.
    group = Group.home(user)
    for m in range(6):
        ann, bob, cat, dan = names = tuple(f"{n}{m}" for n in TABLE)
        sweep = GameHand("hearts", "hearts", bob, None, (ann, cat, dan), {bob: 5})
        played(group, MONDAY + timedelta(minutes=30 * m), [sweep], names=names)
    [night] = {m.night for m in Match.objects.all()}
    [usd] = night.settle_up()
    assert not usd.fewest and len(usd.net) == 24
    assert_settled_many(usd.net, usd.transfers)
    client.force_login(user)
    words = html.escape(NOT_FEWEST, quote=False)
    for page in (night.get_absolute_url(), reverse("games:home"), url("balances", group.pk)):
        assert words in text(client.get(page)), page
    csv_text = client.get(url("night_csv", night.pk)).content.decode()
    assert NOT_FEWEST in csv_text
    assert csv_text.count(",pays,") == len(usd.transfers)


def test_a_payment_outlives_a_change_of_hands_and_the_balance_shows_what_is_left(user):
    group = Group.home(user)
    match = played(group, MONDAY, [BOB_SWEEPS])
    night = match.night
    settle_up = night.settle_up()
    assert mark_transfer(
        night, settle_up[0].key(settle_up[0].transfers[0]), True, Night.fingerprint(settle_up)
    )
    assert balance(group)["Ann"] == 0
    record_hands(match, [CLUB_HAND])
    payment = Payment.objects.get()
    assert (payment.amount_cents, payment.night) == (350, night)  # kept as it was
    assert balance(group) == {"Ann": 350, "Bob": -350}  # nothing owed for an open match
    assert group_balances(group)[0].transfers == [rules.Payment("Bob", "Ann", 350)]


def test_a_payment_of_a_night_that_is_gone_stays_in_the_balances(user):
    group = Group.home(user)
    match = played(group, MONDAY, [BOB_SWEEPS])
    night = match.night
    settle_up = night.settle_up()
    mark_transfer(
        night, settle_up[0].key(settle_up[0].transfers[0]), True, Night.fingerprint(settle_up)
    )
    played(group, MONDAY + timedelta(days=7), [CAT_SWEEPS])
    move_match(match, Match.objects.exclude(pk=match.pk).get().night)  # its old night is gone
    assert not Night.objects.filter(pk=night.pk).exists()
    assert Payment.objects.get().night is None
    assert balance(group)["Ann"] == -700 + 350


@pytest.mark.parametrize(
    "amount, payer, payee, currency, words",
    [
        (0, "Ann", "Bob", "USD", "Enter how much was paid: more than 0."),
        (-100, "Ann", "Bob", "USD", "Enter how much was paid: more than 0."),
        (10**8, "Ann", "Bob", "USD", "A payment must be under 1,000,000."),
        (100, "Ann", "Ann", "USD", "Ann can't pay Ann: choose two players."),
        (100, "Ann", "Bob", "EUR", "The group has played for no money in EUR"),
    ],
)
def test_a_payment_that_cannot_be_is_refused_in_words(user, amount, payer, payee, currency, words):
    group = Group.home(user)
    played(group, MONDAY, [BOB_SWEEPS])
    p = players(group)
    with pytest.raises(ValidationError, match=re.escape(words)):
        record_payment(group, p[payer], p[payee], amount, currency, group.payments.version())
    assert not Payment.objects.exists()


def test_a_player_of_another_group_can_not_be_paid(user, other_user):
    group = Group.home(user)
    played(group, MONDAY, [BOB_SWEEPS])
    theirs = played(Group.home(other_user), MONDAY, [BOB_SWEEPS]).seats.first().player
    with pytest.raises(ValidationError, match="Choose two of the group's players."):
        record_payment(group, players(group)["Ann"], theirs, 100, "USD", "0-0")
    assert not Payment.objects.exists()


def test_the_database_refuses_a_payment_that_cannot_be(user):
    group = Group.home(user)
    played(group, MONDAY, [BOB_SWEEPS])
    p = players(group)
    for fields in (
        {"payer": p["Ann"], "payee": p["Bob"], "amount_cents": 0},
        {"payer": p["Ann"], "payee": p["Bob"], "amount_cents": 10**8},
        {"payer": p["Ann"], "payee": p["Ann"], "amount_cents": 100},
    ):
        with pytest.raises(IntegrityError), transaction.atomic():
            Payment.objects.create(group=group, currency="USD", **fields)


def test_the_same_form_twice_stores_one_payment_and_a_page_drawn_before_it_stores_its_own(user):
    group = Group.home(user)
    played(group, MONDAY, [BOB_SWEEPS])
    p = players(group)
    drawn = group.payments.version()
    first, stored = record_payment(group, p["Ann"], p["Bob"], 100, "USD", drawn, "tok1", user)
    again, stored_again = record_payment(group, p["Ann"], p["Bob"], 100, "USD", drawn, "tok1")
    assert stored and not stored_again and again == first
    # Another phone's page, drawn before the first: money that moved all the same.
    second, stored = record_payment(group, p["Cat"], p["Bob"], 250, "USD", drawn, "tok2")
    assert stored and Payment.objects.count() == 2
    assert list(group.payments.since(drawn).order_by("pk")) == [first, second]
    assert not group.payments.since(None).exists()
    assert (first.recorded_by, first.by) == (user, "ann")


def test_a_payment_removed_twice_or_from_a_stale_page_changes_nothing(user):
    group = Group.home(user)
    played(group, MONDAY, [BOB_SWEEPS])
    p = players(group)
    one, _ = record_payment(group, p["Ann"], p["Bob"], 100, "USD", group.payments.version())
    drawn = group.payments.version()
    two, _ = record_payment(group, p["Cat"], p["Bob"], 100, "USD", drawn)
    with pytest.raises(PaymentsChanged):
        one.remove(drawn)  # from a page that did not show the second
    assert Payment.objects.count() == 2
    now = group.payments.version()
    assert one.remove(now)
    assert not one.remove(group.payments.version())  # gone already
    assert list(Payment.objects.all()) == [two]
    assert group.payments.version() not in (drawn, now)


def test_players_who_paid_each_other_are_not_merged_and_a_merge_takes_payments_along(user):
    group = Group.home(user)
    played(group, MONDAY, [BOB_SWEEPS])
    danny_out = GameHand("hearts", "hearts", "Bob", None, ("Ann", "Cat", "Danny"), {"Bob": 5})
    played(group, MONDAY + timedelta(days=7), [danny_out], names=("Ann", "Bob", "Cat", "Danny"))
    p = players(group)
    record_payment(group, p["Danny"], p["Bob"], 100, "USD", group.payments.version())
    dan_paid_danny, _ = record_payment(
        group, p["Dan"], p["Danny"], 50, "USD", group.payments.version()
    )
    with pytest.raises(rules.RuleError, match="Dan and Danny paid each other"):
        p["Dan"].merge(p["Danny"])
    dan_paid_danny.remove(group.payments.version())
    p["Dan"].merge(p["Danny"])
    assert Payment.objects.get().payer == p["Dan"]
    assert balance(group)["Dan"] == -700 + 100


def test_a_transfer_paid_on_a_night_counts_once_however_often_it_is_marked(user):
    group = Group.home(user)
    night = played(group, MONDAY, [BOB_SWEEPS]).night
    settle_up = night.settle_up()
    seen = Night.fingerprint(settle_up)
    for transfer in settle_up[0].transfers[:2]:
        for _ in range(2):
            assert mark_transfer(night, settle_up[0].key(transfer), True, seen)
    assert balance(group) == {"Ann": 0, "Bob": 350, "Cat": 0, "Dan": -350}
    assert group_balances(group)[0].transfers == [rules.Payment("Dan", "Bob", 350)]


@pytest.mark.django_db(transaction=True)
def test_the_old_paid_marks_become_payments_and_back():
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    user = get_user_model().objects.create_user("ann")
    group = Group.home(user)
    kept = played(group, MONDAY, [BOB_SWEEPS]).night
    changed = played(group, MONDAY + timedelta(days=7), [CAT_SWEEPS]).night
    for night in (kept, changed):
        s = night.settle_up()
        for t in s[0].transfers[:2]:
            mark_transfer(night, s[0].key(t), True, Night.fingerprint(s))
    p = players(group)
    record_payment(group, p["Ann"], p["Cat"], 25, "USD", group.payments.version())  # no night
    fingerprint = Night.fingerprint(kept.settle_up())  # read from sums 0010 does not have
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    before = [("games", "0010_attempt")]
    executor.migrate(before)
    try:
        old = executor.loader.project_state(before).apps.get_model("games", "Night")
        marked = old.objects.get(pk=kept.pk)
        assert marked.paid == ["USD:Ann:Bob", "USD:Cat:Bob"]
        assert marked.paid_for == fingerprint
        # On the other night, the marks were made on transfers that later changed.
        old.objects.filter(pk=changed.pk).update(paid_for="0" * 64)
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(latest)
    rows = Payment.objects.order_by("pk").values_list(
        "night", "payer__name", "payee__name", "amount_cents", "currency"
    )
    assert list(rows) == [
        (kept.pk, "Ann", "Bob", 350, "USD"),
        (kept.pk, "Cat", "Bob", 350, "USD"),
    ]
    assert balance(group) == {"Ann": -350, "Bob": 0, "Cat": 1050, "Dan": -700}


# --- The balances page --------------------------------------------------------------------------


def test_the_balances_page_says_who_owes_whom_and_where_each_balance_comes_from(
    client_in, imported
):
    response = client_in.get(url("balances", imported.pk))
    page = text(response)
    assert response.status_code == 200
    [usd] = group_balances(imported)
    assert_settled(usd.net, usd.transfers)
    shown = re.findall(
        r"<strong>(\w+)</strong> pays <strong>(\w+)</strong>\s*<span class=\"amount\">([^<]+)<",
        page,
    )
    assert shown == [(t.payer, t.payee, f"${rules.format_money(t.cents)}") for t in usd.transfers]
    # Ann's details: each of her three nights, newest first, adding up to her balance.
    ann = re.search(r'<span class="name">Ann</span>.*?</details>', page, re.S).group(0)
    nights = re.findall(r"The night of [^<]+</a>:\s*<strong[^>]*>([^<]+)<", ann)
    assert len(nights) == 3
    assert sum(shown_cents(n) for n in nights) == usd.net["Ann"]
    assert "Record a payment" in page and "No payment recorded yet." in page


def test_a_long_history_lists_the_latest_nights_and_sums_up_the_earlier_ones(client_in, user):
    group = Group.home(user)
    for week in range(ledger.WORKINGS_SHOWN + 2):
        played(group, MONDAY + timedelta(days=7 * week), [BOB_SWEEPS])
    page = text(client_in.get(url("balances", group.pk)))
    ann = re.search(r'<span class="name">Ann</span>.*?</details>', page, re.S).group(0)
    assert ann.count("The night of") == ledger.WORKINGS_SHOWN
    assert "The night of Mon 1 Feb 2027" in ann  # the latest first
    assert re.search(r"2 nights before those:\s*<strong>−\$7\.00</strong>", ann)
    assert "−$49.00" in ann  # fourteen nights at $3.50


def test_a_partial_payment_is_listed_with_who_recorded_it_and_moves_the_balances(
    client_in, imported
):
    before = balance(imported)
    owing = min(before, key=before.get)
    owed = max(before, key=before.get)
    response = record(client_in, imported, payer=pk(owing), payee=pk(owed), amount="2.5")
    assert response.status_code == 302 and response["Location"] == url("balances", imported.pk)
    page = text(client_in.get(response["Location"]))
    assert f"Recorded: {owing} paid {owed} $2.50." in page
    assert re.search(
        rf"<strong>{owing}</strong> paid <strong>{owed}</strong>.*?recorded by ann", page, re.S
    )
    after = balance(imported)
    assert after[owing] == before[owing] + 250 and after[owed] == before[owed] - 250
    details = re.search(rf'<span class="name">{owing}</span>.*?</details>', page, re.S).group(0)
    assert f"paid {owed}:" in details and "+$2.50" in details


@pytest.mark.parametrize(
    "data, words",
    [
        ({"amount": "0"}, "Enter how much was paid: more than 0."),
        ({"amount": "0.00"}, "Enter how much was paid: more than 0."),
        ({"amount": "-3"}, ledger.AMOUNT_WORDS),
        ({"amount": "three"}, ledger.AMOUNT_WORDS),
        ({"amount": "1.505"}, ledger.AMOUNT_WORDS),
        ({"amount": "1e3"}, ledger.AMOUNT_WORDS),
        ({"amount": "²"}, ledger.AMOUNT_WORDS),
        ({"amount": ""}, "Enter how much was paid."),
        ({"amount": "1000000"}, "A payment must be under 1,000,000."),
        ({"amount": "9" * 21}, ledger.AMOUNT_WORDS),
        ({"amount": "9999999999999"}, "A payment must be under 1,000,000."),
        ({"payee": "Ann"}, "Ann can't pay Ann: choose two players."),
        ({"payee": "Zed"}, "Choose one of the group's players."),
        ({"payee": ""}, "Say whom they paid."),
        ({"currency": "EUR"}, "Choose one of the group's currencies: USD."),
        ({"token": "<bad token>"}, "Reload the page and send it again."),
    ],
)
def test_bad_input_is_answered_in_words_and_stores_nothing(client_in, imported, data, words):
    fields = {"payer": pk("Ann"), "payee": pk("Bob"), "amount": "1.00", **data}
    response = record(client_in, imported, **fields)
    assert response.status_code == 200
    assert words in text(response)
    assert not Payment.objects.exists()


def test_a_player_of_another_group_is_not_one_to_pay(client_in, imported, other_user):
    theirs = played(Group.home(other_user), MONDAY, [BOB_SWEEPS]).seats.first().player
    response = record(client_in, imported, payer=pk("Ann"), payee=str(theirs.pk), amount="1")
    assert "Choose one of the group's players." in text(response)
    assert not Payment.objects.exists()


def test_a_players_name_names_them_too(client_in, imported):
    response = record(client_in, imported, payer="Eve", payee=" cat ", amount="1")
    assert response.status_code == 302
    payment = Payment.objects.get()
    assert (payment.payer.name, payment.payee.name) == ("Eve", "Cat")  # any capitals, as a table


def test_a_script_sends_a_payment_without_a_page_and_takes_it_back(client_in, imported):
    # No version, no token and no currency (the group plays in dollars only): from no page,
    # there is no page to be out of date.
    path = url("balances", imported.pk)
    response = client_in.post(path, {"payer": "Dan", "payee": "Bob", "amount": "4"})
    assert response.status_code == 302
    payment = Payment.objects.get()
    assert (payment.amount_cents, payment.currency, payment.token) == (400, "USD", "")
    removal = url("payment_remove", imported.pk, payment.pk)
    assert client_in.post(removal).status_code == 302
    # From no page, a payment gone is nothing here, as another group's would be (#32 §4).
    assert client_in.post(removal).status_code == 404
    assert not Payment.objects.exists()
    night = Night.objects.filter(group=imported).order_by("pk").first()
    response = client_in.post(url("night_paid", night.pk), {"key": "USD:Ann:Bob", "paid": "1"})
    assert response.status_code == 302
    assert Payment.objects.values_list("payer__name", "amount_cents", "night").get() == (
        "Ann",
        720,
        night.pk,
    )


def test_a_double_tap_stores_once_and_a_second_phones_payment_is_stored_and_told_the_first(
    client, imported, user
):
    phone, other = client, type(client)()
    phone.force_login(user)
    other.force_login(user)
    path = url("balances", imported.pk)
    mine = hidden(phone.get(path).content.decode(), 'class="payment-form"')
    theirs = hidden(other.get(path).content.decode(), 'class="payment-form"')
    payment = {"payer": pk("Ann"), "payee": pk("Bob"), "amount": "1.00", "currency": "USD"}
    assert phone.post(path, {**mine, **payment}).status_code == 302
    assert phone.post(path, {**mine, **payment}).status_code == 302  # the same form again
    assert Payment.objects.count() == 1
    cats = {**payment, "payer": pk("Cat"), "amount": "2.50"}
    response = other.post(path, {**theirs, **cats}, follow=True)
    assert response.redirect_chain[-1][1] == 302
    page = text(response)
    assert "Recorded: Cat paid Bob $2.50." in page
    assert "Also recorded since this page was drawn: Ann paid Bob $1.00." in page
    assert Payment.objects.count() == 2


def test_a_scorer_removes_a_payment_and_a_second_removal_or_a_stale_page_changes_nothing(
    client_in, imported
):
    record(client_in, imported, payer=pk("Ann"), payee=pk("Bob"), amount="1.00")
    page = client_in.get(url("balances", imported.pk)).content.decode()
    payment = Payment.objects.get()
    remove = url("payment_remove", imported.pk, payment.pk)
    form = hidden(page, f'action="{remove}"')
    record(client_in, imported, payer=pk("Cat"), payee=pk("Bob"), amount="2.00")
    response = client_in.post(remove, form)  # the page did not show Cat's payment
    assert response.status_code == 409
    assert "Nothing was removed: remove it again if you still mean to." in text(response)
    assert Payment.objects.count() == 2
    form = hidden(
        client_in.get(url("balances", imported.pk)).content.decode(), f'action="{remove}"'
    )
    response = client_in.post(remove, form)
    assert response.status_code == 302
    assert "Removed: Ann paid Bob $1.00." in text(client_in.get(response["Location"]))
    response = client_in.post(remove, form)  # twice
    assert response.status_code == 409
    assert "That payment was removed already: nothing changed." in text(response)
    assert list(Payment.objects.values_list("payer__name", flat=True)) == ["Cat"]


def test_a_viewer_sees_the_balances_but_records_and_removes_nothing(client, imported, user):
    record_payment(
        imported,
        *[Player.objects.get(name=n) for n in ("Ann", "Bob")],
        100,
        "USD",
        imported.payments.version(),
    )
    viewer = get_user_model().objects.create_user("val")
    imported.join(viewer, Role.VIEWER)
    client.force_login(viewer)
    page = text(client.get(url("balances", imported.pk)))
    assert "pays" in page and "Record a payment" not in page and ">Remove<" not in page
    assert client.get(url("balances_csv", imported.pk)).status_code == 200
    payment = Payment.objects.get()
    for path, data in (
        (url("balances", imported.pk), {"payer": pk("Cat"), "payee": pk("Bob"), "amount": "1"}),
        (url("payment_remove", imported.pk, payment.pk), {"version": imported.payments.version()}),
    ):
        response = client.post(path, {**data, "currency": "USD"})
        assert response.status_code == 403
        assert "Viewers can't change the scores. Ask ann to make you a scorer." in text(response)
    assert list(Payment.objects.all()) == [payment]


def test_a_stranger_finds_no_balances(client, imported, other_user):
    client.force_login(other_user)
    payment, _ = record_payment(
        imported, *[Player.objects.get(name=n) for n in ("Ann", "Bob")], 100, "USD", "0-0"
    )
    assert client.get(url("balances", imported.pk)).status_code == 404
    assert client.get(url("balances_csv", imported.pk)).status_code == 404
    assert client.post(url("balances", imported.pk), {"amount": "1"}).status_code == 404
    removal = url("payment_remove", imported.pk, payment.pk)
    assert client.post(removal, {"version": imported.payments.version()}).status_code == 404
    client.logout()
    assert client.get(url("balances", imported.pk)).status_code == 302
    assert Payment.objects.count() == 1


def test_a_payment_of_another_group_is_not_removed_through_this_one(client_in, imported, user):
    other = Group.objects.create(name="Elsewhere")
    other.join(user, Role.OWNER)
    played(other, MONDAY, [BOB_SWEEPS])
    theirs, _ = record_payment(
        other, *[other.players.get(name=n) for n in ("Ann", "Bob")], 100, "USD", "0-0"
    )
    response = client_in.post(
        url("payment_remove", imported.pk, theirs.pk), {"version": imported.payments.version()}
    )
    assert response.status_code == 404  # as every other object of another group (#32 §4)
    assert "removed already" not in text(response)
    assert Payment.objects.filter(pk=theirs.pk).exists()
    # Nor does its remove form, carried over from the other group's page, tell it apart.
    page = client_in.get(url("balances", other.pk)).content.decode()
    shown = hidden(page, f'action="{url("payment_remove", other.pk, theirs.pk)}"')["shown"]
    data = {"version": imported.payments.version(), "shown": shown}
    response = client_in.post(url("payment_remove", imported.pk, theirs.pk), data)
    assert response.status_code == 404
    assert Payment.objects.filter(pk=theirs.pk).exists()


def test_the_balances_page_is_linked_from_the_group_home_and_each_night(client_in, imported):
    target = f'href="{url("balances", imported.pk)}"'
    night = Match.objects.filter(group=imported).first().night
    for page in (url("group_detail", imported.pk), url("home"), night.get_absolute_url()):
        assert target in client_in.get(page).content.decode(), page


# --- balances.csv ------------------------------------------------------------------------------


def test_balances_csv_has_the_nights_columns_each_balance_and_the_fewest_payments(
    client_in, imported
):
    # Some transfers marked paid on the nights, partial payments, one of them removed.
    nights = list(Night.objects.filter(group=imported).order_by("pk"))
    for night in nights[:2]:
        page = client_in.get(night.get_absolute_url()).content.decode()
        form = hidden(page, r'action="[^"]*/paid/"')
        assert client_in.post(url("night_paid", night.pk), form).status_code == 302
    record(client_in, imported, payer=pk("Dan"), payee=pk("Cat"), amount="1.25")
    record(client_in, imported, payer=pk("Eve"), payee=pk("Bob"), amount="0.40")
    record(client_in, imported, payer=pk("Ann"), payee=pk("Cat"), amount="3")
    mistake = Payment.objects.get(payer__name="Ann", night__isnull=True)
    form = hidden(
        client_in.get(url("balances", imported.pk)).content.decode(),
        f'action="{url("payment_remove", imported.pk, mistake.pk)}"',
    )
    client_in.post(url("payment_remove", imported.pk, mistake.pk), form)
    assert Payment.objects.count() == 4

    response = client_in.get(url("balances_csv", imported.pk))
    assert response.content.decode().splitlines()[0] == "currency,row,player,to,amount,paid"
    rows = rows_of(response)
    # Each balance is its own sum: its nights' nets (the nights' own CSVs), plus what the
    # player paid, minus what they were paid.
    expected = Counter()
    for night in nights:
        for row in rows_of(client_in.get(url("night_csv", night.pk))):
            if row["row"] == "net":
                expected[row["player"]] += cents(row["amount"])
    for payer, payee, amount in Payment.objects.values_list(
        "payer__name", "payee__name", "amount_cents"
    ):
        expected[payer] += amount
        expected[payee] -= amount
    nets = {r["player"]: cents(r["amount"]) for r in rows if r["row"] == "net"}
    assert nets == {name: c for name, c in expected.items() if c}
    assert all(
        r["currency"] == "USD" and r["paid"] == "" and r["to"] == "" for r in rows[: len(nets)]
    )
    transfers = [
        rules.Payment(r["player"], r["to"], cents(r["amount"])) for r in rows if r["row"] == "pays"
    ]
    assert all(r["paid"] == "" for r in rows)
    assert_settled(nets, transfers)
    assert [r["row"] for r in rows] == ["net"] * len(nets) + ["pays"] * len(transfers)


def test_a_balances_csv_of_a_group_all_square_has_only_its_header(client_in, user):
    group = Group.home(user)
    night = played(group, MONDAY, [BOB_SWEEPS]).night
    s = night.settle_up()
    for t in s[0].transfers:
        mark_transfer(night, s[0].key(t), True, Night.fingerprint(s))
    assert rows_of(client_in.get(url("balances_csv", group.pk))) == []
    page = text(client_in.get(url("balances", group.pk)))
    assert "Everybody is square: nobody owes anybody anything." in page


# --- The night's page shows each transfer paid or not from the payments -------------------------


def test_a_payment_for_a_transfer_a_change_did_away_with_stays_listed_on_its_night(client_in, user):
    group = Group.home(user)
    night = played(group, MONDAY, [BOB_SWEEPS]).night
    page = client_in.get(night.get_absolute_url()).content.decode()
    client_in.post(url("night_paid", night.pk), hidden(page, r'action="[^"]*/paid/"'))
    [payment] = Payment.objects.all()
    assert payment.night == night and payment.by == "ann"
    # A change of the hands: Bob no longer wins, and Ann's payment is for no transfer now.
    match = Match.objects.get()
    record_hands(match, [CLUB_HAND])
    page = text(client_in.get(night.get_absolute_url()))
    assert "a hand changed since" in page and "Ann paid Bob $3.50" in re.sub(
        r"</?strong>", "", page
    )
    assert Payment.objects.get() == payment


# --- /me/ ---------------------------------------------------------------------------------------


def test_my_record_is_over_every_group_where_i_said_this_is_me_and_still_am(
    client_in, user, imported
):
    elsewhere = Group.objects.create(name="Fridays")
    elsewhere.join(user, Role.SCORER)
    zoe_out = GameHand("diamonds", "spades", "Cat", None, ("Zoe", "Bob", "Ann"), {"Cat": 5})
    played(elsewhere, MONDAY + timedelta(days=3), [zoe_out], names=("Zoe", "Bob", "Cat", "Ann"))
    left = Group.objects.create(name="Gone")
    left.join(user, Role.SCORER)
    played(left, MONDAY + timedelta(days=4), [CAT_SWEEPS])
    Membership.objects.filter(group=imported, user=user).update(player=players(imported)["Ann"])
    Membership.objects.filter(group=elsewhere, user=user).update(player=players(elsewhere)["Ann"])
    gone = players(left)["Ann"]
    Membership.objects.filter(group=left, user=user).update(player=gone)
    left.set_role(user, None)  # they left the group: it no longer counts

    response = client_in.get(url("me"))
    page = text(response)
    assert response.status_code == 200
    mine = [players(imported)["Ann"], players(elsewhere)["Ann"]]
    results = Result.objects.filter(player__in=mine)
    stats = results.stats()
    rows = dict(re.findall(r'<th scope="row">([^<]+)</th><td>([^<]+)</td>', page))
    assert stats["played"] == 7  # six of Ann's in the first group, one on Friday
    assert rows["Matches"] == "7" and rows["Wins"] == str(stats["won"])
    net = results.money()["USD"]
    assert net == sum(r.net_cents for r in results if r.match.finished)
    assert rows["Net money (USD)"] == ("+" if net > 0 else "") + money_words(net, "USD")
    # What I owe or am owed in each group, as its balances have it.
    for group in (imported, elsewhere):
        here = balance(group)["Ann"]
        assert players(group)["Ann"].balance() == {"USD": here}
        assert ledger._owes_words(here, "USD") in page
    assert ledger._owes_words(-350, "USD") == "you owe $3.50"
    assert ledger._owes_words(350, "USD") == "you are owed $3.50"
    # The matches, newest first, each naming its group; none of the group left.
    groups = re.findall(r'<span class="card-group">([^<]+)</span>', page)
    newest = Match.objects.filter(results__player__in=mine).order_by("-played_at")
    assert groups == [m.group.name for m in newest] and len(groups) == 7
    assert "Fridays" in groups and "Gone" not in page
    assert page.count("<polyline") == 1


def test_my_matches_come_newest_first_twenty_a_page(client_in, user):
    group = Group.home(user)
    for day in range(23):
        played(group, MONDAY + timedelta(days=day), [BOB_SWEEPS])
    Membership.objects.filter(user=user).update(player=players(group)["Ann"])
    first = text(client_in.get(url("me")))
    assert first.count('class="match-card"') == 20 and "Page 1 of 2" in first
    second = text(client_in.get(url("me") + "?page=2"))
    assert second.count('class="match-card"') == 3
    assert "Nov 2," in second and "Nov 24," in first


def test_my_matches_are_drawn_when_one_is_deleted_meanwhile(client_in, user, monkeypatch):
    group = Group.home(user)
    for day in range(3):
        played(group, MONDAY + timedelta(days=day), [BOB_SWEEPS])
    Membership.objects.filter(user=user).update(player=players(group)["Ann"])
    card_rows = Match.card_rows

    def deleted_meanwhile(ids):  # another phone deletes a match between the two reads
        delete_match(Match.objects.get(pk=ids[0]))
        return card_rows(ids)

    monkeypatch.setattr(Match, "card_rows", staticmethod(deleted_meanwhile))
    response = client_in.get(url("me"))
    assert response.status_code == 200 and text(response).count('class="match-card"') == 2


def test_my_chart_keeps_to_a_bounded_number_of_points(client_in, user, monkeypatch):
    monkeypatch.setattr(common, "CHART_POINTS", 4)
    group = Group.home(user)
    for day in range(9):
        played(group, MONDAY + timedelta(days=day), [BOB_SWEEPS if day % 3 else CAT_SWEEPS])
    Membership.objects.filter(user=user).update(player=players(group)["Ann"])
    page = text(client_in.get(url("me")))
    points = re.search(r'<polyline[^>]*points="([^"]+)"', page).group(1).split()
    assert len(points) == 5  # the start and four totals
    table = re.findall(
        r"<tr><th scope=\"row\">[^<]+</th><td>([^<]+)</td><td>([^<]+)</td></tr>", page
    )
    assert len(table) == 4 and table[-1][1] == "−$31.50"  # nine matches lost, $3.50 each
    assert "Up to the match of" in page


def test_my_record_without_this_is_me_says_how_to_get_one(client_in, user):
    Group.home(user)
    page = text(client_in.get(url("me")))
    assert "Say which player you are" in page
    assert url("group_detail", Group.home(user).pk) in page


def test_my_record_needs_a_login(client):
    assert client.get(url("me")).status_code == 302


# --- No input makes a page fail ---------------------------------------------------------------

WORST = ["²", "1" * 5000, "9" * 30, "Ann\x00", "\ud800", "-1", "", "1e5", "٣", "0.001"]


def test_odd_input_in_any_field_of_a_payment_is_answered_in_words(client, user):
    from .test_server import send

    group = Group.home(user)
    played(group, MONDAY, [BOB_SWEEPS])
    client.force_login(user)
    client.raise_request_exception = False  # a 500 is counted, not raised
    page = client.get(url("balances", group.pk)).content.decode()
    good = {
        **hidden(page, 'class="payment-form"'),
        "payer": pk("Ann"),
        "payee": pk("Bob"),
        "amount": "1.00",
        "currency": "USD",
    }
    failures = []
    for field in ["payer", "payee", "amount", "currency", "version", "token"]:
        for i, value in enumerate(WORST):
            # Each a form of its own, from the page as it is now, with one field made odd.
            data = {**good, "version": group.payments.version(), "token": f"{field}{i}"}
            response = send(client, "POST", url("balances", group.pk), {**data, field: value})
            # Any token will do, and any version (it only says what else changed); no
            # currency is the group's only one.
            fine = field in ("token", "version") or (field, value) == ("currency", "")
            if response.status_code >= 500 or (response.status_code == 302 and not fine):
                failures.append((field, value[:20], response.status_code))
    stored = Payment.objects.values_list("payer__name", "payee__name", "amount_cents")
    assert set(stored) <= {("Ann", "Bob", 100)}
    payment, _ = record_payment(
        group, *[players(group)[n] for n in ("Ann", "Bob")], 100, "USD", group.payments.version()
    )
    remove = url("payment_remove", group.pk, payment.pk)
    for value in WORST:
        assert send(client, "POST", remove, {"version": value}).status_code == 409
    assert Payment.objects.filter(pk=payment.pk).exists()
    assert failures == [], failures


# --- Many phones, against gunicorn with 4 workers on its own database ---------------------------

ROUNDS = 8


@pytest.fixture(scope="module")
def table_server():
    """A host and a scorer of the host's group, each on a phone, after a match for $1.00 a
    game that Bob won by a sweep: Ann, Cat and Dan owe him a dollar each."""
    from .liveserver import FAST_HASH, Phone, hidden, serve
    from .test_race import SWEEP

    with serve(workers=4, **FAST_HASH) as (base, database):
        host = Phone(base, "host", signup=True)
        friend = Phone(base, "friend", signup=True)
        friend.join(host.invite("scorer"))
        form = hidden(host.http.get(base + "/matches/new/").text, 'method="post"')
        seats = {f"seat_{i}": name for i, name in enumerate(TABLE)}
        data = {**form, **STARTED, **seats, "per_game": "1.00"}
        response = host.http.post(base + "/matches/new/", data, allow_redirects=False)
        match = int(re.search(r"/matches/(\d+)/", response.headers["Location"]).group(1))
        assert host.save(match, host.page(match), SWEEP).status_code == 200
        groups = host.http.get(base + "/groups/").text
        group = int(re.search(r'href="/groups/(\d+)/"', groups).group(1))
        [(night,)] = query_rows(database, f"SELECT night_id FROM games_match WHERE id = {match}")
        yield {
            "base": base,
            "db": database,
            "phones": (host, friend),
            "group": group,
            "night": night,
        }


def query_rows(database, sql):
    from .liveserver import query

    return query(database, sql)


def at_once(*writes):
    from .test_race import at_once as released_together

    return released_together(*writes)


def payments_of(server) -> list[tuple]:
    sql = (
        "SELECT payer.name, payee.name, amount_cents, night_id FROM games_payment p "
        "JOIN games_player payer ON payer.id = p.payer_id "
        "JOIN games_player payee ON payee.id = p.payee_id ORDER BY p.id"
    )
    return query_rows(server["db"], sql)


def post(phone, path: str, data: dict):
    return phone.http.post(phone.base + path, data, allow_redirects=False)


def test_two_phones_recording_two_payments_at_once_store_both_and_a_double_tap_once(
    table_server,
):
    from .liveserver import hidden as hidden_inputs

    host, friend = table_server["phones"]
    path = f"/groups/{table_server['group']}/balances/"
    for _ in range(ROUNDS):
        before = len(payments_of(table_server))
        mine = host.http.get(table_server["base"] + path).text
        theirs = friend.http.get(table_server["base"] + path).text
        pays = re.search(r'<option value="(\d+)">Ann<', mine).group(1)
        paid = re.search(r'<option value="(\d+)">Bob<', mine).group(1)
        payment = {"payer": pays, "payee": paid, "amount": "0.10", "currency": "USD"}
        host_form = {**hidden_inputs(mine, 'class="payment-form"'), **payment}
        friend_form = {**hidden_inputs(theirs, 'class="payment-form"'), **payment}
        answers = at_once(
            (post, host, path, host_form),
            (post, host, path, host_form),  # a double tap
            (post, friend, path, {**friend_form, "amount": "0.20"}),  # the other phone's own
        )
        assert [r.status_code for r in answers] == [302, 302, 302]
        stored = sorted(payments_of(table_server)[before:])
        assert stored == [("Ann", "Bob", 10, None), ("Ann", "Bob", 20, None)]


def test_two_phones_marking_a_transfer_paid_at_once_record_it_once(table_server):
    from .liveserver import hidden as hidden_inputs

    host, friend = table_server["phones"]
    night = table_server["night"]
    page = f"/nights/{night}/"

    def form(phone, paid: str) -> dict:
        text = phone.http.get(phone.base + page).text
        found = re.search(
            rf'<strong>Dan</strong> pays.*?(<form.*?value="{paid}">.*?</form>)', text, re.S
        )
        return hidden_inputs(found.group(1), "method")

    for _ in range(ROUNDS):
        for paid, expected in (("1", [("Dan", "Bob", 100, night)]), ("0", [])):
            answers = at_once(
                (post, host, f"/nights/{night}/paid/", form(host, paid)),
                (post, friend, f"/nights/{night}/paid/", form(friend, paid)),
            )
            assert [r.status_code for r in answers] == [302, 302]
            assert [p for p in payments_of(table_server) if p[0] == "Dan"] == expected


def test_two_phones_removing_one_payment_at_once_remove_it_once(table_server):
    from .liveserver import hidden as hidden_inputs

    host, friend = table_server["phones"]
    group = table_server["group"]
    path = f"/groups/{group}/balances/"
    for _ in range(ROUNDS):
        mine = host.http.get(host.base + path).text
        pays = re.search(r'<option value="(\d+)">Cat<', mine).group(1)
        paid = re.search(r'<option value="(\d+)">Bob<', mine).group(1)
        form = {**hidden_inputs(mine, 'class="payment-form"'), "currency": "USD"}
        form |= {"payer": pays, "payee": paid, "amount": "0.05"}
        assert post(host, path, form).status_code == 302
        [(payment,)] = query_rows(
            table_server["db"], "SELECT id FROM games_payment ORDER BY id DESC LIMIT 1"
        )
        removal = f"/groups/{group}/payments/{payment}/remove/"
        drawn = [p.http.get(p.base + path).text for p in (host, friend)]
        forms = [hidden_inputs(d, f'action="{removal}"') for d in drawn]
        answers = at_once((post, host, removal, forms[0]), (post, friend, removal, forms[1]))
        assert sorted(r.status_code for r in answers) == [302, 409]
        words = html.unescape(next(r.text for r in answers if r.status_code == 409))
        assert "That payment was removed already: nothing changed." in words
        assert not query_rows(
            table_server["db"], f"SELECT id FROM games_payment WHERE id = {payment}"
        )


def test_a_player_s_chart_keeps_to_a_bounded_number_of_points(client_in, user, monkeypatch):
    monkeypatch.setattr(common, "CHART_POINTS", 4)
    group = Group.home(user)
    for day in range(9):
        played(group, MONDAY + timedelta(days=day), [BOB_SWEEPS if day % 3 else CAT_SWEEPS])
    page = text(client_in.get(players(group)["Ann"].get_absolute_url()))
    points = re.search(r'<polyline[^>]*points="([^"]+)"', page).group(1).split()
    assert len(points) == 5  # the start and four totals


# --- One night, one truth: every view of a night reads the same payments ----------------------


def _transfer_line(page: str, payer: str, payee: str) -> str:
    """The line of a settle-up that says `payer` pays `payee`, tags and all."""
    for line in re.findall(r'<li class="transfer[^"]*">.*?</li>', page, re.S):
        if re.search(rf"<strong>{payer}</strong> pays <strong>{payee}</strong>", line):
            return line
    raise AssertionError(f"no line for {payer} pays {payee}")


def test_a_payment_recorded_on_the_balances_page_shows_paid_on_its_night_home_and_csv(
    client_in, user
):
    group = Group.home(user)
    night = played(group, MONDAY, [BOB_SWEEPS]).night  # Ann, Cat, Dan pay Bob $3.50 each
    client_in.get(url("home")), client_in.get(night.get_absolute_url())  # drawn and kept
    assert record(client_in, group, payer=pk("Ann"), payee=pk("Bob"), amount="3.50").status_code
    record(client_in, group, payer=pk("Cat"), payee=pk("Bob"), amount="1.00")
    for page in (text(client_in.get(night.get_absolute_url())), text(client_in.get(url("home")))):
        ann, cat, dan = (_transfer_line(page, name, "Bob") for name in ("Ann", "Cat", "Dan"))
        assert "is-paid" in ann and "Paid" in ann and "Mark paid" not in ann
        assert "is-paid" not in cat and "in part: $2.50 left" in cat
        assert "is-paid" not in dan and "in part" not in dan
    rows = rows_of(client_in.get(url("night_csv", night.pk)))
    paid = {r["player"]: r["paid"] for r in rows if r["row"] == "pays"}
    assert paid == {"Ann": "yes", "Cat": "in part: 2.50 left", "Dan": "no"}


def test_a_transfer_marked_paid_on_its_night_is_gone_from_the_balances_and_paid_at_home(
    client_in, user
):
    group = Group.home(user)
    night = played(group, MONDAY, [BOB_SWEEPS]).night
    client_in.get(url("home")), client_in.get(url("balances", group.pk))  # drawn and kept
    page = client_in.get(night.get_absolute_url()).content.decode()
    assert client_in.post(url("night_paid", night.pk), hidden(page, r'action="[^"]*/paid/"'))
    assert "is-paid" in _transfer_line(text(client_in.get(url("home"))), "Ann", "Bob")
    balances = text(client_in.get(url("balances", group.pk)))
    assert "Mark paid: Ann paid Bob" not in balances and "Mark paid: Cat paid Bob" in balances


def test_a_payment_for_no_night_pays_the_earliest_nights_transfer_first_then_the_next(user):
    group = Group.home(user)
    first = played(group, MONDAY, [BOB_SWEEPS]).night
    second = played(group, MONDAY + timedelta(days=7), [BOB_SWEEPS]).night
    p = players(group)
    record_payment(group, p["Ann"], p["Bob"], 500, "USD", None)  # $3.50 a night
    assert (first.paid_cents(), second.paid_cents()) == ({"USD:Ann:Bob": 350}, {"USD:Ann:Bob": 150})
    s = second.settle_up()
    assert mark_transfer(second, "USD:Ann:Bob", True, Night.fingerprint(s))  # what is left of it
    assert Payment.objects.get(night=second).amount_cents == 200
    assert second.paid_cents() == {"USD:Ann:Bob": 350} and balance(group)["Ann"] == 0
    with pytest.raises(ValidationError, match="recorded on the balances page"):
        mark_transfer(first, "USD:Ann:Bob", False, Night.fingerprint(first.settle_up()))
    assert Payment.objects.count() == 2


# --- A payment form's token is the group's (#32 §4) ---------------------------------------------


def test_a_token_used_in_another_group_records_here_and_tells_nothing(client_in, imported, user):
    other = Group.objects.create(name="Elsewhere")
    other.join(user, Role.OWNER)
    played(other, MONDAY, [BOB_SWEEPS])
    theirs, stored = record_payment(
        other, *[other.players.get(name=n) for n in ("Cat", "Dan")], 777, "USD", "0-0", "T0K3N"
    )
    assert stored
    response = record(client_in, imported, payer=pk("Ann"), payee=pk("Bob"), amount="1.11")
    fresh = text(client_in.get(response["Location"]))
    response = record(
        client_in, imported, payer=pk("Ann"), payee=pk("Bob"), amount="1.11", token="T0K3N"
    )
    assert response.status_code == 302  # as for any new form: nothing says it is used elsewhere
    said = text(client_in.get(response["Location"]))
    assert "Recorded: Ann paid Bob $1.11." in said and "Cat" not in said.split("Recorded")[1][:40]
    assert "Recorded: Ann paid Bob $1.11." in fresh
    assert imported.payments.filter(token="T0K3N").count() == 1
    assert Payment.objects.get(pk=theirs.pk).amount_cents == 777  # theirs as it was


def test_a_form_sent_again_with_other_content_says_what_it_recorded(client_in, imported):
    page = client_in.get(url("balances", imported.pk)).content.decode()
    form = {**hidden(page, 'class="payment-form"'), "currency": "USD"}
    first = {**form, "payer": pk("Ann"), "payee": pk("Bob"), "amount": "1.11"}
    assert client_in.post(url("balances", imported.pk), first).status_code == 302
    again = client_in.post(url("balances", imported.pk), first)  # a double tap: a success
    assert again.status_code == 302
    assert "Recorded: Ann paid Bob $1.11." in text(client_in.get(again["Location"]))
    other = {**form, "payer": pk("Cat"), "payee": pk("Dan"), "amount": "7.77"}
    response = client_in.post(url("balances", imported.pk), other)
    assert response.status_code == 409
    said = text(response)
    assert "That form was already used to record Ann paid Bob $1.11." in said
    assert "Recorded: Cat paid Dan" not in said
    assert list(imported.payments.values_list("payer__name", "amount_cents")) == [("Ann", 111)]


def test_a_payment_naming_a_player_merged_away_is_refused_in_words(client_in, imported):
    page = client_in.get(url("balances", imported.pk)).content.decode()
    form = {**hidden(page, 'class="payment-form"'), "currency": "USD", "amount": "1.00"}
    ann, bob = (
        Player.objects.get(group=imported, name="Ann"),
        Player.objects.get(group=imported, name="Bob"),
    )
    gone = Player.objects.create(group=imported, name="Annie")
    data = {**form, "payer": str(gone.pk), "payee": str(bob.pk)}
    ann.merge(gone)  # on another phone, after the page was drawn
    response = client_in.post(url("balances", imported.pk), data)
    assert response.status_code == 409
    assert "is no longer a player of this group" in text(response)
    response = client_in.post(url("balances", imported.pk), {**data, "payer": "99999"})
    assert response.status_code == 409  # an id no page listed says no more than that
    assert "Choose one of the group's players." in text(response)
    # Merged after the form was read, inside the payment's turn: the model says it by name.
    with pytest.raises(ValidationError, match="Annie is no longer a player of this group"):
        record_payment(imported, gone, bob, 100, "USD", None)
    assert not Payment.objects.exists()
