"""The operator's back office: reports, look-ups and actions over one operator's players and
rounds (the Operator API's ``/v1/operator/...`` routes and the ``/operator`` page read them).

Every query here takes the operator's id and reaches rounds only through that operator's players:
one operator's key never sees another's figures."""
