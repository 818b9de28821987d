"""Each built-in metric is registered where it is defined (issue 45, part 5): the module that
defines a metric's class is the one that calls ``register`` for it, with the call a plugin's
code uses, and no module keeps a hand list of every metric.

The registrations are watched in a fresh interpreter, from the first ``import assay.metrics``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

#: Records, for each metric ``register(metric)`` is called with, the file that called it; then
#: prints name -> [calling file, file defining the metric's class, source].
PROBE = '''
import inspect, json, sys
callers = {}

def watch(frame, event, arg):
    code = frame.f_code
    if (event == "call" and code.co_name == "register"
            and code.co_filename.endswith("_register.py") and "self" not in frame.f_locals):
        callers[frame.f_locals["metric"].name] = frame.f_back.f_code.co_filename

sys.setprofile(watch)
import assay.metrics
sys.setprofile(None)
from assay.metrics import REGISTRY
print(json.dumps({name: [callers.get(name), inspect.getsourcefile(type(metric)),
                         REGISTRY.source(name)] for name, metric in REGISTRY.items()}))
'''


def test_each_built_in_metric_is_registered_by_the_module_that_defines_it() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(SRC), *filter(None, [os.environ.get("PYTHONPATH")])])}
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                         env=env, timeout=120, check=True)
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    built_in = {name: where for name, where in seen.items() if where[2] == "built-in"}
    assert len(built_in) >= 40, sorted(built_in)
    misplaced = {name: (Path(caller or "?").name, Path(defined).name)
                 for name, (caller, defined, _) in built_in.items()
                 if caller is None or Path(caller) != Path(defined)}
    assert misplaced == {}, "registered away from where defined (caller, definer)"
