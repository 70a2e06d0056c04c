import pytest


@pytest.fixture
def window():
    return 4
