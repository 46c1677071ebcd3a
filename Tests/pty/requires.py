"""Marks for tests that need programs from scripts/install-deps.

On a developer's machine a missing program skips the test with the reason. Under CI (CI set,
as .ci/run runs) it fails instead: there scripts/install-deps has run, so a missing program is
a missing install step, and a skip would let the run pass without testing anything.
"""
import os, shutil
import pytest


def missing(*programs):
    return [p for p in programs if shutil.which(p) is None]


def requires(*programs):
    """A skipif mark for these programs (a failure under CI)."""
    gone = missing(*programs)
    if gone and os.environ.get('CI'):
        raise RuntimeError(f'CI must have {", ".join(gone)}: scripts/install-deps did not install them')
    return pytest.mark.skipif(bool(gone), reason=f'needs {", ".join(gone)} (scripts/install-deps)')


def skip_unless(condition, reason):
    """pytest.skip(reason) when condition is false (a failure under CI)."""
    if condition:
        return
    if os.environ.get('CI'):
        pytest.fail(f'under CI: {reason}')
    pytest.skip(reason)
