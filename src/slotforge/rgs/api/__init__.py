"""The server's HTTP face: the player's and the operator's routers, the pages, who is asking
(tokens and keys), the request bodies, and uvicorn's protocols answering in the server's error form."""
