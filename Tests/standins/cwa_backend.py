"""The CWA verification and submission stand-ins on one port, sharing one
CwaState (for clients configured with a single base URL)."""

from .cwa_state import CwaState
from .cwa_submission import SubmissionApp
from .cwa_verification import VerificationApp
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
