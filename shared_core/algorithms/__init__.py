"""Algorithms behind the ``Algorithm`` interface: EGP-TS/EI (``egp.py``), BORE/BORE++
(``bore.py``), distributed Thompson sampling (``distributed.py``), DEC-HBO (``dec_hbo.py``) and
STO-BNTS (``stobnts.py``)."""
