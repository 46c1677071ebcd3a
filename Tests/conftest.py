"""Shared by every python suite under Tests/ (pytest loads it for any path below Tests/).

Every test that uses `display` (a real terminal under Xvfb) is in one pytest-xdist group, so
these run one after another on one worker while the other workers take the pty, input and
hostile suites (scripts/test runs `--dist loadgroup`). These tests watch the screen in a loop
of screenshots while kitty renders in software, CPU-bound rather than waiting; sampled too
slowly they miss frames of 800-1000 ms (measured on the shared machine at load 16-18, with
ImageMagick `import` screenshots: 10 of 32 failed spread over 4 workers, 9 grouped on one).
With Tests/kitty/screenshot.py (an X connection, no process per screenshot) all 32 passed on one
worker at load 15.
"""
import os, signal, sys
import pytest

# A shell starts a background job (`scripts/test &`, a CI step run as a job) with SIGINT and
# SIGQUIT ignored, and an ignored signal stays ignored across exec: animplay would then keep
# ignoring the Ctrl-C the signal tests send, and exit 0 (4 tests failed that way). A handler set
# here is reset to the default action in every program the tests start.
signal.signal(signal.SIGINT, signal.default_int_handler)
signal.signal(signal.SIGQUIT, signal.SIG_DFL)

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
