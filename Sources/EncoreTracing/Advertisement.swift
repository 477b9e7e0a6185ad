import EncoreSupport

/// What the host broadcasts (service data of UUID 0xFD6F) and until when.
public struct Advertisement: Equatable, Sendable {
    /// 20 bytes: the RPI (16) ‖ the AEM (4), the AEM's metadata carrying
    /// version 1.0, the calibration confidence and the TX power.
    public var payload: [UInt8]
    /// The ENIN the RPI belongs to (the interval of `since`).
    public var interval: UInt32
    /// Unix seconds the payload was made (the last rotation).
    public var since: Int64
    /// Unix seconds from which the payload is stale: the host rotates the
    /// payload and the Bluetooth address together at this time.
    public var validUntil: Int64
}

/// A source of uniform random integers in a closed range; injectable so
/// that tests fix the rotation times.
public typealias RandomSeconds = @Sendable (ClosedRange<Int64>) -> Int64

/// When the payload rotates (ENF Bluetooth specification 1.2, "Broadcasting
/// behaviour"): at a random moment 10 to 20 minutes after the last rotation
/// (so an RPI cannot be linked to the next by its timing), and always at the
/// end of the key's UTC day, where the next TEK starts.
public struct RotationSchedule: Equatable, Sendable {
    public var minimumSeconds: Int64
    public var maximumSeconds: Int64

    public static let enf = RotationSchedule(minimumSeconds: 600, maximumSeconds: 1200)

    public init(minimumSeconds: Int64, maximumSeconds: Int64) {
        self.minimumSeconds = minimumSeconds
        self.maximumSeconds = maximumSeconds
    }

    /// The end of a payload made at `rotation`: a random time in
    /// [rotation + minimum, rotation + maximum], cut at the UTC day's end.
    /// `random` must return a value in the range it is given (others are
    /// clamped into it).
    public func validUntil(rotation: Int64, random: RandomSeconds) -> Int64 {
        let drawn = min(max(random(minimumSeconds ... maximumSeconds), minimumSeconds), maximumSeconds)
        let dayEnd = UnixTime.utcMidnight(rotation).saturatingAdding(86_400)
        return min(rotation.saturatingAdding(drawn), dayEnd)
    }
}

/// The system's CSPRNG-backed uniform draw (Swift's SystemRandomNumberGenerator).
public let systemRandomSeconds: RandomSeconds = { Int64.random(in: $0) }

/// A deterministic draw (splitmix64) for tests and simulations only.
public func seededRandomSeconds(seed: UInt64) -> RandomSeconds {
    let state = Locked(seed)
    return { range in
        let x = state.withLock { s -> UInt64 in
            s &+= 0x9E37_79B9_7F4A_7C15
            var z = s
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let span = UInt64(range.upperBound - range.lowerBound) &+ 1
        return range.lowerBound + Int64(span == 0 ? x >> 1 : x % span)
    }
}
