from .sine import Sine  # noqa: F401
