"""Ax generation strategies of the egp-samplers suite (adapter arrives with issue #3)."""

__all__: list[str] = []
