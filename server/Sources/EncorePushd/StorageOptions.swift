import ArgumentParser
import EncorePushRegistry
import EncoreStorage
import EncoreSupport
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// Where the registrations are: one SQLCipher file, or PostgreSQL.
struct StorageOptions: ParsableArguments {
    @Option(name: .customLong("db"), help: "The registry's SQLCipher file (created when missing).")
    var database: String?

    @Option(name: .customLong("key-file"), help: ArgumentHelp(
        "A file holding the database key: 32 raw bytes, or 64 hex digits. Without it the passphrase is read from ENCORE_PUSHD_DB_KEY. SQLCipher: the file's key; PostgreSQL: the key push tokens are sealed with.",
        valueName: "file"))
    var keyFile: String?

    @Option(name: .customLong("postgres"), help: ArgumentHelp("postgres://user[:password]@host[:port]/database", valueName: "url"))
    var postgres: String?

    @Option(name: .customLong("max-connections"), help: "PostgreSQL connections of this process.")
    var maxConnections: Int = 16

    func validate() throws {
        guard (database == nil) != (postgres == nil) else { throw ValidationError("give exactly one of --db PATH and --postgres URL") }
    }

    func open(logger: Logger) async throws -> any RegistryStore {
        // Whatever the process creates (the SQLCipher file, its WAL and
        // shared-memory files) is for its user alone.
        umask(0o077)
        if let postgres {
            // The driver's own logs at warning at most: never a query's values.
            var quiet = logger
            quiet.logLevel = max(Logger.Level.warning, logger.logLevel)
            return try await PostgresRegistry(url: postgres, sealer: try TokenSealer(key: try key()), maximumConnections: maxConnections, logger: quiet)
        }
        guard let database else { throw ValidationError("give --db PATH or --postgres URL") }
        let store = try SQLCipherRegistry(path: database, key: try key())
        // Files made before the umask above (older versions): 0600 too.
        for path in [database, database + "-wal", database + "-shm"] { _ = chmod(path, 0o600) }
        return store
    }

    /// The key never comes from the command line (process lists, shell history).
    func key() throws -> StoreKey {
        if let keyFile {
            let bytes = try FileReader.read(path: keyFile, maxSize: 1024).bytes
            if bytes.count == 32 { return .raw(bytes) }
            let text = String(decoding: bytes, as: UTF8.self).filter { !$0.isWhitespace }
            guard text.utf8.count == 64, let raw = Hex.decode(text) else {
                throw ValidationError("\(keyFile) must hold a 32-byte key: 32 raw bytes or 64 hex digits")
            }
            return .raw(raw)
        }
        guard let p = getenv("ENCORE_PUSHD_DB_KEY") else {
            throw ValidationError("no database key: give --key-file FILE or set ENCORE_PUSHD_DB_KEY to a passphrase")
        }
        let passphrase = String(cString: p)
        guard !passphrase.isEmpty else { throw ValidationError("ENCORE_PUSHD_DB_KEY is set but empty") }
        return .passphrase(passphrase)
    }
}

/// "90", "90s", "15m", "2h", "21d": seconds.
struct Duration: ExpressibleByArgument, Sendable {
    let seconds: Int64

    init(seconds: Int64) { self.seconds = seconds }

    init?(argument: String) {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var text = argument
        var unit: Int64 = 1
        if let last = text.last, let u = units[last] {
            unit = u
            text.removeLast()
        }
        guard let n = Int64(text), n >= 0, n <= Int64.max / unit / 2 else { return nil }
        seconds = n * unit
    }

    var defaultValueDescription: String {
        if seconds % 86_400 == 0 { return "\(seconds / 86_400)d" }
        if seconds % 3600 == 0 { return "\(seconds / 3600)h" }
        if seconds % 60 == 0 { return "\(seconds / 60)m" }
        return "\(seconds)s"
    }
}

func say(_ message: String) {
    let line = Array((message + "\n").utf8)
    _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}
