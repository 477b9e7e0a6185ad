"""A load of registrations, updates and deletions against one or more
serve instances, with a model of what the registry must hold afterwards.

Each app instance is driven by one worker at a time, in order, so that
the final state is determined; requests go to a random serve instance (a
load balancer), half through /v3/register and half through /v1.
Takeover attempts name tokens of instances that never change (so that
their outcome is determined too: nothing moves)."""
import hashlib
import random
import threading
import time

from pushd_util import Client, apns_token, instance_token


def build(ops, instances=1000, stable=200, seed=1):
    rnd = random.Random(seed)
    stable_regs = {instance_token(): (apns_token(), rnd.choice(["ios", "ios-sandbox"])) for _ in range(stable)}
    active = [instance_token() for _ in range(instances)]
    plan = {i: [] for i in active}
    held = dict.fromkeys(active)          # what the model holds per active instance
    stable_tokens = [t for t, _ in stable_regs.values()]
    for _ in range(ops):
        inst = rnd.choice(active)
        r = rnd.random()
        api = rnd.choice(["v3", "v1"])
        if r < 0.10 and held[inst] is not None:
            plan[inst].append(("delete", None, None, api))
            held[inst] = None
        elif r < 0.15:
            # A takeover attempt: nothing may change.
            plan[inst].append(("put", rnd.choice(stable_tokens), "ios", api))
        elif r < 0.45 and held[inst] is not None:
            token, kind = held[inst]
            plan[inst].append(("put", token, kind, api))       # renewal
        else:
            kind = rnd.choice(["ios", "ios", "ios-sandbox", "android"])
            token = apns_token() if kind != "android" else "fcm:" + apns_token() + "_" + str(rnd.random())[2:]
            plan[inst].append(("put", token, kind, api))
            held[inst] = (token, kind)
    model = {i: v for i, v in held.items() if v is not None}
    model.update(stable_regs)
    return stable_regs, plan, model


def expected_rows(model):
    return {hashlib.sha256(i.encode()).hexdigest(): (t, k) for i, (t, k) in model.items()}


def send_op(client, inst, op):
    action, token, kind, api = op
    if action == "delete":
        status = (client.v3("", "ios", inst) if api == "v3" else client.delete(inst))[0]
    else:
        status = (client.v3(token, kind, inst) if api == "v3" else client.put(token, kind, inst))[0]
    if status not in (200, 204):
        raise AssertionError(f"{action} answered {status}")


def drive(ports, stable_regs, plan, workers=8, seed=2):
    """Sends the stable registrations, then the plan; returns (requests, seconds)."""
    first = Client(ports[0])
    for inst, (token, kind) in stable_regs.items():
        send_op(first, inst, ("put", token, kind, "v1"))
    items = list(plan.items())
    errors = []
    count = [0]
    lock = threading.Lock()

    def work(k):
        rnd = random.Random(seed + k)
        clients = [Client(p) for p in ports]
        n = 0
        try:
            for inst, ops in items[k::workers]:
                for op in ops:
                    send_op(rnd.choice(clients), inst, op)
                    n += 1
        except Exception as e:  # noqa: BLE001
            errors.append(repr(e))
        with lock:
            count[0] += n

    start = time.perf_counter()
    threads = [threading.Thread(target=work, args=(k,)) for k in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - start
    if errors:
        raise AssertionError(errors[:5])
    return count[0], elapsed
