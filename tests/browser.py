"""The browser tests' helpers: a phone signed in, a match started, a hand tapped in as a
player taps it, the scores read as a player reads them."""

import os
import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from .liveserver import PASSWORD

SHOTS = os.environ.get("SCREENSHOTS")  # a folder to keep screenshots in, when set
AXE = Axe()
TALL = {"width": 390, "height": 844}
SMALL = {"width": 375, "height": 667}  # a small phone, its browser's bars taking their share
# For a test whose hands must each fit one screen: it runs on both phones.
ON_BOTH_PHONES = pytest.mark.parametrize(
    "phone",
    [
        pytest.param(size, marks=pytest.mark.browser_context_args(viewport=size), id=name)
        for name, size in (("390x844", TALL), ("375x667", SMALL))
    ],
)


def snap(page: Page, name: str):
    if SHOTS:
        size = page.viewport_size
        suffix = "" if size == TALL else f"-{size['width']}x{size['height']}"
        page.screenshot(path=f"{SHOTS}/{name}{suffix}.png", full_page=True)


# What axe has already checked in this run: a page (its path, ids aside) with the same parts on
# it (every tag and class of its content) adds no coverage the second time.
AXED: set[tuple[str, str]] = set()
PARTS = """() => [...new Set([...document.querySelectorAll("main *")]
    .map(e => e.tagName + "." + e.className))].sort().join(" ")"""


def no_axe_violations(page: Page):
    """axe-core finds nothing, in the light and in the dark colour scheme: once for each page
    and set of parts on it."""
    page.wait_for_load_state()
    seen = (re.sub(r"\d+|/[A-Za-z0-9_-]{20,}/", "N", page.url.split("?")[0]), page.evaluate(PARTS))
    if seen in AXED:
        return
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        results = AXE.run(page)
        assert results.violations_count == 0, f"{scheme}: {results.generate_report()}"
    page.emulate_media(color_scheme="light")
    AXED.add(seen)


def sign_up(page: Page, base: str, name: str = "table"):
    page.goto(base + "/signup/")
    no_axe_violations(page)
    page.fill("#id_username", name)
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("text=Sign up")
    expect(page.get_by_role("link", name="New match")).to_be_visible()
    no_axe_violations(page)


def signed_in(page: Page, base: str, name: str):
    """What `sign_up` leaves, without its pages: an account of the player's own, its group,
    and this phone logged in to it, on the home page. The sign-up page itself is played by the
    tests that sign up."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    from games.models import Group

    user = get_user_model().objects.create_user(name, password=PASSWORD)
    Group.home(user)
    client = Client()
    client.force_login(user)
    cookie = settings.SESSION_COOKIE_NAME
    page.context.add_cookies([{"name": cookie, "value": client.cookies[cookie].value, "url": base}])
    page.goto(base + "/")
    expect(page.get_by_role("link", name="New match")).to_be_visible()


def new_match(page: Page, preset_label: str, names, dealer: str, **stakes):
    page.get_by_role("link", name="New match").click()
    page.locator("label.preset").filter(
        has=page.locator("strong", has_text=re.compile(rf"^{re.escape(preset_label)}$"))
    ).click()
    for i, name in enumerate(names):
        page.fill(f"#id_seat_{i}", name)
    page.locator("#id_seat_0").focus()  # leave the last seat so its change re-draws the dealers
    dealer_choice = page.locator("#dealer label").filter(has_text=re.compile(rf"^{dealer}$"))
    expect(dealer_choice).to_be_visible()
    for key, value in stakes.items():
        page.fill(f"#id_{key}", value)
    dealer_choice.click()
    no_axe_violations(page)
    page.get_by_role("button", name="Start the match").click()
    expect(page.locator("#hand-form")).to_be_visible()


def in_reach(page: Page, locator):
    """The tile is on screen, not under the save bar: a finger can tap it without scrolling.
    (A locator's evaluate finds the element, then runs: a board the server redrew in between
    leaves it out of the page, and it is looked for again.)"""
    expect(locator).to_be_in_viewport(ratio=1)
    for _ in range(5):
        seen = locator.evaluate(
            """el => {
                if (!el.isConnected) return null;
                const box = el.getBoundingClientRect();
                const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
                const hit = document.elementFromPoint(x, y);
                if (el.contains(hit) || hit?.closest("label") === el) return "";
                return hit ? `${hit.outerHTML.slice(0, 200)} at y=${box.y}` : "nothing";
            }"""
        )
        if seen is not None:
            break
    assert seen == "", f"covered by {seen}"


def tap(page: Page, fieldset: str, value: str, on_one_screen: bool = False) -> int:
    """Tap the tile of a choice, as a finger would: on its label (found by value or by name)."""
    labels = page.locator(f"#hand-form fieldset.{fieldset} label")
    by_value = labels.filter(has=page.locator(f"input[value='{value}']"))
    by_name = labels.filter(has_text=re.compile(rf"^{re.escape(value)}$"))
    tile = by_value.or_(by_name)
    if on_one_screen:
        in_reach(page, tile)
    tile.click()
    return 1


def told(page: Page, name: str):
    """The chip checked in a player's row of tricks."""
    return page.get_by_role("radiogroup", name=name, exact=True).locator("input:checked")


def chip(page: Page, name: str, n: int, on_one_screen: bool = False) -> int:
    """Tap the chip for `n` tricks in a player's row."""
    row = page.get_by_role("radiogroup", name=name, exact=True)
    tile = row.locator("label.chip").filter(has=page.locator(f"input[value='{n}']"))
    if on_one_screen:
        in_reach(page, tile)
    tile.click()
    return 1


def enter_hand(
    page: Page,
    upcard,
    maker=None,
    trump=None,
    bid=None,
    dropped=(),
    tricks=None,
    on_one_screen=False,
    moon=False,
):
    """Tap a hand in as a player would, tapping the tricks of the players in `tricks` (the
    last player's fill in by themselves); returns the number of taps it took. With
    `on_one_screen`, every tap, the last row of tricks, the preview and Save are within reach
    without scrolling."""
    taps = tap(page, "upcard", upcard, on_one_screen)
    if maker:
        expect(page.locator("fieldset.makers")).to_be_visible()
        taps += tap(page, "makers", maker, on_one_screen)
    if trump:
        expect(page.locator("fieldset.trump")).to_be_visible()
        taps += tap(page, "trump", trump, on_one_screen)
    if bid:
        expect(page.locator("fieldset.bids")).to_be_visible()
        taps += tap(page, "bids", str(bid), on_one_screen)
    if moon:
        expect(page.locator("fieldset.moon")).to_be_visible()
        taps += tap(page, "moon", "1", on_one_screen)
    for name in dropped:
        expect(page.locator("fieldset.drops")).to_be_visible()
        taps += tap(page, "drops", name, on_one_screen)
        expect(page.get_by_role("radiogroup", name=name, exact=True)).to_have_count(0)
    for name, n in (tricks or {}).items():
        taps += chip(page, name, n, on_one_screen)
    if page.locator("fieldset.tricks:not([hidden])").count():
        expect(page.locator(".tricks .left")).to_have_text("all 5 given")
    expect(page.locator(".status .preview")).to_be_visible()  # the engine accepts it
    save = page.get_by_role("button", name=re.compile(r"^Save hand"))
    if on_one_screen:
        rows = page.locator(".trick-row:not([hidden])")
        if rows.count():
            in_reach(page, rows.last.locator("label.chip").last)
        in_reach(page, page.locator(".status .preview"))
        in_reach(page, save)
        assert page.evaluate("window.scrollY") == 0
    save.click()
    return taps + 1


def scores(page: Page) -> dict:
    expect(page.locator("#hand-form .prompt, .result").first).to_be_visible()
    out = {}
    for tile in page.locator(".scores .score").all():
        points = tile.locator(".points").inner_text().replace("−", "-")  # a real minus sign
        out[tile.locator(".name").inner_text()] = int(points)
    return out


def log_in(page: Page, base: str, name: str):
    page.goto(base + "/accounts/login/")
    page.fill("#id_username", name)
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("link", name="New match")).to_be_visible()


def slow_link(page: Page, latency: int):
    cdp = page.context.new_cdp_session(page)
    conditions = {"offline": False, "latency": latency, "downloadThroughput": -1}
    cdp.send("Network.emulateNetworkConditions", {**conditions, "uploadThroughput": -1})
