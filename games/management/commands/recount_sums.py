"""recount_sums [--group ID]: every player's results summed anew (their sums by rules and by
night, and their running totals of money), for a database whose results were changed behind
the app (a shell, plain SQL): the statistics, settle-ups, balances and charts read the sums."""

from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction

from games.management.commands._group import group_named
from games.models import Group, groups_turn, recount_sums


class Command(BaseCommand):
    help = (
        "Sum every player's results anew (by rules, by night, and their running totals), in "
        "every group or in --group ID: after results were changed behind the app."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--group", type=int, metavar="ID", help="only this group's players")

    def handle(self, *args: Any, **options: Any) -> None:
        pk = options["group"]
        groups = [group_named(pk)] if pk is not None else Group.objects.order_by("pk")
        for group in groups:
            with transaction.atomic():
                groups_turn(group.pk)  # no write to the group lands halfway through
                players = list(group.players.values_list("pk", flat=True))
                recount_sums(players)
            self.stdout.write(f"{group} ({group.pk}): {len(players)} players summed anew.")
