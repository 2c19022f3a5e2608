"""The engine every game stands on: models, random numbers, evaluators, rounds and records."""
