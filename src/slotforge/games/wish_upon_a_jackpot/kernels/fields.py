"""Wish Upon a Jackpot's packed arrays, each laid out by one field table.

The compiled round reads and writes small int64 arrays by position: the random draws and the
decisions by their id, the simulator's tallies, the model's parameters and the bet's arguments.
Each array's fields are named here once, in order, and every index below is taken from its
table by name, so that no two lists are kept in step by hand; the rules take the draws',
decisions' and strategies' names from the same tables (tests/games/test_wish_upon_a_jackpot.py
checks that every field is named by exactly one index).
"""

from __future__ import annotations

# What the Fairy Tale Bonus reveals (draw "feature") and what a wish brings (draw "wish").
FEATURES = ("deal_maker", "beanstalk", "three_little_pigs", "rapunzel")
DEAL_MAKER, BEANSTALK, PIGS, RAPUNZEL = (FEATURES.index(name) for name in FEATURES)
WISHES = ("puss_in_boots", "pinocchio", "gingerbread_man")
PUSS, PINOCCHIO, GINGERBREAD = (WISHES.index(name) for name in WISHES)
OFFERS = 5  # the Deal Maker's offers; the last is paid

# The random draws, by id (the game's draw_names).
DRAWS = (
    "godmother",
    "wish",
    "puss_cell",
    "pinocchio_wilds",
    "wild_cell",
    "gingerbread_reel",
    "feature",
    "offer",
    "bean",
    "egg",
    "pig",
    "godmother_bonus",
)
DRAW_GODMOTHER = DRAWS.index("godmother")
DRAW_WISH = DRAWS.index("wish")
DRAW_PUSS_CELL = DRAWS.index("puss_cell")
DRAW_PINOCCHIO_WILDS = DRAWS.index("pinocchio_wilds")
DRAW_WILD_CELL = DRAWS.index("wild_cell")
DRAW_GINGERBREAD_REEL = DRAWS.index("gingerbread_reel")
DRAW_FEATURE = DRAWS.index("feature")
DRAW_OFFER = DRAWS.index("offer")
DRAW_BEAN = DRAWS.index("bean")
DRAW_EGG = DRAWS.index("egg")
DRAW_PIG = DRAWS.index("pig")
DRAW_GODMOTHER_BONUS = DRAWS.index("godmother_bonus")

# The player's decisions, by id (the game's decisions, in this order).
DECISIONS = ("storybook", "orb", "bean", "egg", "deal")
DECISION_STORYBOOK = DECISIONS.index("storybook")
DECISION_ORB = DECISIONS.index("orb")
DECISION_BEAN = DECISIONS.index("bean")
DECISION_EGG = DECISIONS.index("egg")
DECISION_DEAL = DECISIONS.index("deal")

# How the simulator answers the Deal Maker (the game's strategies).
STRATEGIES = ("best", "worst", "first", "last")
S_BEST = STRATEGIES.index("best")
S_WORST = STRATEGIES.index("worst")
S_FIRST = STRATEGIES.index("first")
S_LAST = STRATEGIES.index("last")

# The simulator's tallies (win units unless named otherwise).
TALLY = (
    "base_win",
    "wish_win",  # what base spins a wish came in paid
    "godmother",  # every appearance
    "fairy_tale",
    "deal_maker",
    "deal_maker_win",
    "beanstalk",
    "beanstalk_win",
    "three_little_pigs",
    "three_little_pigs_win",
    "rapunzel",
    "rapunzel_win",
    "eggs",
    "pig_spins",
    "pig_wilds",
    "rapunzel_spins",
    *(f"wish_{wish}" for wish in WISHES),
    *(f"deal_taken_{n}" for n in range(1, OFFERS + 1)),
    "godmother_bonus",  # appearances the bonus followed
    "free_wish_win",  # what free spins a wish came in paid (multiplier included)
)
T_BASE_WIN = TALLY.index("base_win")
T_WISH_WIN = TALLY.index("wish_win")
T_GODMOTHER = TALLY.index("godmother")
T_FAIRY_TALE = TALLY.index("fairy_tale")
T_DEAL = TALLY.index("deal_maker")
T_DEAL_WIN = TALLY.index("deal_maker_win")
T_BEANSTALK = TALLY.index("beanstalk")
T_BEANSTALK_WIN = TALLY.index("beanstalk_win")
T_PIGS = TALLY.index("three_little_pigs")
T_PIGS_WIN = TALLY.index("three_little_pigs_win")
T_RAPUNZEL = TALLY.index("rapunzel")
T_RAPUNZEL_WIN = TALLY.index("rapunzel_win")
T_EGGS = TALLY.index("eggs")
T_PIG_SPINS = TALLY.index("pig_spins")
T_PIG_WILDS = TALLY.index("pig_wilds")
T_RAPUNZEL_SPINS = TALLY.index("rapunzel_spins")
T_WISH = TALLY.index(f"wish_{WISHES[0]}")  # + wish: one field per wish, in WISHES order
T_DEAL_TAKEN = TALLY.index("deal_taken_1")  # + offer index: one field per offer
T_GODMOTHER_BONUS = TALLY.index("godmother_bonus")
T_FREE_WISH_WIN = TALLY.index("free_wish_win")
# The indexes that stand for a run of fields, and the run's length.
TALLY_RUNS = {"T_WISH": len(WISHES), "T_DEAL_TAKEN": OFFERS}

# The model's numbers the round reads (params): symbol ids, then rule numbers (prizes in units).
PARAMS = ("wild", "bonus", "prince", "storybooks", "orbs", "beans", "eggs", "pig_spins", "top")
P_WILD = PARAMS.index("wild")
P_BONUS = PARAMS.index("bonus")
P_PRINCE = PARAMS.index("prince")
P_STORYBOOKS = PARAMS.index("storybooks")  # options of each pick
P_ORBS = PARAMS.index("orbs")
P_BEANS = PARAMS.index("beans")
P_EGGS = PARAMS.index("eggs")
P_PIG_SPINS = PARAMS.index("pig_spins")
P_TOP = PARAMS.index("top")  # the top level of Rapunzel's tower

# The bet's arguments of the round function.
BET = ("lines", "total_units")
B_LINES = BET.index("lines")
B_TOTAL_UNITS = BET.index("total_units")
BET_ARGUMENTS = len(BET)

# Each packed array's table and the prefix of its indexes (what the layout test walks).
TABLES = {"DRAW_": DRAWS, "DECISION_": DECISIONS, "S_": STRATEGIES, "T_": TALLY, "P_": PARAMS, "B_": BET}
