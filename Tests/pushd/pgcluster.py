"""A throwaway PostgreSQL cluster (Debian's postgresql package) on loopback,
on a free port, in a temporary directory; stopped and removed afterwards.
As root, initdb and pg_ctl run as the postgres user (they refuse root)."""
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile


class Unavailable(Exception):
    pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    def __init__(self, extra=()):
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        if not bins:
            raise Unavailable("no /usr/lib/postgresql/*/bin/initdb (Debian package postgresql; make deps installs it)")
        self.bin = os.path.dirname(bins[-1])
        self.dir = tempfile.mkdtemp(prefix="pushd-pg-")
        self.runner = []
        if os.geteuid() == 0:
            try:
                pw = pwd.getpwnam("postgres")
            except KeyError:
                raise Unavailable("running as root and there is no postgres user to run initdb as")
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
            self.runner = ["runuser", "-u", "postgres", "--"]
        self.data = os.path.join(self.dir, "data")
        self.port = free_port()
        self._run("initdb", "-D", self.data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
        options = f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.dir} -c max_connections=200 " + " ".join(extra)
        self._run("pg_ctl", "-D", self.data, "-o", options, "-l", os.path.join(self.dir, "log"), "-w", "-t", "60", "start")
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, tool, *args):
        cmd = self.runner + [os.path.join(self.bin, tool), *args]
        r = subprocess.run(cmd, capture_output=True, text=True, cwd=self.dir)
        if r.returncode != 0:
            raise RuntimeError(f"{tool} failed ({r.returncode}): {r.stdout}{r.stderr}")
        return r.stdout

    def sql(self, query):
        return self.sql_in("postgres", query)

    def sql_in(self, database, query):
        """Rows of a query as lists of strings (psql, unaligned)."""
        out = subprocess.run([os.path.join(self.bin, "psql"), "-X", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
                              "-d", database, "-At", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-c", query],
                             capture_output=True, text=True, check=True).stdout
        return [line.split("\t") for line in out.splitlines() if line]

    def stop(self):
        try:
            self._run("pg_ctl", "-D", self.data, "-m", "fast", "-w", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
