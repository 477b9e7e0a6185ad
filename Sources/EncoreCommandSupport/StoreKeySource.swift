import ArgumentParser
import EncoreStorage
import EncoreSupport
#if canImport(Glibc)
import Glibc
#endif

/// Where the daemon's store key comes from: the environment, as for the
/// tool (ENCORE_DB_KEY or ENCORE_DB_KEY_HEX), or else a systemd credential
/// (LoadCredential=): the file `encore-db-key` (a passphrase; one trailing
/// newline is not part of it) or `encore-db-key-hex` (64 hex digits) in
/// $CREDENTIALS_DIRECTORY. Never the command line.
public enum StoreKeySource {
    public static let passphraseCredential = "encore-db-key"
    public static let hexCredential = "encore-db-key-hex"

    public static func key() throws -> (key: StoreKey, source: String) {
        let environment = StoreKeyEnvironment.current
        if environment.isSet {
            let (key, variable) = try environment.key()
            return (key, variable)
        }
        guard let directory = getenv("CREDENTIALS_DIRECTORY").map({ String(cString: $0) }), !directory.isEmpty else {
            throw ValidationError("""
                no store key: set ENCORE_DB_KEY (a passphrase) or ENCORE_DB_KEY_HEX (64 hex digits) in the environment, \
                or give the credential \(passphraseCredential) or \(hexCredential) (systemd's LoadCredential=)
                """)
        }
        let passphrasePath = "\(directory)/\(passphraseCredential)", hexPath = "\(directory)/\(hexCredential)"
        var passphrase = try credential(passphrasePath)
        if passphrase?.last == 0x0A { passphrase?.removeLast() }
        let hex = try credential(hexPath)
        guard passphrase != nil || hex != nil else {
            throw ValidationError("no store key: $CREDENTIALS_DIRECTORY has neither \(passphraseCredential) nor \(hexCredential)")
        }
        let (key, path) = try StoreKeyEnvironment.key(passphrase: passphrase, hex: hex, passphraseName: passphrasePath, hexName: hexPath)
        return (key, path)
    }

    /// The file's bytes, or nil when there is no such file.
    private static func credential(_ path: String) throws -> [UInt8]? {
        guard access(path, F_OK) == 0 else { return nil }
        return try FileReader.read(path: path, maxSize: 4096).bytes
    }
}
