"""The designer's tools: RTP versions found by a search over what the rules leave free
(:mod:`.designers`, :mod:`.search`, :mod:`.run`) and certified (:mod:`.certify`)."""
