"""Where a player's money is kept: the internal wallet in the server's own database, the
seamless wallet of an operator reached over HTTP, and a demo of an operator's wallet."""
