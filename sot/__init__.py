"""sot: a bytecode-level JIT tracer for NumPy code."""
__version__ = "0.1.0"
