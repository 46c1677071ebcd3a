"""A script loaded as a module: the benchmarks' names have hyphens (and the corpus's scripts
live elsewhere), so `import` cannot reach them."""
import importlib.util
import os


def load(path, name=None):
    """The Python file at `path` as a module (its top level runs once per call)."""
    name = name or os.path.splitext(os.path.basename(path))[0].replace('-', '_')
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
