"""Algorithms behind the ``Algorithm`` interface:
EGP-TS/EI (``egp.py``) and BORE/BORE++ (``bore.py``)."""
