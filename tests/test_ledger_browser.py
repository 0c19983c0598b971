"""Three nights, a transfer marked paid and a partial payment, tried as a new user would in real
Chromium at 390×844: the balances say who owes whom at a glance, and /me/ is the member's own."""

import json
import re

import pytest
from playwright.sync_api import Page, expect

from .browser import no_axe_violations, signed_in, snap
from .matches import three_nights

pytestmark = pytest.mark.django_db(transaction=True)


def test_after_three_nights_and_a_partial_payment_the_balances_say_who_owes_whom(
    page: Page, live_server, tmp_path
):
    base = live_server.url
    signed_in(page, base, "host")
    files = []
    for i, doc in enumerate(three_nights()):
        path = tmp_path / f"match-{i}.json"
        path.write_text(json.dumps(doc))
        files.append(str(path))
    page.goto(base + "/matches/")
    page.set_input_files("#id_file", files)
    page.get_by_role("button", name="Import").click()
    expect(page.get_by_text("6 matches imported.")).to_be_visible()

    # The first night: Ann pays Bob her $7.20 there and then.
    page.goto(base + "/nights/")
    page.locator(".nights a").last.click()
    page.get_by_role("button", name="Mark paid: Ann to Bob").click()
    expect(page.locator(".settle-up .transfer").first).to_contain_text("Paid")

    # The balances over the three nights, from the night's page.
    page.get_by_role("link", name="Who owes whom, over every night").click()
    expect(page.get_by_role("heading", name="Who owes whom")).to_be_visible()
    transfers = page.locator(".settle-up .transfer .who")
    expect(transfers).to_have_text(
        [
            "Ann pays Bob $10.30",
            "Dan pays Bob $7.30",
            "Dan pays Cat $3.00",
            "Eve pays Cat $6.60",
        ]
    )

    # Eve hands Cat $2.50 at the door: a partial payment, recorded by its form.
    page.select_option("#id_payer", label="Eve")
    page.select_option("#id_payee", label="Cat")
    page.fill("#id_amount", "2.50")
    page.get_by_role("button", name="Record the payment").click()
    expect(page.get_by_text("Recorded: Eve paid Cat $2.50.")).to_be_visible()
    expect(transfers).to_have_text(
        [
            "Ann pays Bob $10.30",
            "Dan pays Bob $7.30",
            "Dan pays Cat $3.00",
            "Eve pays Cat $4.10",
        ]
    )
    # Who owes whom, in one glance: the payments to make are on the first screen.
    expect(transfers.last).to_be_in_viewport()
    no_axe_violations(page)
    snap(page, "balances")

    # A tap on Eve's balance: her night, then what she paid.
    page.locator(".nets summary").filter(has_text="Eve").click()
    eve = page.locator(".nets details[open] .workings li")
    expect(eve).to_have_count(2)
    expect(eve.first).to_contain_text("−$6.60")
    expect(eve.last).to_contain_text("paid Cat: +$2.50")
    expect(page.locator(".payment").first).to_contain_text("recorded by host")
    snap(page, "balances-eve")

    # "This is me" on the group's page, then the host's own record.
    page.get_by_role("link", name=re.compile("^Host's table")).first.click()
    page.select_option("#me-player", label="Ann")
    page.get_by_role("button", name="Save").click()
    page.goto(base + "/me/")
    expect(page.get_by_role("heading", name="My record")).to_be_visible()
    expect(page.locator(".my-groups li")).to_contain_text("as Ann: you owe $10.30")
    expect(page.locator("table.stats tr").first).to_have_text(re.compile(r"Matches\s*6"))
    expect(page.locator(".card-group")).to_have_count(6)
    expect(page.locator("svg.chart polyline")).to_have_count(1)
    no_axe_violations(page)
    snap(page, "me")
