"""The reports that stand on the games, by game code: simulation runs, PAR sheets and their
figures and pictures, the RNG report. Nothing below (the engine, the maths core, the games, the
jackpot service, the game server) imports them."""
