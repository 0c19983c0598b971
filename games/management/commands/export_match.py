import json

from django.core.management.base import BaseCommand, CommandError

from games import matchfile
from games.models import Match


class Command(BaseCommand):
    help = "Write a stored match as a buck-euchre/1 file on standard output."

    def add_arguments(self, parser):
        parser.add_argument("id", type=int, help="the match's id")

    def handle(self, *args, **options):
        match = Match.objects.with_hands().filter(pk=options["id"]).first()
        if match is None:
            raise CommandError(f"There is no match {options['id']}.")
        self.stdout.write(json.dumps(matchfile.dump(match.to_file()), indent=2, ensure_ascii=False))
