"""The CWA verification and submission stand-ins sharing one CwaState: on
one port (CwaBackendServer, for clients configured with a single base URL),
or each on its own (verification_and_submission)."""

import contextlib

from .cwa_state import CwaState
from .cwa_submission import CwaSubmissionServer, SubmissionApp
from .cwa_verification import CwaVerificationServer, VerificationApp
from .httpbase import AppServer


class CwaBackendServer(AppServer):
    def __init__(self, state=None, *, verification_rules=None, host="127.0.0.1", port=0,
                 **submission_rules):
        self.state = state or CwaState()
        self.verification = VerificationApp(self.state, **(verification_rules or {}))
        self.submission = SubmissionApp(self.state, **submission_rules)
        super().__init__([self.verification, self.submission], host, port)

    @property
    def submissions(self):
        with self.state.lock:
            return list(self.state.submissions)


@contextlib.contextmanager
def verification_and_submission(state=None, padded_size=1000):
    """The verification and the submission server, each on a port of its
    own, sharing `state` (a new CwaState unless given): yields (state,
    verification, submission). padded_size: the size the submission server
    expects every padded upload to have."""
    state = state or CwaState()
    with CwaVerificationServer(state) as v, CwaSubmissionServer(state, padded_size=padded_size) as s:
        yield state, v, s
