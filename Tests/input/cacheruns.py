"""What the cache suites share: the binary run with a test's own cache folder, and that
folder's entries."""
import glob, os, subprocess
import ptyharness as h


def entries(env):
    return glob.glob(os.path.join(env['XDG_CACHE_HOME'], 'animplay', 'entries', '*.entry'))


def run(args, env, timeout=90):
    return subprocess.run([h.binary()] + args, capture_output=True, timeout=timeout, env=env)
