import os, sys
import pytest
sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'pty'))

# The servers are on 127.0.0.1: never through a proxy the environment may name (the proxy test
# sets its own).
os.environ['no_proxy'] = os.environ['NO_PROXY'] = '127.0.0.1,localhost'


# Each cache test module serves its own `root` folder of images from a loopback server and runs
# animplay with a cache folder of its own.
@pytest.fixture()
def server(root):
    from httpserver import Server
    s = Server(root)
    yield s
    s.close()


@pytest.fixture()
def env(tmp_path):
    return dict(os.environ, XDG_CACHE_HOME=str(tmp_path / 'xdg'))
