"""Shared by every python suite under Tests/ (pytest loads it for any path below Tests/).

Every test that uses `display` (a real terminal under Xvfb) is in one pytest-xdist group, so
these run one after another on one worker while the other workers take the pty, input and
hostile suites (scripts/test runs `--dist loadgroup`). They watch the screen by taking
screenshots in a loop (ImageMagick `import` and a count of the test colours, about 0.1 s of CPU
each on an idle machine) while kitty renders in software: two of them at once on 2 cores sampled
too slowly to see every 800-1000 ms frame (measured: 10 of 34 failed with 4 workers on a loaded
machine, none when grouped).

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


def pytest_collection_modifyitems(config, items):
    for item in items:
        if 'display' in getattr(item, 'fixturenames', ()):
            item.add_marker(pytest.mark.xdist_group('display'))


@pytest.fixture(scope='session')
def display():
    from kittyharness import Display
    d = Display()
    yield d
    d.close()
