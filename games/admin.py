"""The admin edits every model; hand edits are replayed through the rules engine first."""

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError

from games import rules
from games.models import Hand, Match, Play, Player, Seat


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "created"]
    list_filter = ["owner"]
    search_fields = ["name"]


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ["__str__", "owner", "preset", "created", "finished"]
    list_filter = ["preset", "owner"]
    inlines = [SeatInline]
    readonly_fields = ["created", "updated", "finished"]


class PlayFormSet(forms.BaseInlineFormSet):
    def clean(self):
        """Replay the whole match with this hand as edited; refuse what breaks any hand."""
        super().clean()
        if any(self.errors):
            return
        hand = self.instance
        plays = [
            f.cleaned_data
            for f in self.forms
            if f.cleaned_data and not f.cleaned_data.get("DELETE")
        ]
        edited = rules.Hand(
            upcard=hand.upcard,
            trump=hand.trump or None,
            maker=hand.maker.name if hand.maker else None,
            bid=hand.bid,
            dropped=tuple(p["player"].name for p in plays if p["dropped"]),
            tricks={p["player"].name: p["tricks"] for p in plays if not p["dropped"]},
            passed=hand.passed,
        )
        match = hand.match
        hands = match.game_hands()
        hands[hand.number - 1 : hand.number] = [edited]
        try:
            match.replay(hands)
        except rules.RuleError as e:
            raise ValidationError(f"Hand {e.hand}: {e.message}") from e


class PlayInline(admin.TabularInline):
    model = Play
    formset = PlayFormSet
    extra = 0


@admin.register(Hand)
class HandAdmin(admin.ModelAdmin):
    list_display = ["__str__", "match", "upcard", "trump", "maker", "passed"]
    list_filter = ["upcard", "passed"]
    inlines = [PlayInline]
    raw_id_fields = ["match"]

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        match = form.instance.match
        match.record(match.game_hands())  # the edit may have ended or re-opened the match
