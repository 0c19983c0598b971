"""A night as a picture to share (#44 §2): a phone-portrait PNG drawn with Pillow from the
night's numbers (`NightCard`), and the few lines a group chat shows with it. No Django here:
the card is filled by games/views/share.py from what the night's page shows, so the picture
says the same; it holds that night only (no other night, no balance, no way to be paid)."""

from __future__ import annotations

import functools
import io
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from games import rules, words

# A phone's portrait screen (9:16), at the size a chat shows full screen.
WIDTH, HEIGHT = 1080, 1920
MARGIN = 72
# Debian's DejaVu (fonts-dejavu-core, `make fonts`): every Latin, Greek and Cyrillic letter a
# name may hold, €, £ and the minus sign. Without it, Pillow's own font (ASCII only).
FONTS = Path("/usr/share/fonts/truetype/dejavu")
INK, MUTED, GAIN, LOSS = (22, 32, 26), (74, 87, 79), (11, 93, 42), (161, 18, 27)
PAPER, BAND, BAND_TEXT, RULE = (246, 247, 244), (20, 83, 45), (255, 255, 255), (201, 209, 203)


@dataclass(frozen=True)
class MatchLine:
    """A match of the night: when it began ("7:30 p.m."), its rules' name, and who won
    (empty while it is not finished)."""

    clock: str
    label: str
    winners: tuple[str, ...]


@dataclass(frozen=True)
class Transfer:
    """A payment of the settle-up (§11) and what is left of it to pay (0: paid)."""

    payer: str
    payee: str
    cents: int
    left: int

    @property
    def paid(self) -> bool:
        return self.left <= 0


@dataclass(frozen=True)
class Section:
    """A currency's nets and the payments that settle them (§11); with no currency, each
    player's points over the finished matches (nothing was staked: lower is better)."""

    currency: str | None
    nets: tuple[tuple[str, int], ...]
    transfers: tuple[Transfer, ...] = ()


@dataclass(frozen=True)
class NightCard:
    group: str
    title: str
    weekday: str
    matches: tuple[MatchLine, ...]
    sections: tuple[Section, ...] = field(default=())


def amount(value: int, currency: str | None) -> str:
    """A net as the picture writes it: money with its sign, or points."""
    if currency is None:
        return str(value).replace("-", words.MINUS)
    return words.signed_money(value, currency)


def chat_text(card: NightCard) -> str:
    """The few lines for a group chat: "Thursday at Ann's table: Cat won 2 of 3. Bob pays Ann
    $3.55, Dan pays Cat $1.20." """
    finished = [m for m in card.matches if m.winners]
    wins: dict[str, int] = {}
    for m in finished:
        for name in m.winners:
            wins[name] = wins.get(name, 0) + 1
    if not finished:
        won = "no match finished yet."
    else:
        top = max(wins.values())
        leaders = [name for name in wins if wins[name] == top]
        each = " each" if len(leaders) > 1 else ""
        won = f"{rules.join_names(leaders)} won {top}{each} of {len(finished)}."
    lines = [f"{card.weekday} at {card.group}: {won}"]
    for s in card.sections:
        if s.currency is None:
            continue
        pays = [
            f"{t.payer} pays {t.payee} {words.money(t.cents, s.currency)}"
            + (" (paid)" if t.paid else "")
            for t in s.transfers
        ]
        lines.append(", ".join(pays) + "." if pays else f"Nobody owes anything in {s.currency}.")
    if not any(s.currency for s in card.sections) and finished:
        lines.append("Played for points only.")
    return " ".join(lines)


@functools.cache
def _font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    path = FONTS / ("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf")
    if path.exists():
        return ImageFont.truetype(str(path), size)
    return ImageFont.load_default(size)


def _fit(text: str, font: ImageFont.FreeTypeFont | ImageFont.ImageFont, width: float) -> str:
    """The text, cut with an ellipsis to `width` pixels."""
    if font.getlength(text) <= width:
        return text
    while text and font.getlength(text + "…") > width:
        text = text[:-1]
    return text + "…"


def _rows(card: NightCard) -> list[tuple[str, str, str, tuple[int, int, int]]]:
    """What goes below the band, a row at a time: (kind, left, right, colour of the right)."""
    rows: list[tuple[str, str, str, tuple[int, int, int]]] = [("heading", "Matches", "", INK)]
    for m in card.matches:
        won = f"{rules.join_names(list(m.winners))} won" if m.winners else "not finished"
        rows.append(("line", f"{m.clock} · {m.label}", won, MUTED if not m.winners else INK))
    for s in card.sections:
        if s.currency is None:
            rows.append(("heading", "Points (lower is better)", "", INK))
        else:
            many = len([x for x in card.sections if x.currency]) > 1
            rows.append(
                ("heading", f"Each player's net{f' in {s.currency}' if many else ''}", "", INK)
            )
        for name, value in s.nets:
            colour = (
                INK if s.currency is None else GAIN if value > 0 else LOSS if value < 0 else INK
            )
            rows.append(("line", name, amount(value, s.currency), colour))
        if s.currency is not None:
            rows.append(("heading", "To settle up", "", INK))
            for t in s.transfers:
                right = words.money(t.cents, s.currency)
                if t.paid:
                    right += " ✓ paid"
                elif t.left < t.cents:
                    right += f" ({words.money(t.left, s.currency)} left)"
                rows.append(("line", f"{t.payer} pays {t.payee}", right, MUTED if t.paid else INK))
            if not s.transfers:
                rows.append(("line", "Everybody is square.", "", INK))
    return rows


def draw(card: NightCard) -> bytes:
    """The night as a PNG, 1080×1920: the group and the date on a band, then the matches,
    each player's net and the payments that settle it, smaller where there are many."""
    image = Image.new("RGB", (WIDTH, HEIGHT), PAPER)
    pen = ImageDraw.Draw(image)
    band = 300
    pen.rectangle((0, 0, WIDTH, band), fill=BAND)
    inner = WIDTH - 2 * MARGIN
    pen.text((MARGIN, 60), "♣ Buck Euchre", font=_font(36), fill=BAND_TEXT)
    pen.text(
        (MARGIN, 112),
        _fit(card.group, _font(64, True), inner),
        font=_font(64, True),
        fill=BAND_TEXT,
    )
    pen.text((MARGIN, 200), _fit(card.title, _font(38), inner), font=_font(38), fill=BAND_TEXT)

    rows = _rows(card)
    room = HEIGHT - band - 80 - 60
    # A row is a line of text, a heading a little more: as large as fits, up to 70 pixels.
    units = sum(1.5 if kind == "heading" else 1.0 for kind, *_ in rows)
    step = max(24, min(70, int(room / units)))
    size = max(16, int(step * 0.6))
    y = band + 50
    for kind, left, right, colour in rows:
        if y + step > HEIGHT - 80:  # past what fits even at the smallest: the rest is left out
            break
        if kind == "heading":
            y += int(step * 0.5)
            font = _font(int(size * 1.1), True)
            pen.text((MARGIN, y), left, font=font, fill=INK)
            pen.line((MARGIN, y + step - 6, WIDTH - MARGIN, y + step - 6), fill=RULE, width=2)
            y += step
            continue
        font, bold = _font(size), _font(size, True)
        right_width = bold.getlength(right) if right else 0
        pen.text((MARGIN, y), _fit(left, font, inner - right_width - 24), font=font, fill=INK)
        if right:
            pen.text((WIDTH - MARGIN - right_width, y), right, font=bold, fill=colour)
        y += step
    pen.text(
        (MARGIN, HEIGHT - 70), "Kept with the Buck Euchre score keeper", font=_font(28), fill=MUTED
    )
    # A few dozen colours say it all (the anti-aliased letters' edges among them): as a
    # palette the picture is a third of its size in full colour, and is saved sooner.
    flat = image.quantize(colors=32, method=Image.Quantize.FASTOCTREE)
    out = io.BytesIO()
    flat.save(out, "PNG", compress_level=6)
    return out.getvalue()
