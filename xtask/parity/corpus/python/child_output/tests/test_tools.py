import subprocess
import sys

CHILD = """
print("test tools::parse ... FAILED")
print("--- FAIL: TestParse (0.00s)")
print("not ok 1 - parse")
print("FAIL\\texample.com/tools\\t0.01s")
print("Tests:       3 failed, 3 total")
"""


def test_child_tool_output():
    # A test that runs another tool whose output looks like other runners' result lines.
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True).stdout
    print(out)
    assert "FAILED" in out
