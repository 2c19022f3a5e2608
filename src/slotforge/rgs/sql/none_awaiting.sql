CREATE OR REPLACE FUNCTION slotforge_none_awaiting()
RETURNS trigger
LANGUAGE plpgsql VOLATILE AS $$
-- The rule that a player has no second round of a game while a round of that game awaits a
-- decision, held by the rounds table itself: the function of its two triggers (migration
-- 0022), one before a round is inserted (whatever its status), one before a pending round (a
-- seamless wallet's placeholder) is played (turned awaiting or complete). Every path that
-- writes a round meets it, and no statement or function of a round states the rule again.
--
-- Raises SQLSTATE SF001 when a round of NEW's player and game awaits a decision, which undoes
-- the statement and, in the server's calls of slotforge_play_round, slotforge_hold_debit and
-- slotforge_settle_at_wallet, the whole call: the server reads it as their other refusals.
--
-- Snapshots: the function is volatile, so its query is a statement of its own with a fresh
-- snapshot (READ COMMITTED), taken when the trigger fires: after the player's row lock that
-- each round's transaction takes before it writes the round (in slotforge_play_round, the
-- update of the player before the insert). So the look-up sees a round left awaiting by a
-- request of the player's that committed while this one waited for that lock (two writers
-- that took no such lock could each miss the other's uncommitted round; the server's paths
-- all take it). It also sees the rows that the same statement inserted before NEW. The
-- look-up reads the partial index ix_rounds_awaiting.
BEGIN
    PERFORM FROM rounds WHERE player_id = NEW.player_id AND game = NEW.game AND status = 'awaiting';
    IF FOUND THEN
        RAISE EXCEPTION 'round refused: player % has a round of % awaiting a decision', NEW.player_id, NEW.game
            USING ERRCODE = 'SF001';
    END IF;
    RETURN NEW;
END
$$;
