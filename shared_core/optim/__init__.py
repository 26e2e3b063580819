"""Optimisers over the encoded search space: the acquisition maximiser and SVGD."""
