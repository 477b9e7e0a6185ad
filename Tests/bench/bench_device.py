"""Bench of the device service (make bench-device, issue 46), on a private
system bus with polkit's stand-in, as Tests/device does:

1. While encored syncs 14 days of 1 000 000 keys from the loopback
   distribution stand-in for a user with 100 000 sightings and runs the
   check on them (its first sync, at its start), a client reads all
   properties (`GetAll`) every 10 ms on one connection: the longest answer
   must take at most 100 ms (the D-Bus API never waits on the network or a
   long check).
2. A phone's battery: minute by minute over 5 idle minutes after that sync, with tracing on
   (BlueZoo's adapter on the bus, `State` active: the service advertises and
   scans), the service's voluntary context switches (every thread's, from
   /proc): at most 60 in the worst minute, and the figure for a day at
   their rate (a scan every 5 minutes, so 5 minutes hold one).

Prints the figures; exit status 1 when a target is missed."""
import argparse
import os
import subprocess
import statistics
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "device"))
from benchlib import CLI, Setting  # noqa: E402
from device_world import ACTIONS, ENCORED, IFACE, NAME, PATH, Device, wait_for  # noqa: E402
from standins.cwa_distribution import CwaDistributionServer  # noqa: E402
from jeepney import DBusAddress, new_method_call  # noqa: E402
from jeepney.io.blocking import open_dbus_connection  # noqa: E402


def tool(*args):
    """The encore tool on the service's store, with the key Device.start gives encored."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENCORE_DB_KEY")}
    env["ENCORE_DB_KEY"] = "passphrase of the device"
    r = subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"bench-device: encore {' '.join(map(str, args[:2]))} failed: {r.stderr.strip()}")


def voluntary_switches(pid):
    """Each thread's voluntary context switches so far, by thread id."""
    counts = {}
    for status in Path(f"/proc/{pid}/task").glob("*/status"):
        try:
            for line in status.read_text().splitlines():
                if line.startswith("voluntary_ctxt_switches:"):
                    counts[status.parent.name] = int(line.split()[1])
        except FileNotFoundError:  # a thread that ended meanwhile
            pass
    return counts


def wakeups(before, after):
    """The switches between two snapshots, by thread: a thread that is new
    counts from zero; one that ended in between is named (its last switches
    are lost)."""
    ended = sorted(set(before) - set(after))
    return {tid: n - before.get(tid, 0) for tid, n in after.items()}, ended


def thread_name(pid, tid):
    try:
        return (Path(f"/proc/{pid}/task/{tid}/comm").read_text().strip() or "?") + f" ({tid})"
    except FileNotFoundError:
        return f"? ({tid})"


def start_real_clock(device, *args):
    """encored as Device.start starts it, but on the system's clock alone:
    a test clock file is read again at every turn of the service's loop,
    which would be the wake-ups measured here."""
    env = {k: v for k, v in device.env.items() if not k.startswith("ENCORE_DB_KEY")}
    env["ENCORE_DB_KEY"] = "passphrase of the device"
    with open(device.log, "ab") as log:
        device.service = subprocess.Popen([str(ENCORED), "--db", str(device.db), *args], stdout=log, stderr=log, env=env)
    wait_for("encored on the bus", lambda: device.has_name(NAME) or device.exited())


class Reader(threading.Thread):
    """GetAll every `every` seconds on one connection; each answer's time."""

    def __init__(self, address, every=0.010):
        super().__init__(daemon=True)
        self.conn = open_dbus_connection(address)
        self.every, self.times, self.errors = every, [], []
        self.stop = threading.Event()
        self.call = new_method_call(DBusAddress(PATH, bus_name=NAME, interface="org.freedesktop.DBus.Properties"),
                                    "GetAll", "s", (IFACE,))

    def run(self):
        while not self.stop.is_set():
            t = time.perf_counter()
            try:
                reply = self.conn.send_and_get_reply(self.call, timeout=10)
                if reply.header.message_type.name != "method_return":
                    self.errors.append(str(reply.body))
            except Exception as e:  # a timeout is the worst answer there is
                self.errors.append(repr(e))
            took = time.perf_counter() - t
            self.times.append(took)
            self.stop.wait(max(0.0, self.every - took))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--keys", type=int, default=1_000_000)
    p.add_argument("--sightings", type=int, default=100_000)
    p.add_argument("--minutes", type=int, default=5, help="idle minutes measured (5: one scan period)")
    a = p.parse_args()
    b = Setting("bench-device", a.keys, int(time.time()))
    print(f"bench-device: 14 signed day packages of {b.per_day} keys, {a.sightings} sightings ...", flush=True)
    noise = b.noise("dense.csv", a.sightings, 14)
    failed = False
    with CwaDistributionServer(b.signer) as dist:
        for d in b.days:
            dist.add_day("EUR", d, b.keys(d, b.per_day))
        device = Device(root=b.work)
        try:
            device.start_bus()
            device.start_bluez()
            device.start_polkit(ACTIONS)
            # The store as the service will find it: made and filled by the tool, with the service's key.
            tool("store", "init", "--db", device.db)
            tool("sightings", "import", "--db", device.db, noise)
            start_real_clock(device, "--distribution", dist.url, "--trust", b.trust, "--no-warnings")
            reader = Reader(device.address)
            reader.start()
            started = time.perf_counter()
            device.wait_log("sync (periodic): done", timeout=1800)
            synced = time.perf_counter() - started
            reader.stop.set()
            reader.join()
            props = device.get_all()
            if props["LastCheck"] <= 0:
                sys.exit("bench-device: the sync ran no check")
            times = sorted(reader.times)
            worst = times[-1] * 1000
            p99 = times[int(len(times) * 0.99) - 1] * 1000
            print(f"  sync of 14 days + check by encored    {synced:6.1f} s  ({len(times)} GetAll answers, "
                  f"median {statistics.median(times) * 1000:.1f} ms, p99 {p99:.1f} ms)")
            ok = worst <= 100 and not reader.errors
            failed |= not ok
            print(f"  the longest GetAll answer             {worst:6.1f} ms   target <= 100 ms {'ok' if ok else 'MISSED'}")
            for e in reader.errors[:3]:
                print(f"    error: {e}")

            # Idle: nothing due for an hour, no client; tracing on.
            wait_for("tracing on", lambda: device.get("State") == "active" or None, timeout=60)
            pid = device.service.pid
            # The threads the sync used end a few seconds after it (their pool's
            # idle timeout): the minute starts once their number has settled.
            settled, threads = time.monotonic() + 30, None
            while time.monotonic() < settled:
                now = set(voluntary_switches(pid))
                if now == threads:
                    break
                threads = now
                time.sleep(6)
            # Minute by minute over one scan period (a scan every 5 minutes):
            # the worst minute against the target, the day from all of them.
            snapshots = [voluntary_switches(pid)]
            for _ in range(a.minutes):
                time.sleep(60)
                snapshots.append(voluntary_switches(pid))
            minutes = [wakeups(b, e) for b, e in zip(snapshots, snapshots[1:])]
            per_minute = [sum(by_thread.values()) for by_thread, _ in minutes]
            ended = sorted({t for _, gone in minutes for t in gone})
            worst, day = max(per_minute), sum(per_minute) * 1440 / len(per_minute)
            ok = worst <= 60 and not ended
            failed |= not ok
            print(f"  wake-ups in an idle minute, tracing   {worst:6d}      target <= 60 {'ok' if ok else 'MISSED'}"
                  f"   (the worst of {len(per_minute)} minutes: {', '.join(map(str, per_minute))}; a day at their rate: {day:.0f})")
            total, _ = wakeups(snapshots[0], snapshots[-1])
            print("    by thread: " + ", ".join(f"{thread_name(pid, t)} {n}" for t, n in sorted(total.items()) if n))
            if ended:
                print(f"    threads ended while idle (their last wake-ups are not counted): {', '.join(ended)}")
        finally:
            device.close()
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
