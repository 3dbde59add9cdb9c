"""Another build of xbf in a child process, for before/after figures in one
interleaved run: the child runs the same script with `--worker` and
PYTHONPATH set to the other build's site directory (`pip install --target
DIR`), prints the module it imported, then answers each request line (fields
joined by tabs) with the seconds it measured."""
import os
import subprocess
import sys


class Worker:
    def __init__(self, script, site):
        env = dict(os.environ, PYTHONPATH=site)
        self.p = subprocess.Popen([sys.executable, os.path.abspath(script), "--worker"], env=env, text=True,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.version = self.p.stdout.readline().strip()

    def ask(self, *fields):
        """One request; the seconds the child measured."""
        self.p.stdin.write("\t".join(fields) + "\n")
        self.p.stdin.flush()
        return float(self.p.stdout.readline())

    def close(self):
        self.p.stdin.close()
        self.p.wait()
