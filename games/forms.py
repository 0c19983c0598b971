"""Forms for a new match and for a hand. Every rule is asked of games.rules, never re-encoded."""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypedDict, cast

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User
from django.forms.boundfield import BoundField, BoundWidget
from django.http import QueryDict

from games import rules, words
from games.checks import password_reset_on
from games.models import GROUP_NAME_LENGTH, MAX_HANDS, PRESET_CHOICES, SUIT_CHOICES, check_money
from games.models.hands import KEY_LENGTH
from games.words import CHOICE_WORDS, OPTION_LABELS, option_text

PASS = "pass"
NO_PLAYERS = "Type the players' names, clockwise from seat 1."
PICK_DEALER = "Pick who deals first: a seat with a player in it."
# Only a crafted request sends either (the page offers the presets, and keeps the currency to
# its length), but it is answered in words all the same, never a silent redraw.
PICK_PRESET = "Pick one of the rule sets listed: there is no other."
CURRENCY_WORDS = (
    f"A currency is a short label of at most {rules.CURRENCY_LENGTH} characters, such as USD, "
    "$ or quarters."
)
NO_OVERRIDE = ""
WORD_OPTIONS = {"auto_trump", "bidding", "all_pass", "ties"}
BOOL_OPTIONS = {"sweep_wins", "lone_maker_sweeps", "cap_at_start", "moon", "count_up"}


def _option_value(name: str, text: str) -> int | str | bool | list[int] | None:
    """A house-rules field's text as the option value the rules expect."""
    if text == "null":
        return None
    if name == "players":
        return [int(n) for n in text.split(",")]
    if name in BOOL_OPTIONS:
        return text == "true"
    return text if name in WORD_OPTIONS else int(text)


def choice_field(form: forms.Form, name: str) -> forms.ChoiceField:
    """A choice field of the form, whose choices the match gives."""
    field = form.fields[name]
    assert isinstance(field, forms.ChoiceField)
    return field


# The stubs' generic forms, which Django's own classes are not at run time (no [User] there).
if TYPE_CHECKING:
    _SignupBase = UserCreationForm[User]
    _EmailBase = forms.ModelForm[User]
else:
    _SignupBase = UserCreationForm
    _EmailBase = forms.ModelForm

EMAIL_HELP = "Only for a mail to reset a forgotten password."


class SignupForm(_SignupBase):
    # The account's own group: static/js/app.js suggests "Ann's table" (the placeholder) as the
    # username is typed; left empty, it is that (Group.home).
    table = forms.CharField(
        label="Name of your table",
        max_length=GROUP_NAME_LENGTH,
        required=False,
        help_text="Your group: its players, matches and nights. You can rename it later.",
        widget=forms.TextInput(attrs={"data-table-of": "id_username", "autocomplete": "off"}),
    )
    field_order = ["username", "table", "email", "password1", "password2"]

    # django-stubs 5.2 leaves out UserCreationForm.Meta, which Django defines.
    class Meta(UserCreationForm.Meta):  # type: ignore[name-defined,misc]
        fields = ("username", "email")
        help_texts = {"email": EMAIL_HELP}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not password_reset_on():
            del self.fields["email"]

    def clean_table(self) -> str:
        name = " ".join(self.cleaned_data["table"].split())
        if not rules.plain_text(name):
            raise forms.ValidationError(rules.PLAIN_NAME)
        return name


class EmailForm(_EmailBase):
    class Meta:
        model = get_user_model()
        fields = ("email",)
        help_texts = {"email": EMAIL_HELP}


class CentsField(forms.Field):
    """An amount of money typed as "1.50", cleaned to whole cents the way the match file reads
    it (rules.parse_money): the engine and the database count in cents."""

    default_error_messages = {
        "invalid": "Enter an amount such as 1.50: no sign, at most two decimal places.",
        "too_big": rules.STAKE_TOO_BIG,
    }

    def __init__(self, *, max_length: int | None = None, **kwargs: Any) -> None:
        self.max_length = max_length  # of the text typed, said as "invalid" unless told
        super().__init__(**kwargs)

    def to_python(self, value: object) -> int | None:
        text = "" if value in self.empty_values else str(value).strip()
        if not text:
            return None
        if self.max_length is not None and len(text) > self.max_length:
            words = self.error_messages.get("max_length", self.error_messages["invalid"])
            raise forms.ValidationError(words, code="max_length")
        try:
            cents = rules.parse_money("0" + text if text.startswith(".") else text)  # ".10"
        except ValueError:
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid") from None
        if cents > rules.MAX_STAKE_CENTS:
            raise forms.ValidationError(self.error_messages["too_big"], code="too_big")
        return cents


class MatchForm(forms.Form):
    """A new match: preset, house rules, seats, stakes and the first dealer.

    House-rules and stakes fields left blank follow the preset, so changing the preset never
    leaves stale values behind.
    """

    preset = forms.ChoiceField(
        choices=PRESET_CHOICES,
        widget=forms.RadioSelect,
        initial="standard",
        error_messages={"invalid_choice": PICK_PRESET, "required": PICK_PRESET},
    )
    seat_0 = forms.CharField(label="Seat 1", max_length=rules.NAME_LENGTH, required=False)
    seat_1 = forms.CharField(label="Seat 2", max_length=rules.NAME_LENGTH, required=False)
    seat_2 = forms.CharField(label="Seat 3", max_length=rules.NAME_LENGTH, required=False)
    seat_3 = forms.CharField(label="Seat 4", max_length=rules.NAME_LENGTH, required=False)
    seat_4 = forms.CharField(label="Seat 5", max_length=rules.NAME_LENGTH, required=False)
    seat_5 = forms.CharField(label="Seat 6", max_length=rules.NAME_LENGTH, required=False)
    dealer = forms.ChoiceField(
        label="First dealer",
        choices=[
            *((str(i), f"Seat {i + 1}") for i in range(max(rules.SEAT_COUNTS))),
            ("random", "Pick at random"),
        ],
        widget=forms.RadioSelect,
        initial="random",
        error_messages={"invalid_choice": PICK_DEALER, "required": PICK_DEALER},
    )
    per_game = CentsField(label="A game", required=False)
    per_point = CentsField(label="A point", required=False)
    per_set = CentsField(label="A set", required=False)
    currency = forms.CharField(
        max_length=rules.CURRENCY_LENGTH,
        required=False,
        initial="USD",
        error_messages={"max_length": CURRENCY_WORDS},
    )

    SEATS = tuple(f"seat_{i}" for i in range(max(rules.SEAT_COUNTS)))
    STAKES = rules.STAKE_NAMES

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        names = self.typed_names()
        choice_field(self, "dealer").choices = [
            (str(i), name or f"Seat {i + 1}") for i, name in enumerate(names)
        ] + [("random", "Pick at random")]
        for name in rules.OPTION_NAMES:
            label = OPTION_LABELS[name]
            field: forms.Field
            if name in CHOICE_WORDS:
                field = forms.ChoiceField(
                    label=label,
                    required=False,
                    choices=[(NO_OVERRIDE, "Preset")] + CHOICE_WORDS[name],
                )
            else:
                field = forms.IntegerField(label=label, required=False)
            self.fields[f"rule_{name}"] = field

    @property
    def chosen_preset(self) -> rules.Preset:
        name = (self.data.get("preset") or "") if self.is_bound else ""
        return rules.PRESETS.get(name) or rules.PRESETS[self.fields["preset"].initial]

    def rule_fields(self) -> Iterator[tuple[BoundField, object]]:
        """(bound field, the preset's own value as text) for every option."""
        preset = self.chosen_preset.ruleset
        for name in rules.OPTION_NAMES:
            value = getattr(preset, name)
            shown = dict(CHOICE_WORDS.get(name, [])).get(option_text(name, value))
            yield self[f"rule_{name}"], shown or ("none" if value is None else value)

    def dealer_choices(self) -> Iterator[tuple[BoundWidget, bool]]:
        """(radio, hidden?) for each dealer choice: empty seats hide once any name is typed (a
        name refused stays, to be put right)."""
        names = self.typed_names()
        for radio in self["dealer"]:
            seat = radio.data["value"]
            yield radio, seat.isdigit() and any(names) and not names[int(seat)]

    def seat_fields(self) -> list[BoundField]:
        return [self[s] for s in self.SEATS]

    @property
    def house_rules_open(self) -> bool:
        return any(self.data.get(f"rule_{n}") for n in rules.OPTION_NAMES) or any(
            k.startswith("rule_") for k in self.errors
        )

    def stake_fields(self) -> Iterator[tuple[BoundField, str]]:
        stakes = self.chosen_preset.stakes
        for name in self.STAKES:
            yield self[name], rules.format_money(getattr(stakes, name))

    def typed_names(self) -> list[str]:
        """The seats' names as typed, refused or not, "" for an empty seat."""
        return [(self.data.get(s) or "").strip() for s in self.SEATS]

    def seat_names(self) -> list[str]:
        """The seats' names as typed, "" for an empty seat."""
        data = self.cleaned_data if hasattr(self, "cleaned_data") else self.data
        return [(data.get(s) or "").strip() for s in self.SEATS]

    def names(self) -> list[str]:
        """The players, clockwise, empty seats left out."""
        return [name for name in self.seat_names() if name]

    def clean_currency(self) -> str:
        currency = str(self.cleaned_data["currency"])
        if not rules.plain_text(currency):
            raise forms.ValidationError(CURRENCY_WORDS)
        return currency

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        assert data is not None  # Form.clean answers cleaned_data
        preset = data.get("preset")
        if not preset:
            return data
        overrides: dict[str, object] = {}
        for name in rules.OPTION_NAMES:
            text = data.get(f"rule_{name}")
            if text not in (None, NO_OVERRIDE):
                overrides[name] = _option_value(name, str(text))
        try:
            self.ruleset = rules.make_ruleset(preset, **overrides)
        except rules.RuleError as e:
            self.add_error(f"rule_{e.field}" if e.field in rules.OPTION_NAMES else None, e.message)
            return data
        if any(seat in self.errors for seat in self.SEATS):
            return data  # a seat's own error says it; counting the others would only confuse
        names = self.names()
        if not names:
            self.add_error("seat_0", NO_PLAYERS)
            return data
        dealer = data.get("dealer")
        if dealer == "random":
            first = random.choice(names)
        else:
            first = self.seat_names()[int(dealer)] if dealer else ""
        if not first:
            if "dealer" not in self.errors:
                self.add_error("dealer", PICK_DEALER)
            return data
        try:
            rules.check_table(self.ruleset, names, first)
            rules.check_people(names)
        except rules.RuleError as e:
            self.add_error("dealer" if e.field == "first_dealer" else None, e.message)
            return data
        self.players, self.first_dealer = names, first
        preset_stakes = rules.PRESETS[preset].stakes
        cents = {
            k: data[k] if data.get(k) is not None else getattr(preset_stakes, k)
            for k in self.STAKES
        }
        stakes = rules.Stakes(**cents, currency=data.get("currency") or "USD")
        try:
            check_money(self.ruleset, stakes)
        except rules.RuleError as e:
            self.add_error(e.field if e.field in self.STAKES else None, e.message)
            return data
        self.stakes = stakes
        return data


@functools.lru_cache(maxsize=512)
def _tricks_field(player: str, counts: tuple[int, ...]) -> forms.TypedChoiceField:
    """A player's tricks, one of `counts`. Nothing changes such a field once it is made, so
    one serves every form that asks it (making four of them was a tenth of a check)."""
    wrong = f"{player}'s tricks must be a whole number from {counts[0]} to {counts[-1]}."
    return forms.TypedChoiceField(
        label=f"{player}'s tricks",
        choices=[(n, str(n)) for n in counts],
        coerce=int,
        empty_value=None,
        required=False,
        widget=forms.RadioSelect,
        error_messages={"invalid_choice": wrong},
    )


def key_field() -> forms.RegexField:
    """The key a phone gives a hand it sends (#35 §3): its own id for it, so that a resend is
    stored once. Optional; anything but letters, digits, - and _ is refused in words."""
    return forms.RegexField(
        regex=rf"^[A-Za-z0-9_-]{{1,{KEY_LENGTH}}}\Z",
        required=False,
        max_length=KEY_LENGTH,
        error_messages={"invalid": words.BAD_KEY, "max_length": words.BAD_KEY},
    )


def read_key(data: Mapping[str, Any]) -> str | None:
    """The hand's key as sent, or None where there is none or it is not one."""
    try:
        key: str = key_field().clean(data.get("key", ""))
        return key or None
    except forms.ValidationError:
        return None


class PlayerRow(TypedDict):
    """A seat's row of the hand form (`HandForm.players`)."""

    seat: int
    name: str
    field: str
    dropped: bool
    plays: bool
    tricks: int | None
    filled: bool
    must_play: str | None
    why: str | None
    score: int


class TricksTold(TypedDict):
    """How far a hand's tricks have been given (`HandForm.tricks_told`)."""

    left: int
    blank: list[str]
    words: str


class PreviewLine(TypedDict):
    """A player's change of score were the hand saved (`HandForm.preview`), and why: "dropped",
    "redeal", "set", "no trick" or ""."""

    name: str
    change: int | None
    note: str


class WriteForm(forms.Form):
    """What every write to a match carries: the hand it is about, and the version of the
    match its page was drawn from (hidden inputs)."""

    number = forms.IntegerField(widget=forms.HiddenInput, min_value=1, max_value=MAX_HANDS + 1)
    version = forms.IntegerField(widget=forms.HiddenInput, min_value=0)

    def read(self) -> tuple[int | None, int | None]:
        """(number, version), None for either one missing or not a number."""
        self.is_valid()
        return self.cleaned_data.get("number"), self.cleaned_data.get("version")


class HandForm(WriteForm):
    """One hand. It asks what the engine's HandShape asks for the answers so far, and shows
    what the engine says of them; it knows no rule of its own.

    While the hand is being filled in (`checking`), the form is drawn again from the answers:
    an answer to a question no longer asked (a maker tapped before a turned club) is
    forgotten, a dropped player's row of tricks goes, and the rows the others fix are filled
    in, all of it on the page the player then sees. A Save sends exactly what it holds to the
    engine, which refuses what does not fit: it fills in nothing, so nothing is stored that
    the player did not see.
    """

    upcard = forms.ChoiceField(label="Upcard", choices=SUIT_CHOICES, widget=forms.RadioSelect)
    maker = forms.ChoiceField(label="Who made trump?", required=False, widget=forms.RadioSelect)
    trump = forms.ChoiceField(
        label="Trump", required=False, choices=SUIT_CHOICES, widget=forms.RadioSelect
    )
    bid = forms.TypedChoiceField(
        label="Bid",
        required=False,
        coerce=int,
        empty_value=None,
        widget=forms.RadioSelect,
        error_messages={"invalid_choice": "That bid is not one of the bids shown."},
    )
    # One tap, asked only where the maker may declare it (HandShape.moon).
    moon = forms.BooleanField(label="Shoot the moon?", required=False)
    dropped = forms.MultipleChoiceField(
        label="Dropped out", required=False, widget=forms.CheckboxSelectMultiple
    )
    key = key_field()

    def __init__(
        self, state: rules.MatchState, *args: Any, checking: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.state = state
        self.checking = checking  # True while the hand is being filled in, not yet saved
        # Seats, not names, so that no name can be mistaken for "everybody passed".
        seats = [(str(i), p) for i, p in enumerate(state.players)]
        choice_field(self, "maker").choices = seats + [(PASS, "Everybody passed")]
        choice_field(self, "dropped").choices = [(p, p) for p in state.players]
        self.shape = self._shape()
        if self.shape is None:
            return  # the upcard's own error says what to do first
        if self.is_bound and checking:
            self.data = self._forget_unasked()
        bid = choice_field(self, "bid")
        bid.choices = [(n, str(n)) for n in self.shape.bids]
        if self.shape.maker and self.shape.bids:  # a bid not shown: whose, and which there are
            low, high = min(self.shape.bids), max(self.shape.bids)
            bid.error_messages["invalid_choice"] = (
                f"{self.shape.maker}'s bid is {low} to {high} tricks: tap one of those."
            )
        counts = tuple(self.shape.trick_counts)
        for i, p in enumerate(state.players):
            self.fields[f"t{i}"] = _tricks_field(p, counts)

    # --- the answers so far, read before the form is cleaned -------------------------------

    def _raw(self, name: str) -> str | None:
        if self.is_bound:
            return self.data.get(name) or None
        value = self.initial.get(name)
        return None if value is None else str(value)

    def _raw_list(self, name: str) -> list[str]:
        if self.is_bound:
            return self.data.getlist(name) if hasattr(self.data, "getlist") else []
        return list(self.initial.get(name) or [])

    def _seat_name(self, seat: object) -> str | None:
        return {str(i): p for i, p in enumerate(self.state.players)}.get(str(seat))

    def _shape(self) -> rules.HandShape | None:
        upcard = self._raw("upcard")
        if upcard not in rules.SUITS:
            return None
        maker = self._raw("maker")
        return self.state.shape(upcard, self._seat_name(maker), passed=maker == PASS)

    def asks(self, question: str) -> bool:
        return self.shape is not None and question in self.shape.asks

    def _forget_unasked(self) -> QueryDict | dict[str, Any]:
        """The answers, less those to questions the engine no longer asks (a maker tapped
        before a turned club). A player who must play but is ticked as dropped stays ticked:
        the engine says why they can't drop out, as it will on a Save."""
        # A bound form's data: a request's QueryDict, or a dict (the stubs say only Mapping).
        data = cast("QueryDict | dict[str, Any]", self.data).copy()
        questions = (rules.ASK_MAKER, rules.ASK_TRUMP, rules.ASK_BID, rules.ASK_MOON)
        for question in (*questions, rules.ASK_DROPPED):
            if not self.asks(question) and question in data:
                del data[question]
        return data

    @property
    def trump_choice(self) -> str | None:
        """The trump tile to show chosen: the one tapped, or the engine's default."""
        assert self.shape is not None  # drawn only once the upcard is known
        trump = self._raw("trump")
        return trump if trump in rules.SUITS else self.shape.default_trump

    def _dropped(self) -> tuple[str, ...]:
        values = self._raw_list("dropped")
        return tuple(p for p in self.state.players if p in values)

    def _tricks(self, i: int, suffix: str = "") -> int | None:
        try:
            tricks: int | None = self.fields[f"t{i}"].clean(self._raw(f"t{i}{suffix}"))
            return tricks
        except forms.ValidationError:
            return None  # the field's own error says so

    def players(self) -> list[PlayerRow]:
        """One row a seat: name, field, whether they dropped or play, their tricks (None until
        told, or until the others' tricks fix them), whether the engine filled them in, and
        why they must play, if they must (the engine's sentence, `why`)."""
        if not hasattr(self, "_rows"):
            self._rows = list(self._make_rows())
        return self._rows

    def _make_rows(self) -> Iterator[PlayerRow]:
        shape = self.shape
        if shape is None:
            return
        dropped = self._dropped()
        counts = {p: self._tricks(i) for i, p in enumerate(self.state.players)}
        told: dict[str, int | None] = {}
        if self.asks(rules.ASK_TRICKS):
            told = {p: n for p, n in counts.items() if p not in dropped}
        filled: set[str] = set()
        if self.checking:
            # The page that answers a check shows what the others fix: the player sees it. A
            # row filled in here follows the others until the player taps it: the page sends
            # back what it was filled in with ("t0_filled"), and while it still holds that, it
            # counts as empty again. The browser has no copy of the rule; it shows this page.
            seat = {p: i for i, p in enumerate(self.state.players)}
            sent = {
                p: None if n == self._tricks(seat[p], "_filled") else n for p, n in told.items()
            }
            told = shape.fill_in(sent) if sent else {}
            filled = {p for p, n in told.items() if n != sent[p]}
        else:
            # A Save (and the page that refuses it) holds every count it was sent, a dropped
            # player's too, and guesses none.
            told = {p: n for p, n in counts.items() if p in told or n is not None}
        for i, p in enumerate(self.state.players):
            yield {
                "seat": i,
                "name": p,
                "field": f"t{i}",
                "dropped": p in dropped,
                "plays": p in told,
                "tricks": told.get(p),
                "filled": p in filled,
                "must_play": shape.must_play.get(p),
                "why": rules.why_must_play(self.state, shape, p),
                "score": self.state.shown(p),
            }

    def _sent_tricks(self) -> dict[str, int]:
        """The tricks the form gives the engine: those its rows hold."""
        rows = self.players()
        return {r["name"]: r["tricks"] for r in rows if r["plays"] and r["tricks"] is not None}

    def tricks_told(self) -> TricksTold:
        """How far the tricks have been given: how many are left, who has none yet, and that
        in words."""
        assert self.shape is not None  # asked only once the upcard is known
        rows = [r for r in self.players() if r["plays"]]
        given = sum(r["tricks"] for r in rows if r["tricks"] is not None)
        left = self.shape.tricks - given
        blank = [r["name"] for r in rows if r["tricks"] is None]
        return {
            "left": left,
            "blank": blank,
            "words": words.tricks_given(left, self.shape.tricks, bool(blank)),
        }

    # --- checking -------------------------------------------------------------------------

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        assert data is not None  # Form.clean answers cleaned_data
        shape = self.shape
        if self.errors or shape is None:
            return data
        if shape.redeal:
            hand = rules.Hand(
                data["upcard"],
                passed=True,
                dropped=self._dropped(),
                tricks=self._sent_tricks(),
                moon=bool(data.get("moon")),
            )
            return self._score(data, hand)
        # The next question not yet answered, in the order the engine asks them; those of the
        # tricks and the moon the engine's own refusals put (`_score`).
        asked = shape.next_question(data.get("bid"), False, {})
        if asked and asked[0] in ("maker", "bid"):
            self.add_error(asked[0], words.question(asked))
            return data
        trump: str | None
        if shape.passed:
            trump = rules.NO_TRUMP
        elif self.asks(rules.ASK_TRUMP):
            trump = data.get("trump") or shape.default_trump
        else:
            trump = None  # the rules give it (a turned automatic suit)
        hand = rules.Hand(
            upcard=data["upcard"],
            trump=trump,
            maker=self._seat_name(data.get("maker")),
            bid=data.get("bid"),
            dropped=self._dropped(),
            tricks=self._sent_tricks(),
            moon=bool(data.get("moon")),
        )
        return self._score(data, hand)

    def _score(self, data: dict[str, Any], hand: rules.Hand) -> dict[str, Any]:
        try:
            _, self.result = rules.play(self.state, hand)
        except rules.RuleError as e:
            asked = ("upcard", "maker", "trump", "bid", "moon", "dropped")
            field = e.field if e.field in asked else None
            self.add_error(field, self._words_for_blanks(e) or e.message)
            return data
        self.hand = hand
        return data

    def _words_for_blanks(self, error: rules.RuleError) -> str | None:
        """Rows of tricks left empty, asked for as taps. The engine finds them in its own
        order (the trump and the drops first, as a table answers), so a check and a Save
        say the same; its words, "missing from the hand", are the match file's."""
        told = self.tricks_told() if self.asks(rules.ASK_TRICKS) else None
        if not (told and told["blank"] and (error.code, error.field) == ("seat_count", "tricks")):
            return None
        assert self.shape is not None  # it asks for tricks
        rows = {r["name"]: r["tricks"] for r in self.players() if r["plays"]}
        asked = self.shape.next_question(self.cleaned_data.get("bid"), False, rows)
        return None if asked is None else words.question(asked)

    def preview(self) -> list[PreviewLine]:
        """Each player's change of score if this (valid) hand is saved, and why."""
        result = self.result
        out: list[PreviewLine] = []
        for p in self.state.players:
            if p in result.hand.dropped:
                note = "dropped"
            elif result.hand.passed:
                note = "redeal"
            elif p in result.set:
                note = "set"
            elif p in result.euchred:
                note = "no trick"
            else:
                note = ""
            out.append({"name": p, "change": result.changes[p], "note": note})
        return out

    @classmethod
    def initial_for(
        cls, hand: rules.Hand, players: Sequence[str], number: int
    ) -> dict[str, object]:
        """The form's values for a stored hand, for editing it."""
        maker: str | None
        if hand.passed or hand.trump == rules.NO_TRUMP:
            maker = PASS
        else:
            maker = str(players.index(hand.maker)) if hand.maker else None
        initial: dict[str, object] = {
            "number": number,
            "upcard": hand.upcard,
            "maker": maker,
            "trump": hand.trump if hand.trump in rules.SUITS else None,
            "bid": hand.bid,
            "moon": hand.moon,
            "dropped": list(hand.dropped),
        }
        for i, p in enumerate(players):
            initial[f"t{i}"] = hand.tricks.get(p)
        return initial
