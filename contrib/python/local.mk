# The Python SDK (contrib/python): the package `cvisor`, installed where
# Debian's python3 finds it (configure --with-python-dir). Its tests run
# from tests/integration/python-sdk.bats; `pip install ./contrib/python`
# builds it with the in-tree backend of contrib/python/_backend.
if PYTHON_SDK
cvisorpydir = $(PYTHON_DIR)/cvisor
cvisorpy_DATA = contrib/python/cvisor/__init__.py contrib/python/cvisor/_lib.py \
	contrib/python/cvisor/sandbox.py contrib/python/cvisor/session.py contrib/python/cvisor/remote.py \
	contrib/python/cvisor/py.typed
endif
