import pytest

# The fixture under test, available here whether or not the package's pytest11 entry point is installed.
from ms_lint.parity.pytest_plugin import ms_parity  # noqa: F401


@pytest.fixture(scope="session")
def frameworks():
    """Import MindSpore and PyTorch once for the session (skips where the parity extras are missing)."""
    pytest.importorskip("torch")
    mindspore = pytest.importorskip("mindspore")
    mindspore.set_context(mode=mindspore.PYNATIVE_MODE)
    import parity_models

    return parity_models
