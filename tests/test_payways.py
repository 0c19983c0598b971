"""Pay in one tap (#44 §1): the names a member gives for being paid, the words for bad ones,
and the buttons a transfer shows the one who pays it, with the payee, the exact amount left
and the night's note in each link."""

import html
import re
from datetime import date
from urllib.parse import parse_qs, urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from games import payways
from games.models import (
    Group,
    Match,
    Night,
    PayWays,
    Role,
    claim_player,
    group_balances,
    groups_turn,
    store_payment,
)

from .conftest import command, url
from .matches import three_nights

# --- The names and the links, without a database --------------------------------------------


@pytest.mark.parametrize(
    "service, typed, kept",
    [
        ("venmo", "@Ann-Lee ", "Ann-Lee"),
        ("venmo", "ann_lee_1", "ann_lee_1"),
        ("paypal", "AnnLee", "AnnLee"),
        ("cashapp", "$annlee", "annlee"),
        ("cashapp", "ann2", "ann2"),
        ("venmo", "  ", ""),
    ],
)
def test_a_name_as_the_app_shows_it_is_kept_without_its_prefix(service, typed, kept):
    assert payways.clean_name(service, typed) == kept


@pytest.mark.parametrize(
    "service, typed, words",
    [
        ("venmo", "ann lee", "a space can't be in it"),
        ("venmo", "ann.lee", "“.” can't be in it"),
        ("venmo", "ann", "at least 5 characters"),
        ("venmo", "a" * 31, "at most 30 characters: 31 here"),
        ("paypal", "ann_lee", "only letters and digits: “_”"),
        ("paypal", "a" * 21, "at most 20 characters"),
        ("cashapp", "$1234", "at least one letter"),
        ("cashapp", "$ann-lee", "“-” can't be in it"),
        ("venmo", "https://venmo.com/ann-lee", "not a link"),
        ("venmo", "venmo.com/u/ann-lee", "that is ann-lee"),
        ("paypal", "paypal.me/annlee", "not a link"),
        ("cashapp", "https://cash.app/$annlee", "that is annlee"),
    ],
)
def test_a_name_the_service_would_not_take_gets_words(service, typed, words):
    with pytest.raises(payways.PayWayError) as refused:
        payways.clean_name(service, typed)
    assert words in str(refused.value)


def test_the_free_line_is_one_line_of_at_most_80_characters():
    assert payways.clean_other("  Zelle:   555-0100 ") == "Zelle: 555-0100"
    with pytest.raises(payways.PayWayError, match="80 characters: 81 here"):
        payways.clean_other("x" * 81)
    with pytest.raises(payways.PayWayError, match="one line"):
        payways.clean_other("Zelle\x00")


THU = date(2026, 12, 3)


def test_each_link_carries_the_payee_the_exact_amount_and_what_the_service_takes_of_a_note():
    names = {"venmo": "ann-lee", "paypal": "AnnLee", "cashapp": "annlee"}
    found = payways.ways(names, "Zelle: 555-0100", 355, "USD", payways.note(THU))
    assert [(w.label, w.url, w.text) for w in found] == [
        (
            "Venmo",
            "https://venmo.com/ann-lee?txn=pay&amount=3.55&note=Buck%20Euchre%2C%20Thu%20Dec%203",
            "",
        ),
        ("PayPal", "https://paypal.me/AnnLee/3.55USD", ""),
        ("Cash App", "https://cash.app/$annlee/3.55", ""),
        ("Other", "", "Zelle: 555-0100"),
    ]


def test_venmo_and_cash_app_take_dollars_only_and_paypal_its_own_currencies():
    names = {"venmo": "ann-lee", "paypal": "AnnLee", "cashapp": "annlee"}
    euros = payways.ways(names, "", 1205, "EUR", "n")
    assert [w.url for w in euros] == ["https://paypal.me/AnnLee/12.05EUR"]
    assert payways.ways(names, "", 500, "quarters", "n") == []
    assert [w.url for w in payways.ways(names, "", 30000, "JPY", "n")] == [
        "https://paypal.me/AnnLee/300JPY"
    ]
    assert payways.ways(names, "", 30050, "JPY", "n") == []  # no such amount in yen
    assert payways.ways(names, "Zelle", 0, "USD", "n") == []  # nothing left to pay


# --- The group's page -----------------------------------------------------------------------


@pytest.fixture
def night_group(user, files):
    """Three Mondays imported to ann's group; ann plays as Ann, eve joins and plays as Bob."""
    group = Group.home(user)
    code, _, err = command("import_match", *files(*three_nights()), "--group", str(group.pk))
    assert code == 0, err
    claim_player(group, user, group.players.get(name="Ann"))
    eve = get_user_model().objects.create_user("eve")
    group.join(eve, Role.VIEWER)
    claim_player(group, eve, group.players.get(name="Bob"))
    return group


def text(response) -> str:
    return html.unescape(response.content.decode())


@pytest.mark.django_db
def test_a_member_sets_changes_and_removes_how_they_are_paid(client, night_group):
    eve = get_user_model().objects.get(username="eve")
    bob = night_group.players.get(name="Bob")
    client.force_login(eve)
    to = url("pay_ways", night_group.pk, bob.pk)
    response = client.post(to, {"venmo": "@bob-b", "paypal": "", "cashapp": "$bobb", "other": ""})
    assert response.status_code == 302
    assert PayWays.objects.get(player=bob).names() == {"venmo": "bob-b", "cashapp": "bobb"}
    page = text(client.get(url("group_detail", night_group.pk)))
    assert "Venmo @bob-b" in page and "Cash App $bobb" in page

    client.post(to, {"venmo": "bob-b", "other": "Zelle: 555-0100"})
    assert PayWays.objects.get(player=bob).names() == {"venmo": "bob-b"}
    assert PayWays.objects.get(player=bob).other == "Zelle: 555-0100"

    client.post(to, {"remove": "1"})
    assert not PayWays.objects.filter(player=bob).exists()


@pytest.mark.django_db
def test_a_bad_name_gets_words_and_keeps_what_was_typed(client, night_group):
    eve = get_user_model().objects.get(username="eve")
    bob = night_group.players.get(name="Bob")
    client.force_login(eve)
    sent = {"venmo": "https://venmo.com/bob-b", "cashapp": "$bobb", "other": "Zelle: 555"}
    response = client.post(url("pay_ways", night_group.pk, bob.pk), sent)
    assert response.status_code == 200
    page = text(response)
    assert "Enter only the Venmo name (for https://venmo.com/bob-b, that is bob-b)" in page
    assert 'value="$bobb"' in page and 'value="Zelle: 555"' in page
    assert not PayWays.objects.filter(player=bob).exists()


@pytest.mark.django_db
def test_only_the_member_who_plays_as_them_or_an_owner_changes_a_players_ways(
    client, user, night_group
):
    eve = get_user_model().objects.get(username="eve")
    ann, bob = night_group.players.get(name="Ann"), night_group.players.get(name="Bob")
    client.force_login(eve)  # a viewer, who is Bob
    response = client.post(url("pay_ways", night_group.pk, ann.pk), {"venmo": "eve-was-here"})
    assert response.status_code == 403
    assert "Only Ann, or an owner, can change how Ann is paid." in text(response)
    assert not PayWays.objects.filter(player=ann).exists()

    client.force_login(user)  # the owner
    response = client.post(url("pay_ways", night_group.pk, bob.pk), {"venmo": "bob-by-owner"})
    assert response.status_code == 302
    assert PayWays.objects.get(player=bob).venmo == "bob-by-owner"


@pytest.mark.django_db
def test_a_stranger_finds_nothing(client, night_group, django_user_model):
    stranger = django_user_model.objects.create_user("zed")
    client.force_login(stranger)
    bob = night_group.players.get(name="Bob")
    assert (
        client.post(url("pay_ways", night_group.pk, bob.pk), {"venmo": "zzzzz"}).status_code == 404
    )
    assert not PayWays.objects.exists()


# --- The buttons of a transfer ---------------------------------------------------------------


def venmo_links(page: str) -> list[str]:
    return re.findall(r'href="(https://venmo\.com/[^"]+)"', page)


@pytest.mark.django_db
def test_the_one_who_pays_sees_the_payees_buttons_with_the_amount_left(client, user, night_group):
    bob = night_group.players.get(name="Bob")
    PayWays.store(
        night_group.pk,
        bob.pk,
        {"venmo": "bob-b", "paypal": "", "cashapp": "", "other": "Zelle: 555-0100"},
    )
    first = Night.objects.filter(group=night_group).order_by("pk").first()
    match = Match.objects.filter(night=first).order_by("played_at").first()
    day = timezone.localtime(match.played_at).date()
    client.force_login(user)  # Ann, who pays Bob $7.20 that night
    page = text(client.get(first.get_absolute_url()))
    assert "Ann pays Bob" in re.sub(r"<[^>]+>|\s+", " ", page).replace("  ", " ")
    [link] = venmo_links(page)
    query = parse_qs(urlsplit(link).query)
    assert urlsplit(link).path == "/bob-b"
    assert query == {"txn": ["pay"], "amount": ["7.20"], "note": [payways.note(day)]}
    assert "Zelle: 555-0100" in page and 'data-copy="Zelle: 555-0100"' in page

    # Part paid: the link asks for what is left.
    ann = night_group.players.get(name="Ann")
    with transaction.atomic():
        groups_turn(night_group.pk)  # as a write does: the pages draw anew
        store_payment(night_group.pk, ann, bob, 200, "USD", night=first)
    page = text(client.get(first.get_absolute_url()))
    [link] = venmo_links(page)
    assert parse_qs(urlsplit(link).query)["amount"] == ["5.20"]


@pytest.mark.django_db
def test_the_payee_and_the_others_see_no_button(client, night_group):
    bob = night_group.players.get(name="Bob")
    PayWays.store(
        night_group.pk, bob.pk, {"venmo": "bob-b", "paypal": "", "cashapp": "", "other": ""}
    )
    first = Night.objects.filter(group=night_group).order_by("pk").first()
    client.force_login(get_user_model().objects.get(username="eve"))  # Bob himself
    page = text(client.get(first.get_absolute_url()))
    assert venmo_links(page) == []
    assert venmo_links(text(client.get(url("balances", night_group.pk)))) == []


@pytest.mark.django_db
def test_home_and_the_balances_show_the_payer_the_buttons(client, user, night_group):
    bob = night_group.players.get(name="Bob")
    PayWays.store(
        night_group.pk, bob.pk, {"venmo": "bob-b", "paypal": "", "cashapp": "", "other": ""}
    )
    client.force_login(user)
    balances = text(client.get(url("balances", night_group.pk)))
    [link] = venmo_links(balances)
    [owed] = [t.cents for s in group_balances(night_group) for t in s.transfers if t.payer == "Ann"]
    assert parse_qs(urlsplit(link).query)["amount"] == [f"{owed / 100:.2f}"] == ["17.50"]
    for other in night_group.players.exclude(name="Ann"):
        names = {"venmo": f"{other.name.lower()}-pays", "paypal": "", "cashapp": "", "other": ""}
        PayWays.store(night_group.pk, other.pk, names)
    home = text(client.get(url("home") + f"?group={night_group.pk}"))
    night = Night.latest(night_group)
    mine = [t for s in night.settle_up() for t in s.transfers if t.payer == "Ann"]
    assert mine  # Ann pays someone on the latest night
    assert [urlsplit(link).path for link in venmo_links(home)] == [
        f"/{t.payee.lower()}-pays" for t in mine
    ]


@pytest.mark.django_db
def test_a_player_merged_into_another_takes_their_ways_away_with_them(night_group):
    eve, dan = night_group.players.get(name="Eve"), night_group.players.get(name="Dan")
    PayWays.store(
        night_group.pk, eve.pk, {"venmo": "eve-lee", "paypal": "", "cashapp": "", "other": ""}
    )
    PayWays.store(
        night_group.pk, dan.pk, {"venmo": "dan-lee", "paypal": "", "cashapp": "", "other": ""}
    )
    dan.merge(eve)
    assert list(PayWays.objects.values_list("player__name", "venmo")) == [("Dan", "dan-lee")]
    # Ways sent for the player merged away meanwhile are not stored.
    assert not PayWays.store(
        night_group.pk, eve.pk, {"venmo": "eve-again", "paypal": "", "cashapp": "", "other": ""}
    )
