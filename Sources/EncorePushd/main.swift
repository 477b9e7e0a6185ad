// encore-pushd (issue 18): in progress.
import EncorePushRegistry
#if canImport(Glibc)
import Glibc
#endif

let message = "encore-pushd: not built yet\n"
_ = message.withCString { write(2, $0, strlen($0)) }
exit(2)
