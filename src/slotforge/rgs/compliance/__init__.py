"""What regulators, auditors and test labs ask of a live server: exports, the change log, the
integrity of what plays, dispute links and the erasure of a player's personal data
(docs/compliance.md)."""
