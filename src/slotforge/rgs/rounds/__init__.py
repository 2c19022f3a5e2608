"""A round's path: the round service (:class:`~slotforge.rgs.rounds.service.Server`) and its
general path, the straight transaction of a plain round, the claims on idempotency keys, each
operator's lane, the gamble cap, and voiding a completed round."""
