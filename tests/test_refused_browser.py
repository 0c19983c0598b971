"""A form sent as a whole page that the server refuses, in real Chromium at 390×844: the page
comes back with what was wrong in view and the focus on it, and what was typed still typed."""

import pytest
from playwright.sync_api import Page, expect

from games.models import Group, Player

from .browser import no_axe_violations, signed_in, snap
from .conftest import make_match

pytestmark = pytest.mark.django_db(transaction=True)


def refused_in_view(page: Page, box, words: str):
    """The field refused has the focus, with its words under it, both on the screen."""
    expect(box).to_be_focused()
    expect(box).to_be_in_viewport()
    error = page.get_by_text(words)
    expect(error).to_be_in_viewport()
    assert page.evaluate("window.scrollY") > 0  # brought into view, from below the first screen


def test_a_refused_form_shows_what_was_wrong_at_once_and_keeps_what_was_typed(
    page: Page, live_server
):
    base = live_server.url
    signed_in(page, base, "host")
    group = Group.objects.get(home_of__username="host")
    make_match(group)

    # A player renamed to another player's name: below the statistics and charts.
    ann = Player.objects.get(group=group, name="Ann")
    page.goto(base + ann.get_absolute_url())
    page.get_by_label("Spelling of the name, in every match").fill("Dan")
    page.get_by_role("button", name="Rename").click()
    box = page.get_by_label("Spelling of the name, in every match")
    refused_in_view(page, box, "There is already a player called Dan.")
    expect(box).to_have_value("Dan")
    no_axe_violations(page)
    snap(page, "refused-rename")

    # Another spelling starts with nobody chosen; chosen but the box unticked, it is refused
    # where it was sent, the player chosen still chosen.
    other = page.get_by_label("Another spelling of Ann")
    expect(other).to_have_value("")
    other.select_option(label="Bob")
    page.get_by_role("button", name="Merge into Ann").click()
    error = page.get_by_text("Tick the box to say that Bob and Ann are the same person.")
    expect(error).to_be_focused()
    expect(error).to_be_in_viewport()
    bob = Player.objects.get(group=group, name="Bob")
    expect(page.get_by_label("Another spelling of Ann")).to_have_value(str(bob.pk))

    # "This is me" lands on how the player likes to be paid, saying it was done.
    page.goto(f"{base}/groups/{group.pk}/")
    page.get_by_label("Which player are you at").select_option(label="Ann")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page).to_have_url(f"{base}/groups/{group.pk}/#pay-title")
    expect(page.get_by_text("You are Ann in Host's table.")).to_be_in_viewport()
    expect(page.get_by_label("Venmo user name")).to_be_in_viewport()
    snap(page, "this-is-me")

    # A Venmo name with a space in it.
    page.get_by_label("Venmo user name").fill("dan smith")
    page.get_by_role("button", name="Set how I'm paid").click()
    box = page.get_by_label("Venmo user name")
    refused_in_view(page, box, "a space can't be in it")
    expect(box).to_have_value("dan smith")
    snap(page, "refused-venmo")

    # The group's name, over its 60 letters (a page older than the box's limit, say), at the
    # foot of the page.
    box = page.get_by_label("Name of the group")
    long = "The Monday night euchre club at the lake house, everyone welcome"
    box.evaluate("(box, name) => { box.removeAttribute('maxlength'); box.value = name; }", long)
    page.get_by_role("button", name="Rename").click()
    box = page.get_by_label("Name of the group")
    refused_in_view(page, box, "Keep the name to 60 letters.")
    expect(box).to_have_value(long)
    snap(page, "refused-group-name")

    # A season whose last day comes before its first, under the standings.
    page.goto(f"{base}/groups/{group.pk}/standings/")
    page.get_by_label("Name of the season").fill("Winter")
    page.get_by_label("First day").fill("2027-03-01")
    page.get_by_label("Last day").fill("2026-12-01")
    page.get_by_role("button", name="Add the season").click()
    box = page.get_by_label("Last day")
    expect(box).to_be_focused()
    expect(page.get_by_text("The last day comes before the first: swap them?")).to_be_in_viewport()
    expect(page.get_by_label("Name of the season")).to_have_value("Winter")
    snap(page, "refused-season")
