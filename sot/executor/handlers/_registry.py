HANDLERS: dict = {}

# opname -> why it ends translation. Exception handling, generators,
# pattern matching, `with`, class bodies and import machinery are not simulated.
UNSUPPORTED: dict[str, str] = {}


def handler(*opnames):
    def register(fn):
        for name in opnames:
            HANDLERS[name] = fn
        return fn
    return register


def unsupported(reason: str, *opnames):
    for name in opnames:
        UNSUPPORTED[name] = reason
