"""Test doubles of core algorithms that record the observations of every call."""


class NotModelling:
    """An algorithm that does not model constraints (no ``models_constraints``, as any algorithm
    written without them): random points, and the observations of every call recorded."""

    def __init__(self):
        self.seen = []

    def suggest(self, space, obs, n, rng):
        self.seen.append(obs)
        return rng.random((n, space.dim))


class Recorder(NotModelling):
    """The same, for an algorithm that models constraints."""

    models_constraints = True
