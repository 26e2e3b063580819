"""Algorithms behind the ``Algorithm`` interface: EGP-TS/EI (``egp.py``), BORE/BORE++
(``bore.py``), distributed Thompson sampling (``distributed.py``) and DEC-HBO (``dec_hbo.py``)."""
