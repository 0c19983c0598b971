"""Share the night (#44 §2): the picture's numbers are the night page's (read from the
picture's source and the page, and compared), the picture is a phone-portrait PNG under
150 KB, the words for a group chat, and a shared night says nothing else of the group."""

import html
import io
import random
import re
from datetime import datetime

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from PIL import Image

from games import picture, rules, words
from games.models import (
    Group,
    Match,
    Night,
    Payment,
    PayWays,
    Role,
    create_match,
    mark_transfer,
    payment_key,
    record_payment,
)
from games.views.share import night_card

from .conftest import command, url
from .matches import random_match, three_nights
from .stored import a_night_of_six

pytestmark = pytest.mark.django_db


@pytest.fixture
def mondays(user, files) -> Group:
    group = Group.home(user)
    code, _, err = command("import_match", *files(*three_nights()), "--group", str(group.pk))
    assert code == 0, err
    return group


def page_text(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html.unescape(response.content.decode())))


def shown_on_the_page(client, night: Night) -> dict:
    """What the night's page shows: each transfer (payer, payee, amount, paid), each player's
    net, and each match's winners, read from its HTML."""
    page = html.unescape(client.get(night.get_absolute_url()).content.decode())
    settle = page[page.index('id="settle-up"') : page.index('id="matches-title"')]
    transfers = []
    for item in re.findall(r'<li class="transfer[^"]*">(.*?)</li>', settle, re.S):
        who = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", item.split("<form")[0])).strip()
        found = re.match(r"(.+?) pays (.+?) (\S+)( Paid)?( in part: (\S+) left)?", who)
        transfers.append((found[1], found[2], found[3], bool(found[4]), found[6]))
    nets = re.findall(
        r'<summary><span class="name">(.*?)</span> <span class="[a-z]*">(.*?)</span></summary>',
        settle,
    )
    cards = page[page.index('id="matches-title"') :]
    winners = [m.strip() for m in re.findall(r'<span class="card-meta">(.*?) ·', cards)]
    return {"transfers": transfers, "nets": nets, "winners": winners}


def from_the_card(card: picture.NightCard) -> dict:
    """The same, from the picture's source."""
    transfers, nets = [], []
    for s in card.sections:
        assert s.currency is not None
        for t in s.transfers:
            left = words.money(t.left, s.currency) if 0 < t.left < t.cents else None
            transfers.append((t.payer, t.payee, words.money(t.cents, s.currency), t.paid, left))
        nets += [(name, words.signed_money(net, s.currency)) for name, net in s.nets]
    winners = [
        f"{' & '.join(m.winners)} won" if m.winners else "Not finished" for m in card.matches
    ]
    return {"transfers": transfers, "nets": nets, "winners": winners}


def test_the_picture_shows_the_numbers_of_the_nights_page(client_in, mondays):
    nights = list(Night.objects.filter(group=mondays).order_by("pk"))
    # Part of a transfer paid on the first night, and all of another on the second.
    first_night = night_card(nights[0]).sections[0]
    t = first_night.transfers[0]
    players = {p.name: p for p in mondays.players.all()}
    record_payment(mondays, players[t.payer], players[t.payee], t.cents // 2, "USD", None)
    Payment.objects.filter(group=mondays).update(night=nights[0])
    t2 = night_card(nights[1]).sections[0].transfers[0]
    assert mark_transfer(nights[1], payment_key("USD", t2.payer, t2.payee), True, None)
    for night in nights:
        card = night_card(night)
        assert from_the_card(card) == shown_on_the_page(client_in, night)
    assert any(t.paid for s in night_card(nights[1]).sections for t in s.transfers)
    assert any(0 < t.left < t.cents for s in night_card(nights[0]).sections for t in s.transfers)


def test_a_night_of_six_matches_of_six_players_is_a_phone_portrait_png_under_150_kb(user):
    rnd = random.Random(6)
    start = timezone.make_aware(datetime(2026, 12, 3, 19))
    a_night_of_six(user, rnd, start)
    night = Night.objects.get(group=Group.home(user))
    card = night_card(night)
    assert len(card.matches) == 6 and len(card.sections[0].nets) == 6
    png = picture.draw(card)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(png) < 150_000
    image = Image.open(io.BytesIO(png))
    assert image.size == (1080, 1920)


def test_the_words_for_the_chat(mondays):
    night = Night.objects.filter(group=mondays).order_by("pk").first()
    card = night_card(night)
    pays = ", ".join(
        f"{t.payer} pays {t.payee} {words.money(t.cents, 'USD')}"
        for t in card.sections[0].transfers
    )
    text = picture.chat_text(card)
    assert text == f"Monday at Ann's table: Cat and Bob won 1 each of 2. {pays}."
    assert text.startswith("Monday at Ann's table: ") and "Ann pays Bob $7.20" in text


def test_a_night_played_for_nothing_shows_each_players_points(user):
    m = random_match(random.Random(2), "standard")
    while not rules.replay(m.start(), m.hands)[0].finished:
        m = random_match(random.Random(3), "standard")
    match = create_match(
        user,
        "standard",
        m.ruleset,
        rules.Stakes(),
        m.players,
        m.first_dealer,
        m.hands,
        timezone.now(),
    )
    card = night_card(match.night)
    [section] = card.sections
    assert section.currency is None
    assert dict(section.nets) == {r.player.name: r.score for r in match.results.all()}
    assert picture.chat_text(card).endswith("Played for points only.")
    assert len(picture.draw(card)) < 150_000


def test_a_shared_night_says_nothing_else_of_the_group(client_in, mondays, user):
    """Its picture and words hold that night's players and numbers only: no other night, no
    balance, no way to be paid."""
    bob = mondays.players.get(name="Bob")
    PayWays.store(
        mondays.pk,
        bob.pk,
        {"venmo": "bob-lee", "paypal": "", "cashapp": "", "other": "Zelle: 555-0100"},
    )
    first = Night.objects.filter(group=mondays).order_by("pk").first()
    card = night_card(first)
    names = {r.player.name for m in first.matches.all() for r in m.results.all()}
    assert {n for s in card.sections for n, _ in s.nets} <= names
    assert "Eve" not in str(card)  # she played on the second night only
    text = client_in.get(url("night_words", first.pk)).content.decode()
    assert text == picture.chat_text(card)
    for secret in ("bob-lee", "555-0100", "17.50", "10.30"):  # ways to pay, balances
        assert secret not in text and secret not in str(card)
    response = client_in.get(url("night_picture", first.pk))
    assert response["Content-Type"] == "image/png"
    assert response.content == picture.draw(card)


def test_only_members_get_the_picture_and_the_words(client, mondays, django_user_model):
    night = Night.objects.filter(group=mondays).first()
    client.force_login(django_user_model.objects.create_user("zed"))
    assert client.get(url("night_picture", night.pk)).status_code == 404
    assert client.get(url("night_words", night.pk)).status_code == 404
    client.logout()
    assert client.get(url("night_picture", night.pk)).status_code == 302  # to log in


def test_the_share_button_is_on_the_night_and_a_finished_boards_not_on_a_shared_board(
    client_in, mondays
):
    night = Night.objects.filter(group=mondays).order_by("pk").first()
    share = f'data-share="{url("night_picture", night.pk)}"'
    assert share in client_in.get(night.get_absolute_url()).content.decode()
    finished = night.matches.filter(finished__isnull=False).first()
    assert share in client_in.get(finished.get_absolute_url()).content.decode()
    going = Match.objects.filter(group=mondays, finished__isnull=True).first()
    assert "data-share=" not in client_in.get(going.get_absolute_url()).content.decode()
    public = client_in.get(finished.get_share_url()).content.decode()
    assert "Share the night" not in public and "data-share" not in public
    viewer = get_user_model().objects.create_user("vic")
    mondays.join(viewer, Role.VIEWER)
    client_in.force_login(viewer)
    assert share in client_in.get(finished.get_absolute_url()).content.decode()
