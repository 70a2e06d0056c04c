from . import sine  # noqa: F401
