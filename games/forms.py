"""Forms for a new match and for a hand. Every rule is asked of rules.py, never re-encoded."""

from __future__ import annotations

import random

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm

from games import rules
from games.checks import password_reset_on
from games.models import MAX_HANDS, PRESET_CHOICES, Suit
from games.templatetags.games import money

PASS = "pass"
PICK_DEALER = "Pick who deals first: a seat with a player in it."
MAX_STAKE = 999_999
NO_OVERRIDE = ""
DECK = [(rank, suit) for suit in rules.SUITS for rank in ("9", "10", "J", "Q", "K", "A")]
SUIT_SYMBOLS = {"clubs": "♣", "diamonds": "♦", "hearts": "♥", "spades": "♠"}

# Plain words for the house-rules choices.
CHOICE_WORDS = {
    "auto_trump": [(s, f"{SUIT_SYMBOLS[s]} {s.title()}") for s in rules.SUITS] + [("null", "None")],
    "bidding": [(rules.ORDER_UP, "Order up"), (rules.TRICK_BIDDING, "Bid tricks")],
    "all_pass": [(rules.NO_TRUMP_HAND, "Play with no trump"), (rules.REDEAL, "Redeal")],
    "ties": [
        ("lowest", "Lowest score wins"),
        ("share", "All at or below 0 share"),
        ("play_on", "Play on until one is lowest"),
    ],
    "players": [("3", "3"), ("4", "4"), ("3,4", "3 or 4")],
    "auto_trump_dealer_needs": [("null", "No maker: all need 1")]
    + [(str(n), f"Dealer makes it, needs {n}") for n in range(1, rules.TRICKS + 1)],
    "no_drop_at_or_below": [("null", "Anyone may drop")]
    + [(str(n), f"{n} or below must play") for n in range(0, 21)],
    # RULES.md §4: a table may play without sets; the maker then just counts tricks.
    "set_penalty": [(str(n), f"+{n}") for n in range(0, 26)] + [("null", "Just counts tricks")],
    "sweep_wins": [("true", "Yes"), ("false", "No")],
    "lone_maker_sweeps": [("true", "Yes"), ("false", "No")],
}
OPTION_LABELS = {
    "starting_score": "Starting score",
    "players": "Players",
    "auto_trump": "Suit that is trump when turned",
    "auto_trump_dealer_needs": "When that suit is turned",
    "bidding": "Making trump",
    "maker_needs": "Tricks a maker needs",
    "min_bid": "Lowest bid",
    "all_pass": "When everybody passes",
    "no_drop_at_or_below": "Low scores must play",
    "set_penalty": "A maker who falls short",
    "zero_trick_penalty": "Points for taking no trick",
    "sweep_wins": "All five tricks wins the match",
    "lone_maker_sweeps": "…even for a maker everyone left alone",
    "ties": "Several at or below 0",
}
WORD_OPTIONS = {"auto_trump", "bidding", "all_pass", "ties"}
BOOL_OPTIONS = {"sweep_wins", "lone_maker_sweeps"}


def _option_value(name: str, text: str):
    """A house-rules field's text as the option value rules.py expects."""
    if text == "null":
        return None
    if name == "players":
        return [int(n) for n in text.split(",")]
    if name in BOOL_OPTIONS:
        return text == "true"
    return text if name in WORD_OPTIONS else int(text)


def _option_text(name: str, value) -> str:
    """An option's value as its house-rules field writes it."""
    if value is None:
        return "null"
    if name == "players":
        return ",".join(str(n) for n in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def house_rules_words(preset: str, ruleset: rules.Ruleset) -> list[str]:
    """The table's changes to a preset, as the house-rules form words them."""
    return [
        f"{OPTION_LABELS[name]}: {_option_words(name, value)}"
        for name, value in rules.ruleset_overrides(preset, ruleset).items()
    ]


def _option_words(name: str, value) -> str:
    if name == "set_penalty" and value is not None:
        return f"+{value}"  # as the form's choices word it, even beyond them
    text = _option_text(name, value)
    return dict(CHOICE_WORDS.get(name, [])).get(text, text)


EMAIL_HELP = "Only for a mail to reset a forgotten password."


class SignupForm(UserCreationForm):
    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")
        help_texts = {"email": EMAIL_HELP}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not password_reset_on():
            del self.fields["email"]


class EmailForm(forms.ModelForm):
    class Meta:
        model = get_user_model()
        fields = ("email",)
        help_texts = {"email": EMAIL_HELP}


class CentsField(forms.CharField):
    """An amount of money typed as "1.50", cleaned to whole cents the way the match file reads
    it (rules.parse_money): the engine and the database count in cents."""

    default_error_messages = {
        "invalid": "Enter an amount such as 1.50: no sign, at most two decimal places.",
        "too_big": f"Stakes must be under {MAX_STAKE + 1:,}.",
    }

    def to_python(self, value) -> int | None:
        text = super().to_python(value)
        if not text:
            return None
        try:
            cents = rules.parse_money(text)
        except ValueError:
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid") from None
        if cents > MAX_STAKE * 100:
            raise forms.ValidationError(self.error_messages["too_big"], code="too_big")
        return cents


class MatchForm(forms.Form):
    """A new match: preset, house rules, seats, stakes and the first dealer.

    House-rules and stakes fields left blank follow the preset, so changing the preset never
    leaves stale values behind.
    """

    preset = forms.ChoiceField(choices=PRESET_CHOICES, widget=forms.RadioSelect, initial="standard")
    seat_0 = forms.CharField(label="Seat 1", max_length=40, required=False)
    seat_1 = forms.CharField(label="Seat 2", max_length=40, required=False)
    seat_2 = forms.CharField(label="Seat 3", max_length=40, required=False)
    seat_3 = forms.CharField(label="Seat 4", max_length=40, required=False)
    dealer = forms.ChoiceField(
        label="First dealer",
        choices=[
            ("0", "Seat 1"),
            ("1", "Seat 2"),
            ("2", "Seat 3"),
            ("3", "Seat 4"),
            ("random", "Pick at random"),
        ],
        widget=forms.RadioSelect,
        initial="random",
        error_messages={"invalid_choice": PICK_DEALER, "required": PICK_DEALER},
    )
    per_game = CentsField(label="A game", required=False)
    per_point = CentsField(label="A point", required=False)
    per_set = CentsField(label="A set", required=False)
    currency = forms.CharField(max_length=16, required=False, initial="USD")

    SEATS = ("seat_0", "seat_1", "seat_2", "seat_3")
    STAKES = ("per_game", "per_point", "per_set")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        names = [(self.data.get(s) or "").strip() for s in self.SEATS]
        self.fields["dealer"].choices = [
            (str(i), name or f"Seat {i + 1}") for i, name in enumerate(names)
        ] + [("random", "Pick at random")]
        for name in rules.OPTION_NAMES:
            label = OPTION_LABELS[name]
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
        name = self.data.get("preset") if self.is_bound else None
        return rules.PRESETS.get(name) or rules.PRESETS[self.fields["preset"].initial]

    def rule_fields(self):
        """(bound field, the preset's own value as text) for every option."""
        preset = self.chosen_preset.ruleset
        for name in rules.OPTION_NAMES:
            value = getattr(preset, name)
            shown = dict(CHOICE_WORDS.get(name, [])).get(_option_text(name, value))
            yield self[f"rule_{name}"], shown or ("none" if value is None else value)

    def dealer_choices(self):
        """(radio, hidden?) for each dealer choice: empty seats hide once any name is typed."""
        names = self.seat_names()
        for radio in self["dealer"]:
            seat = radio.data["value"]
            yield radio, seat.isdigit() and any(names) and not names[int(seat)]

    def seat_fields(self):
        return [self[s] for s in self.SEATS]

    @property
    def house_rules_open(self) -> bool:
        return any(self.data.get(f"rule_{n}") for n in rules.OPTION_NAMES) or any(
            k.startswith("rule_") for k in self.errors
        )

    def stake_fields(self):
        stakes = self.chosen_preset.stakes
        for name in self.STAKES:
            yield self[name], rules.format_money(getattr(stakes, name))

    def seat_names(self) -> list[str]:
        """The four seats' names as typed, "" for an empty seat."""
        data = self.cleaned_data if hasattr(self, "cleaned_data") else self.data
        return [(data.get(s) or "").strip() for s in self.SEATS]

    def names(self) -> list[str]:
        """The players, clockwise, empty seats left out."""
        return [name for name in self.seat_names() if name]

    def clean(self):
        data = super().clean()
        preset = data.get("preset")
        if not preset:
            return data
        overrides = {}
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
        dealer = data.get("dealer")
        if dealer == "random":
            first = random.choice(names) if names else ""
        else:
            first = self.seat_names()[int(dealer)] if dealer else ""
        if not first:
            if "dealer" not in self.errors:
                self.add_error("dealer", PICK_DEALER)
            return data
        try:
            rules.check_table(self.ruleset, names, first)
        except rules.RuleError as e:
            self.add_error("dealer" if e.field == "first_dealer" else None, e.message)
            return data
        self.players, self.first_dealer = names, first
        preset_stakes = rules.PRESETS[preset].stakes
        cents = {
            k: data[k] if data.get(k) is not None else getattr(preset_stakes, k)
            for k in self.STAKES
        }
        self.stakes = rules.Stakes(**cents, currency=data.get("currency") or "USD")
        return data


def deal_for_jack(names: list[str], rnd: random.Random | None = None):
    """Deal a shuffled Euchre deck face up, one card a seat in turn, until a Jack falls."""
    deck = list(DECK)
    (rnd or random).shuffle(deck)
    dealt = []
    for i, (rank, suit) in enumerate(deck):
        seat = i % len(names)
        dealt.append((seat, names[seat], rank, SUIT_SYMBOLS[suit], suit))
        if rank == "J":
            return dealt, names[seat]
    raise AssertionError("a Euchre deck always holds a Jack")


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
    """One hand. The fields shown follow the engine's HandShape for the chosen upcard."""

    checking = False  # True while the hand is being filled in, not yet saved

    upcard = forms.ChoiceField(label="Upcard", choices=Suit.choices, widget=forms.RadioSelect)
    maker = forms.ChoiceField(label="Who made trump?", required=False, widget=forms.RadioSelect)
    trump = forms.ChoiceField(
        label="Trump", required=False, choices=Suit.choices, widget=forms.RadioSelect
    )
    bid = forms.TypedChoiceField(
        label="Bid", required=False, coerce=int, empty_value=None, widget=forms.RadioSelect
    )
    dropped = forms.MultipleChoiceField(
        label="Dropped out", required=False, widget=forms.CheckboxSelectMultiple
    )

    def __init__(self, state: rules.MatchState, *args, step: str | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.state = state
        players = [(p, p) for p in state.players]
        # Seats, not names, so that no name can be mistaken for "everybody passed".
        seats = [(str(i), p) for i, p in enumerate(state.players)]
        self.fields["maker"].choices = seats + [(PASS, "Everybody passed")]
        self.fields["dropped"].choices = players
        self.fields["bid"].choices = [(n, str(n)) for n in range(1, rules.TRICKS + 1)]
        for i, p in enumerate(state.players):
            self.fields[f"t{i}"] = forms.IntegerField(
                label=f"{p}'s tricks",
                min_value=0,
                max_value=rules.TRICKS,
                initial=0,
                required=False,
                error_messages={
                    "invalid": f"{p}'s tricks must be a whole number from 0 to 5.",
                    "min_value": f"{p}'s tricks must be a whole number from 0 to 5.",
                    "max_value": f"{p}'s tricks must be a whole number from 0 to 5.",
                },
            )
        if self.is_bound and step:
            self._apply_step(step)

    def _apply_step(self, step: str):
        """A tap on a +/- stepper: `"2:+1"` adds a trick to seat 2."""
        seat, _, delta = step.partition(":")
        key = f"t{seat}"
        if key not in self.fields or delta not in ("+1", "-1"):
            return
        self.data = self.data.copy()
        try:
            now = int(self.data.get(key) or 0)
        except ValueError:
            now = 0
        self.data[key] = str(min(rules.TRICKS, max(0, now + int(delta))))

    # --- what the form shows, all from the engine's HandShape -----------------------------

    def _value(self, name):
        if self.is_bound:
            return self.data.get(name) or None
        return self.initial.get(name)

    @property
    def shape(self) -> rules.HandShape | None:
        upcard = self._value("upcard")
        return self.state.shape(upcard) if upcard in rules.SUITS else None

    @property
    def maker_name(self) -> str | None:
        shape = self.shape
        if shape and shape.automatic:
            return shape.maker
        return self._seat_name(self._value("maker"))

    def _seat_name(self, seat) -> str | None:
        return {str(i): p for i, p in enumerate(self.state.players)}.get(str(seat))

    @property
    def everybody_passed(self) -> bool:
        return self._value("maker") == PASS

    def dropped_names(self) -> list[str]:
        values = self.data.getlist("dropped") if self.is_bound else self.initial.get("dropped", [])
        return [p for p in self.state.players if p in values and p != self.maker_name]

    def must_play(self) -> dict[str, str]:
        """Who may not drop out, and why, as the engine sees this hand so far."""
        shape = self.shape
        if shape is None:
            return {}
        reasons = {}
        if shape.automatic:
            return dict.fromkeys(self.state.players, "turned " + shape.upcard)
        if self.everybody_passed:
            return dict.fromkeys(self.state.players, "no trump")
        for p in shape.must_play:
            reasons[p] = f"at {self.state.scores[p]}"
        if self.maker_name:
            reasons[self.maker_name] = "maker"
        return reasons

    def players(self) -> list[dict]:
        """One row a seat: name, whether dropped, tricks, why they must play, field name."""
        return list(self._rows())

    def _rows(self):
        dropped = set(self.dropped_names())
        must = self.must_play()
        lone = (
            self.maker_name
            if self.maker_name and len(dropped) == len(self.state.players) - 1
            else None
        )
        for i, p in enumerate(self.state.players):
            try:
                tricks = rules.TRICKS if lone == p else int(self._value(f"t{i}") or 0)
            except ValueError:
                tricks = 0  # the field's own error says so
            yield {
                "seat": i,
                "name": p,
                "dropped": p in dropped,
                "tricks": tricks,
                "must_play": must.get(p),
                "field": f"t{i}",
            }

    def tricks_left(self) -> int:
        return rules.TRICKS - sum(r["tricks"] for r in self.players() if not r["dropped"])

    # --- checking -------------------------------------------------------------------------

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        shape = self.state.shape(data["upcard"])
        players = self.state.players
        everybody_passed = data.get("maker") == PASS
        maker = self._seat_name(data.get("maker"))
        rows = {r["name"]: r for r in self.players()}
        if everybody_passed and shape.all_pass == rules.REDEAL:
            hand = rules.Hand(data["upcard"], passed=True)
        else:
            if everybody_passed:
                trump = rules.NO_TRUMP
            elif shape.automatic:
                trump = None
            else:
                trump = data.get("trump") or data["upcard"]
            dropped = tuple(p for p in players if p in data.get("dropped", []))
            hand = rules.Hand(
                upcard=data["upcard"],
                trump=trump,
                maker=maker,
                bid=data.get("bid"),
                dropped=dropped,
                tricks={p: rows[p]["tricks"] for p in players if p not in dropped},
            )
        try:
            rules.check_hand(self.state, hand)
        except rules.RuleError as e:
            field = e.field if e.field in ("upcard", "maker", "trump", "bid", "dropped") else None
            self.add_error(field, e.message)
            return data
        self.hand = hand
        return data

    def preview(self) -> list[dict]:
        """Each player's change of score if this (valid) hand is saved."""
        changes = rules.score_hand(self.state, self.hand)
        maker, _ = rules.maker_of(self.state, self.hand)
        set_maker = rules.maker_was_set(self.state, self.hand)
        out = []
        for p in self.state.players:
            took = self.hand.tricks.get(p)
            if p in self.hand.dropped:
                note = "dropped"
            elif self.hand.passed:
                note = "redeal"
            elif p == maker and set_maker:
                note = "set"
            elif took == 0:
                note = "no trick"
            else:
                note = ""
            out.append({"name": p, "change": changes[p], "note": note})
        return out

    @classmethod
    def initial_for(cls, hand: rules.Hand, players, number: int) -> dict:
        """The form's values for a stored hand, for editing it."""
        if hand.passed or hand.trump == rules.NO_TRUMP:
            maker = PASS
        else:
            maker = str(players.index(hand.maker)) if hand.maker else None
        initial = {
            "number": number,
            "upcard": hand.upcard,
            "maker": maker,
            "trump": hand.trump if hand.trump in rules.SUITS else None,
            "bid": hand.bid,
            "dropped": list(hand.dropped),
        }
        for i, p in enumerate(players):
            initial[f"t{i}"] = hand.tricks.get(p, 0)
        return initial


def stakes_text(stakes: rules.Stakes) -> str:
    """ "$1.00 a game, $0.10 a point", or "no stakes"."""
    parts = [
        f"{money(getattr(stakes, k), stakes.currency)} {word}"
        for k, word in (("per_game", "a game"), ("per_point", "a point"), ("per_set", "a set"))
        if getattr(stakes, k)
    ]
    return ", ".join(parts) if parts else "no stakes"
