"""A model zoo's registry: registering a class twice raises, as many do."""
REGISTRY = {}


def register(cls):
    if cls.__name__ in REGISTRY:
        raise ValueError(f"{cls.__name__} is already registered")
    REGISTRY[cls.__name__] = cls
    return cls
