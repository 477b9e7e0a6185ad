import EncoreCrypto
import EncoreKeyFiles
import EncoreSupport

/// One of the device's own temporary exposure keys (TEKs): the 16 key bytes,
/// the interval range they cover and when the device made the key.
public struct OwnKey: Equatable, Hashable, Sendable {
    public var keyData: KeyData
    /// ENIN of the key's first interval (not negative).
    public var rollingStartIntervalNumber: Int32
    /// Intervals the key covers: 1...144.
    public var rollingPeriod: Int32
    /// Unix seconds the key was made (not negative).
    public var created: Int64

    public init(keyData: KeyData, rollingStartIntervalNumber: Int32, rollingPeriod: Int32 = 144, created: Int64) {
        self.keyData = keyData
        self.rollingStartIntervalNumber = rollingStartIntervalNumber
        self.rollingPeriod = rollingPeriod
        self.created = created
    }

    /// The key fields of an exposure key (its risk level, report type and
    /// days since onset are not kept).
    public init(_ key: ExposureKey, created: Int64) {
        self.init(keyData: key.keyData, rollingStartIntervalNumber: key.rollingStartIntervalNumber,
                  rollingPeriod: key.rollingPeriod, created: created)
    }

    /// As an exposure key with default risk level and report type.
    public var exposureKey: ExposureKey {
        ExposureKey(keyData: keyData, rollingStartIntervalNumber: rollingStartIntervalNumber, rollingPeriod: rollingPeriod)
    }

    package func validate() throws {
        guard rollingStartIntervalNumber >= 0 else {
            throw EncoreError(.invalidArgument, "own key: rolling start interval \(rollingStartIntervalNumber) must not be negative")
        }
        guard (1 ... 144).contains(rollingPeriod) else {
            throw EncoreError(.invalidArgument, "own key: rolling period \(rollingPeriod) is outside 1...144")
        }
        guard created >= 0 else { throw EncoreError(.invalidArgument, "own key: the creation time must not be negative") }
    }
}
