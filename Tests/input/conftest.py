import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'pty'))

# The servers are on 127.0.0.1: never through a proxy the environment may name (the proxy test
# sets its own).
os.environ['no_proxy'] = os.environ['NO_PROXY'] = '127.0.0.1,localhost'
