# The Python SDK (contrib/python): the package `cvisor`, installed where
# Debian's python3 finds it (configure --with-python-dir), and the remote
# service's command, cvisor-server. Its tests run from
# tests/integration/python-sdk.bats; `pip install ./contrib/python` builds
# it with the in-tree backend of contrib/python/_backend.
if PYTHON_SDK
cvisorpydir = $(PYTHON_DIR)/cvisor
cvisorpy_DATA = contrib/python/cvisor/__init__.py contrib/python/cvisor/_lib.py \
	contrib/python/cvisor/sandbox.py contrib/python/cvisor/session.py contrib/python/cvisor/remote.py \
	contrib/python/cvisor/_ignore.py contrib/python/cvisor/_tar.py contrib/python/cvisor/_ws.py contrib/python/cvisor/py.typed
cvisorserverpydir = $(PYTHON_DIR)/cvisor/server
cvisorserverpy_DATA = contrib/python/cvisor/server/__init__.py contrib/python/cvisor/server/__main__.py \
	contrib/python/cvisor/server/app.py contrib/python/cvisor/server/schema.py \
	contrib/python/cvisor/server/state.py contrib/python/cvisor/server/tokens.py
bin_SCRIPTS = contrib/python/cvisor-server
endif
