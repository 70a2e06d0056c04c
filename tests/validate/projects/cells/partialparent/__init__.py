"""A package whose __init__ fails part-way (as mindone 0.5.0's threestudio, whose wheel lacks a module its exporters
import): what it defines before and after the failing import is there for its submodules."""
__modules__ = {}


def register(name):
    def decorator(cls):
        __modules__[name] = cls
        return cls

    return decorator


from . import exporters, models  # noqa: E402,F401 -- exporters imports a module the package does not ship

SCALE = 2.0
