"""Optimisers over the encoded search space: the acquisition maximiser
(``acquisition_optimizer.py``), SVGD (``svgd.py``), and max-sum message passing over per-variable
grids (``max_sum.py``, DEC-HBO's maximiser of a sum of factors: decoding and ICM; its factor graph
and messages in ``max_sum_messages.py``)."""
