"""A package whose __init__ imports a private MindSpore module that MindSpore 2.10 no longer has (as mindocr 0.5.0
does): its submodules that do not use it can still be imported and validated."""
from mindspore.parallel._transformer import layers  # noqa: F401
