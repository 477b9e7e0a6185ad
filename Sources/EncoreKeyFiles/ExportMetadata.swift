/// SignatureInfo as export.bin and export.sig carry it.
public struct SignatureInfo: Equatable, Sendable {
    public var appBundleID: String?
    public var androidPackage: String?
    public var verificationKeyVersion: String?
    public var verificationKeyID: String?
    public var signatureAlgorithm: String?

    public init(appBundleID: String? = nil, androidPackage: String? = nil, verificationKeyVersion: String? = nil,
                verificationKeyID: String? = nil, signatureAlgorithm: String? = nil) {
        self.appBundleID = appBundleID
        self.androidPackage = androidPackage
        self.verificationKeyVersion = verificationKeyVersion
        self.verificationKeyID = verificationKeyID
        self.signatureAlgorithm = signatureAlgorithm
    }
}

/// Everything export.bin says besides its keys, and how many keys of each
/// kind it holds.
public struct ExportMetadata: Equatable, Sendable {
    public var startTimestamp: UInt64?
    public var endTimestamp: UInt64?
    public var region: String?
    public var batchNum: Int32?
    public var batchSize: Int32?
    public var signatureInfos: [SignatureInfo] = []
    /// Valid keys in `keys` and in `revised_keys`.
    public var keyCount: UInt64 = 0
    public var revisedKeyCount: UInt64 = 0
    /// Keys of both lists skipped as invalid (key_data not 16 bytes,
    /// rolling_period outside 1...144, report type out of range).
    public var invalidKeyCount: UInt64 = 0

    public init() {}
}
