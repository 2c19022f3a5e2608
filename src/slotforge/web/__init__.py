"""The browser client, built from ``web/`` in the repository (``npm ci && npm run build``) into
``dist/``, which ships inside the package so that players and operators need no Node."""
