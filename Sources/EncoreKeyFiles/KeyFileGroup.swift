import CEncoreShim
import EncoreStorage
import EncoreSupport

extension KeyFile {
    /// Opens one or two files as `KeyFile(path:)` and `KeyFile(bytes:)` do,
    /// each with its own result (`extract` then `finish`). Both files are
    /// then in memory at once.
    package static func open(_ sources: [KeyFileSource], options: KeyFileOptions, keys: ExportReader.KeyCheck) -> [Result<KeyFile, any Error>] {
        finish(sources.map { extract($0, options: options) }, options: options, keys: keys)
    }

    /// The first step of opening: the file read and its members out of the
    /// zip (export.bin inflated), which is most of what opening costs when
    /// the signature is checked; `finish` does the rest. Matching runs the
    /// two steps of different files on different threads.
    package static func extract(_ source: KeyFileSource, options: KeyFileOptions) -> Result<Members, any Error> {
        Result { try KeyFile.members(of: source, options: options) }
    }

    /// The second step, of one or two extracted files: export.bin checked
    /// and its signature verified, each file with its own result. Two
    /// whose signatures must be verified have their export.bin hashed side
    /// by side (enc_sha256_pair), about a third cheaper than one after the
    /// other: with the inflating, hashing is most of what opening costs.
    package static func finish(_ extracted: [Result<Members, any Error>], options: KeyFileOptions,
                               keys: ExportReader.KeyCheck) -> [Result<KeyFile, any Error>] {
        var digests: [[UInt8]?] = Array(repeating: nil, count: extracted.count)
        if options.verification == .require, extracted.count == 2,
           case .success(let a) = extracted[0], case .success(let b) = extracted[1], a.sig != nil, b.sig != nil {
            var da = [UInt8](repeating: 0, count: 32), db = [UInt8](repeating: 0, count: 32)
            let x = a.bin.buffer, y = b.bin.buffer
            enc_sha256_pair(x.baseAddress?.assumingMemoryBound(to: UInt8.self), x.count,
                            y.baseAddress?.assumingMemoryBound(to: UInt8.self), y.count, &da, &db)
            digests = [da, db]
        }
        return zip(extracted, digests).map { m, digest in
            m.flatMap { m in Result { try KeyFile(m, options: options, keys: keys, sha256: digest) } }
        }
    }

    private static func members(of source: KeyFileSource, options: KeyFileOptions) throws -> Members {
        switch source {
        case .path(let p): return try members(path: p, options: options)
        case .bytes(let b): return try b.withUnsafeBytes { try members(of: $0, options: options) }
        case .buffer(let b): return try members(of: b, options: options)
        }
    }
}
