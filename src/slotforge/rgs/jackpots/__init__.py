"""Progressive jackpot pools for the server: embedded in its own database, or networked, kept by
a jackpot service that several game servers share."""
