"""Test-session settings.

PyTorch runs BORE's tiny 2x32 network. With its default intra-op thread pool (2 threads on the CI
machines) every small op waits on the other thread, and as soon as another process is busy (the
multi-process storage tests, a second test run) each backward pass takes ~25 ms instead of ~0.2 ms,
which made the suite several times slower. Users get the same advice in the README.
"""

try:
    import torch
except ImportError:  # pragma: no cover - torch is in the test extra
    torch = None

if torch is not None:
    torch.set_num_threads(1)
