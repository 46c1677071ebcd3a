"""Shared by every python suite under Tests/ (pytest loads it for any path below Tests/).

`display`: one Xvfb per pytest process, started by the first test that asks for it. Under
pytest-xdist each worker is its own process, so each worker has its own X server and its
terminals never share a screen (screenshots look at the whole root window). The display number
is chosen by the X server itself (`-displayfd`, see kittyharness.Display), which is what keeps
parallel workers and other people's test runs on the same machine from colliding.
"""
import os, sys
import pytest

TESTS = os.path.dirname(os.path.abspath(__file__))
for suite in ('pty', 'kitty'):   # ptyharness, requires, kittyharness: shared by every suite
    path = os.path.join(TESTS, suite)
    if path not in sys.path:
        sys.path.insert(0, path)


@pytest.fixture(scope='session')
def display():
    from kittyharness import Display
    d = Display()
    yield d
    d.close()
