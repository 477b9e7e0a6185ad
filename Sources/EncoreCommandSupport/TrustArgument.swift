import ArgumentParser
import EncoreCrypto
import EncoreKeyFiles
import EncoreSupport
import EncoreWire

/// One `--trust KEY_ID:VERSION:PEM_FILE`: a public key the user trusts,
/// named as signatures name their key. The text is split at its first two
/// colons (so the path may contain colons; KEY_ID and VERSION may not). The
/// file is read and the key checked while the command line is parsed, so a
/// wrong --trust is a usage error.
public struct TrustArgument: Sendable {
    public static let valueName = "key-id:version:pem-file"
    /// Public key files are small; anything larger is not one.
    public static let maxFileSize: UInt64 = 1 << 20

    public let keyID: String
    public let keyVersion: String
    public let path: String
    /// The file's bytes: PEM, base64 of the DER, or DER.
    public let material: [UInt8]

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// ArgumentParser's transform for --trust.
    public static func parse(_ text: String) throws -> TrustArgument {
        guard let first = text.firstIndex(of: ":"),
              let second = text[text.index(after: first)...].firstIndex(of: ":")
        else {
            throw Failure(description: "expected KEY_ID:VERSION:PEM_FILE (key id, key version and public key file, separated by ':')")
        }
        let id = String(text[..<first])
        let version = String(text[text.index(after: first)..<second])
        let path = String(text[text.index(after: second)...])
        guard !path.isEmpty else {
            throw Failure(description: "the public key file is missing (expected KEY_ID:VERSION:PEM_FILE)")
        }
        let material: [UInt8]
        do {
            let bytes = try FileReader.read(path: path, maxSize: maxFileSize)
            material = bytes.withUnsafeBytes { Array($0) }
        } catch let e as EncoreError {
            // FileReader's messages name the path already.
            throw Failure(description: e.kind == .zipLimit ? "\(path) is too large to be a public key file" : e.message)
        }
        do {
            _ = try PublicKey(material: material)
        } catch let e as EncoreError {
            throw Failure(description: "\(path): \(e.message)")
        }
        return TrustArgument(keyID: id, keyVersion: version, path: path, material: material)
    }

    /// A trust list of the given keys (a later key with the same id and
    /// version replaces an earlier one).
    public static func trustList(_ arguments: [TrustArgument]) throws -> TrustList {
        let list = TrustList()
        for a in arguments {
            do {
                try list.add(id: a.keyID, version: a.keyVersion, material: a.material)
            } catch let e as EncoreError {
                throw ValidationError("--trust \(a.keyID):\(a.keyVersion):\(a.path): \(e.message)")
            }
        }
        return list
    }
}

/// A backend's JWT key (DP-3T, CrowdNotifier) from a PEM file named by `option`.
public func publicKeyFile(_ path: String, _ option: String) throws -> PublicKey {
    do {
        let pem = try FileReader.read(path: path, maxSize: TrustArgument.maxFileSize).withUnsafeBytes { Array($0) }
        return try PublicKey(material: pem)
    } catch let e as EncoreError {
        throw ValidationError("\(option) \(path): \(e.message)")
    }
}
