"""encore.Push: the rule on the stored state, register and deregister
through a host transport (both APIs), errors as exceptions."""
import json

import pytest

import encore

NOW = 1_795_500_000
APNS = "ab" * 32


@pytest.fixture
def store(tmp_path):
    with encore.Store.open(str(tmp_path / "s.db"), "pw") as s:
        yield s


class Registry:
    def __init__(self, status=200):
        self.status, self.requests = status, []

    def __call__(self, method, url, headers, body):
        self.requests.append((method, url, dict(headers), body))
        return self.status, [], b""


def test_decide_register_deregister(store):
    registry = Registry()
    with encore.Transport.callback(registry) as t:
        push = encore.Client(store, clock=NOW, transport=t, push="https://push.example", push_api="registry", push_retry_delay_ms=0).push
        assert push.decide("checkout") == encore.PushDecision("register", push.decide("checkout").reason)
        push.set_state(exposure_notifications=True)
        assert push.decide("checkout").action == "none"
        push.set_state(exposure_notifications=False, isolated=True)
        push.register(APNS, "ios")
        method, url, headers, body = registry.requests[-1]
        assert (method, url) == ("PUT", "https://push.example/v1/registrations")
        assert json.loads(body) == {"pushToken": APNS, "pushType": "ios"}
        status = push.status
        assert status == encore.PushStatus(registered=True, registered_at=NOW, server="https://push.example", api="registry",
                                           push_type="ios", has_push_token=True, exposure_notifications=False, check_ins=False,
                                           isolated=True)
        assert push.decide("token-changed").action == "register"
        push.deregister()
        assert registry.requests[-1][0] == "DELETE"
        assert registry.requests[-1][2]["Authorization"] == headers["Authorization"]
        assert not push.status.registered


def test_errors(store):
    registry = Registry(status=400)
    with encore.Transport.callback(registry) as t:
        push = encore.Client(store, clock=NOW, transport=t, push="https://push.example").push
        with pytest.raises(encore.PushTokenError):
            push.register("abc", "ios")
        with pytest.raises(encore.ServerRefusedError):
            push.register(APNS, "ios")
        assert not push.status.registered and len(registry.requests) == 1
        with pytest.raises(ValueError):
            push.decide("reboot")
        with pytest.raises(ValueError):
            encore.Client(store, transport=t, push_api="apns")
