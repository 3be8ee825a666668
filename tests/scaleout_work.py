"""Functions the multiprocessing / joblib / Dask tests send to other
processes (by reference: those processes import this module, which the
tests' sys.path reaches). Not a test module."""
import numpy as np

import sot


def gelu(x):
    return 0.5 * x * (1 + np.tanh(0.79788456 * (x + 0.044715 * x * x * x)))


#: a module-level decorated function: pickled by reference
@sot.to_static(min_graph_size=1)
def decorated_gelu(x):
    return 0.5 * x * (1 + np.tanh(0.79788456 * (x + 0.044715 * x * x * x)))


#: sot.to_static of a module-level function: pickled as "decorate gelu again"
gelu_on_ort = sot.to_static(gelu, backend="onnxruntime", min_graph_size=1)


class Scale:
    def __init__(self, factor):
        self.factor = factor

    @sot.to_static(min_graph_size=1)
    def method(self, x):
        return np.exp(-x) * self.factor + x

    def __call__(self, x):
        return np.sqrt(np.abs(x)) * self.factor - x


def apply(fn, *args):
    """What a worker reports of a decorated function it received: the
    result, whether it is a decorated function there, how many times its
    code was translated in that process, and its options."""
    result = fn(*args)
    target = getattr(fn, "__func__", fn)
    return (result, hasattr(target, "__sot_static__"), sot.translation_count(fn),
            getattr(target, "__sot_options__", None))
