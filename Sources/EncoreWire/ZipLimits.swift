/// Limits that keep a hostile zip from exhausting memory. They are checked
/// against the sizes the central directory declares, before any output
/// buffer is allocated; inflation never writes past the declared size.
public struct ZipLimits: Sendable, Equatable {
    /// Largest uncompressed size of one member.
    public var maxMemberSize: UInt64
    /// Largest sum of the uncompressed sizes of all members.
    public var maxTotalSize: UInt64
    /// Largest uncompressed/compressed ratio of a member, checked for members
    /// larger than `ratioFloor`; 0 turns the check off.
    public var maxRatio: UInt32

    /// Members up to this size are never judged by their ratio: a tiny file
    /// of zeros compresses well without being a bomb.
    public static let ratioFloor: UInt64 = 64 * 1024

    public static let `default` = ZipLimits(maxMemberSize: 512 << 20, maxTotalSize: 1 << 30, maxRatio: 100)

    public init(maxMemberSize: UInt64, maxTotalSize: UInt64, maxRatio: UInt32) {
        self.maxMemberSize = maxMemberSize
        self.maxTotalSize = maxTotalSize
        self.maxRatio = maxRatio
    }
}
