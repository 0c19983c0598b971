"""After the night (#44), in real Chromium at 390×844: a member says how they like to be paid
and the one who pays them finds the button with everything filled in; a night shared as a
picture; a season's standings."""

import json
import re
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Page, expect

from games.models import Group, Role, claim_player

from .browser import TALL, no_axe_violations, signed_in, snap
from .conftest import command
from .matches import three_nights

pytestmark = pytest.mark.django_db(transaction=True)


def three_mondays(tmp_path, username: str) -> Group:
    from django.contrib.auth import get_user_model

    group = Group.objects.get(home_of=get_user_model().objects.get(username=username))
    paths = []
    for i, doc in enumerate(three_nights()):
        path = tmp_path / f"m{i}.json"
        path.write_text(json.dumps(doc))
        paths.append(str(path))
    code, _, err = command("import_match", *paths, "--group", str(group.pk))
    assert code == 0, err
    return group


def test_a_member_sets_a_venmo_name_and_the_payer_finds_the_button(
    browser, page: Page, live_server, tmp_path
):
    from django.contrib.auth import get_user_model

    base = live_server.url
    signed_in(page, base, "host")
    group = three_mondays(tmp_path, "host")
    claim_player(
        group, get_user_model().objects.get(username="host"), group.players.get(name="Ann")
    )

    # Bob's phone: he joins, says he is Bob, and gives his Venmo name on the group's page.
    bobs = browser.new_context(viewport=TALL, is_mobile=True, has_touch=True)
    bob = bobs.new_page()
    signed_in(bob, base, "bob")
    bob_user = get_user_model().objects.get(username="bob")
    group.join(bob_user, Role.VIEWER)
    claim_player(group, bob_user, group.players.get(name="Bob"))
    bob.goto(f"{base}/groups/{group.pk}/")
    bob.get_by_label("Venmo user name").fill("bob lee")
    bob.get_by_role("button", name="Set how I'm paid").click()
    expect(bob.locator(".pay-form .error")).to_have_text(
        "A Venmo name holds only letters, digits, hyphens (-) and underscores (_): a space "
        "can't be in it. Such as ann-lee."
    )
    expect(bob.get_by_label("Venmo user name")).to_have_value("bob lee")
    bob.get_by_label("Venmo user name").fill("@bob-lee")
    bob.get_by_label("Anything else").fill("Zelle: 555-0100")
    bob.get_by_role("button", name="Set how I'm paid").click()
    expect(bob.get_by_text("How Bob is paid: saved.")).to_be_visible()
    expect(bob.locator(".pay-row").first).to_contain_text("Venmo @bob-lee")
    no_axe_violations(bob)
    snap(bob, "pay-ways-group")

    # Ann's phone (the host's): the first night, where Ann pays Bob $7.20.
    page.goto(base + "/nights/")
    page.locator(".nights a").last.click()
    transfer = page.locator(".settle-up .transfer").filter(has_text="Ann pays Bob")
    venmo = transfer.get_by_role("link", name="Pay with Venmo")
    expect(venmo).to_be_visible()
    link = urlsplit(venmo.get_attribute("href"))
    assert (link.netloc, link.path) == ("venmo.com", "/bob-lee")
    assert parse_qs(link.query) == {
        "txn": ["pay"],
        "amount": ["7.20"],
        "note": ["Buck Euchre, Mon Nov 2"],
    }
    expect(transfer.locator(".pay-other-text")).to_have_text("Zelle: 555-0100")
    transfer.get_by_role("button", name="Copy: Zelle: 555-0100").click()
    expect(transfer.get_by_role("button", name="Copy: Zelle: 555-0100")).to_have_text(
        re.compile("Copied|Select it and copy")
    )
    # The Venmo button and Mark paid both within reach on the phone's first screens.
    expect(transfer.get_by_role("button", name="Mark paid: Ann to Bob")).to_be_visible()
    no_axe_violations(page)
    snap(page, "pay-night")

    # Home's latest night (Ann pays Bob $3.10) and the balances (all Ann owes Bob): the same
    # button, with what is owed there.
    page.goto(base + "/")
    home = page.locator(".tonight .transfer").filter(has_text="Ann pays Bob")
    link = urlsplit(home.get_by_role("link", name="Pay with Venmo").get_attribute("href"))
    assert parse_qs(link.query)["amount"] == ["3.10"]
    assert parse_qs(link.query)["note"] == ["Buck Euchre, Mon Nov 16"]
    no_axe_violations(page)
    snap(page, "pay-home")
    page.goto(f"{base}/groups/{group.pk}/balances/")
    owed = page.locator(".settle-up .transfer").filter(has_text="Ann pays Bob")
    link = urlsplit(owed.get_by_role("link", name="Pay with Venmo").get_attribute("href"))
    assert parse_qs(link.query)["amount"] == ["17.50"]
    no_axe_violations(page)
    snap(page, "pay-balances")
    bobs.close()


def test_the_standings_of_a_year_and_of_all_time(page: Page, live_server, tmp_path):
    from games.models import Span, standings

    base = live_server.url
    signed_in(page, base, "host")
    group = three_mondays(tmp_path, "host")
    page.get_by_role("link", name=re.compile(r"^Standings of \d{4}$")).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(re.compile(r"Standings · \d{4}"))

    with page.expect_navigation():  # picked, the season shows: no Show to tap
        page.select_option("#season", label="2026")
    expect(page.get_by_role("heading", level=1)).to_have_text("Standings · 2026")
    rows, _ = standings(group.pk, Span.year(2026))
    names = page.locator("table.standings tbody th")
    expect(names).to_have_text([s.name for s in rows])
    first = page.locator("table.standings tbody tr").first
    expect(first.locator("td").nth(0)).to_have_text(f"+${rows[0].money['USD'] / 100:.2f}")
    # The names stay in view as the numbers scroll sideways on a phone.
    expect(names.first).to_be_in_viewport()
    no_axe_violations(page)
    snap(page, "standings-2026")

    with page.expect_navigation():
        page.select_option("#season", label="All time")
    expect(page.get_by_role("heading", level=1)).to_have_text("Standings · All time")
    rows, _ = standings(group.pk, None)
    expect(names).to_have_text([s.name for s in rows])
    expect(page.locator("table.standings tbody tr")).to_have_count(5)  # Eve sat in once
    snap(page, "standings-all")


# The phone's share sheet, stubbed: what it was given is kept for the test to read.
SHARE_SHEET = """
navigator.canShare = (data) => Boolean(data && data.files && data.files.length);
navigator.share = async (data) => {
  const file = data.files[0];
  const bytes = new Uint8Array(await file.arrayBuffer());
  const bitmap = await createImageBitmap(file);
  window.shared = {
    text: data.text, name: file.name, type: file.type, size: file.size,
    head: Array.from(bytes.slice(0, 8)), width: bitmap.width, height: bitmap.height,
  };
};
"""


def test_share_on_the_night_page_gives_the_share_sheet_the_picture_and_the_words(
    page: Page, live_server, tmp_path
):
    from games import picture
    from games.models import Night
    from games.views.share import night_card

    base = live_server.url
    page.add_init_script(SHARE_SHEET)
    signed_in(page, base, "host")
    group = three_mondays(tmp_path, "host")
    night = Night.objects.filter(group=group).order_by("pk").first()
    page.goto(base + night.get_absolute_url())
    share = page.get_by_role("link", name="Share the night")
    expect(share).to_be_in_viewport()
    no_axe_violations(page)
    share.click()
    expect(page.locator(".share-status")).to_have_text("Shared.")
    shared = page.evaluate("window.shared")
    assert shared["type"] == "image/png" and shared["name"].endswith(".png")
    assert shared["head"] == list(b"\x89PNG\r\n\x1a\n")
    assert (shared["width"], shared["height"]) == (1080, 1920)
    assert shared["size"] < 150_000
    assert shared["text"] == picture.chat_text(night_card(night))
    assert shared["text"].startswith("Monday at Host's table: ")
    snap(page, "share-night")


def test_without_a_share_sheet_the_picture_downloads_and_the_words_are_copied(
    page: Page, live_server, tmp_path
):
    base = live_server.url
    page.add_init_script("delete Navigator.prototype.share; delete Navigator.prototype.canShare;")
    signed_in(page, base, "host")
    group = three_mondays(tmp_path, "host")
    finished = group.matches.filter(finished__isnull=False).order_by("played_at").first()
    page.goto(base + finished.get_absolute_url())
    with page.expect_download() as download:
        page.get_by_role("link", name="Share the night").click()
    assert download.value.suggested_filename == "buck-euchre-night.png"
    expect(page.locator(".share-status")).to_contain_text("The picture is downloading")
    snap(page, "share-board")
