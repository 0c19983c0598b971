"""The stored matches: a thin adapter over the rules (games.rules).

What happened at the table is stored (seats, rules, stakes, hands, each player's part);
scores, dealer, winners and payouts are folded from the hands by the rules engine. The engine's
verdict is stored with the hands, by the writes of `writes.py` and nowhere else, so that a page
need not fold a whole match: each seat's `Result`, and each hand's scores after it.
"""

from __future__ import annotations

from games.models.attempts import Attempt
from games.models.groups import (
    GROUP_NAME_LENGTH,
    INVITE_DAYS,
    Group,
    Invite,
    Membership,
    Removal,
    Role,
    delete_account,
    groups_turn,
    memberships_of,
    new_invite_token,
    row_of,
)
from games.models.hands import (
    SUIT_CHOICES,
    Change,
    Hand,
    Play,
    hand_verdict,
    verdict,
)
from games.models.ledger import PAYMENT_TOO_BIG, FormUsed, Payment, PaymentsChanged
from games.models.matches import GONE as MATCH_GONE
from games.models.matches import (
    HISTORY_SHOWN,
    MAX_HANDS,
    PRESET_CHOICES,
    VERDICT_COLUMNS,
    Match,
    MatchQuerySet,
    Replay,
    Seat,
    check_money,
    check_room,
    new_share_token,
)
from games.models.nights import (
    NIGHT_GAP,
    Night,
    SettleUp,
    group_balances,
    payment_key,
)
from games.models.paying import check_payment, mark_transfer, record_payment, store_payment
from games.models.payways import PayWays
from games.models.players import Player, claim_player
from games.models.results import (
    STAKED,
    TALLY_FIELDS,
    Result,
    ResultSum,
    Summed,
    Tallied,
    stat_sums,
)
from games.models.seasons import Season, Span, Standing, day_start, standings
from games.models.sums import NightSum, NightTransfers, recount_sums, run_totals, running_money
from games.models.writes import (
    Earlier,
    Saved,
    Stale,
    add_hand,
    change_hand,
    create_match,
    delete_match,
    import_match,
    match_from_file,
    move_match,
    record_hands,
    saved_under,
    undo_hand,
)

__all__ = [
    "Attempt",
    "Replay",
    "HISTORY_SHOWN",
    "add_hand",
    "group_balances",
    "change_hand",
    "create_match",
    "delete_match",
    "import_match",
    "match_from_file",
    "move_match",
    "record_hands",
    "saved_under",
    "undo_hand",
    "Change",
    "FormUsed",
    "GROUP_NAME_LENGTH",
    "Group",
    "Hand",
    "INVITE_DAYS",
    "Invite",
    "MATCH_GONE",
    "MAX_HANDS",
    "Match",
    "MatchQuerySet",
    "Membership",
    "NIGHT_GAP",
    "Night",
    "NightSum",
    "NightTransfers",
    "PRESET_CHOICES",
    "PAYMENT_TOO_BIG",
    "PayWays",
    "Payment",
    "PaymentsChanged",
    "Play",
    "Player",
    "Removal",
    "Result",
    "ResultSum",
    "Role",
    "STAKED",
    "SUIT_CHOICES",
    "Season",
    "Seat",
    "Span",
    "Standing",
    "SettleUp",
    "Stale",
    "Saved",
    "Earlier",
    "Summed",
    "TALLY_FIELDS",
    "Tallied",
    "VERDICT_COLUMNS",
    "check_money",
    "check_payment",
    "check_room",
    "claim_player",
    "day_start",
    "delete_account",
    "groups_turn",
    "run_totals",
    "stat_sums",
    "standings",
    "hand_verdict",
    "mark_transfer",
    "memberships_of",
    "new_invite_token",
    "new_share_token",
    "payment_key",
    "record_payment",
    "recount_sums",
    "row_of",
    "running_money",
    "store_payment",
    "verdict",
]
