"""Every example of README.md runs as written (through the real libcvisor)."""
import os
import re
import subprocess
import sys

import pytest


HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# the package's README, and the project's (in a source tree)
EXAMPLES = []
for readme in (os.path.join(HERE, "README.md"), os.path.join(HERE, "..", "..", "README.md")):
    if os.path.exists(readme):
        with open(readme, encoding="utf-8") as f:
            EXAMPLES += re.findall(r"```python\n(.*?)```", f.read(), re.S)


def test_readme_has_examples():
    assert len(EXAMPLES) >= 4


@pytest.mark.parametrize("n", range(len(EXAMPLES)))
def test_readme_example_runs(n, tmp_path, request):
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=pkg)
    if "CVISOR_URL" in EXAMPLES[n]:  # a remote example: a server of the tests
        srv = request.getfixturevalue("server_a")
        env.update(CVISOR_URL=srv.url, CVISOR_TOKEN=srv.tokens["alice"])
    p = subprocess.run([sys.executable, "-c", EXAMPLES[n]], env=env, cwd=str(tmp_path), capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    # each `# -> X` result is in the output
    for expected in re.findall(r"# -> (.+)$", EXAMPLES[n], re.M):
        assert expected.strip() in p.stdout, (expected, p.stdout)
