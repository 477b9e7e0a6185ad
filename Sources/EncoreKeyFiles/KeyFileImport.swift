import EncoreStorage
import EncoreSupport
import EncoreWire

/// A CWA key file that a host downloaded itself, kept only after the
/// same verification the sync gives the packages it fetches (the zip, every
/// field of export.bin, a signature by a key of `trust`), in one
/// transaction: a day replaces the cached hours of that day, as in the sync.
/// This is the only way a host puts a package into the cache, so the check
/// over cached packages (encore_exposure_check_cached) reads verified
/// packages alone.
public enum KeyFileImport {
    /// What was kept.
    public struct Kept: Sendable, Equatable {
        public var keys: Int
        /// Cached hours of the day that a day package replaced.
        public var replaced: Int
    }

    public static func keep(_ bytes: [UInt8], region: String, identifier: String, etag: String?, trust: TrustList,
                            limits: ZipLimits = .default, store: Store, now: Int64) throws -> Kept {
        try UnixTime.checkNow(now, "key file import")
        guard !region.isEmpty, region.utf8.count <= 64, region.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw EncoreError(.invalidArgument, "region must be 1 to 64 ASCII letters and digits (a country, or EUR), not \"\(region)\"")
        }
        guard region != CachedKeyFileName.dp3tRegion else {
            throw EncoreError(.invalidArgument, "region \(region) holds DP-3T packages, which only their sync keeps")
        }
        guard let name = CachedKeyFileName.parse(identifier) else {
            throw EncoreError(.invalidArgument, "identifier must be a day (\"2020-06-01\") or an hour (\"2020-06-01/hour/13\"), not \"\(identifier)\"")
        }
        let file = try KeyFile(bytes: bytes, options: KeyFileOptions(verification: .require, trust: trust, limits: limits), keys: .countFields)
        let replaced = name.hour != nil ? [] : try store.cachedKeyFileIdentifiers(region: region).filter { $0.hasPrefix(name.day + "/") }
        try store.write { w in
            try w.putCachedKeyFile(region: region, identifier: identifier, etag: etag, content: bytes, downloaded: now)
            for id in replaced { try w.removeCachedKeyFile(region: region, identifier: id) }
        }
        return Kept(keys: Int(clamping: file.metadata.keyCount), replaced: replaced.count)
    }
}
