import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreWire

/// One published warning that concerns one of the user's locations: a
/// time span (10-minute intervals) and how infectious its submitter was.
public struct TraceWarning: Sendable, Equatable, Hashable {
    /// Its place among the package's warnings and reports (the identity of
    /// a warning within its package: matching a package twice finds the
    /// same items).
    public var item: Int
    /// The LocationIndex entry it matched.
    public var entry: Int
    public var startInterval: UInt32
    public var period: UInt32
    public var transmissionRiskLevel: UInt32
    /// A CheckInProtectedReport (else the deprecated plain warning).
    public var encrypted: Bool

    /// The rule every warning must satisfy, plain or decrypted: start ≥ 0
    /// and period > 0 read as CWA's apps read them, as signed 32-bit
    /// numbers (protobuf keeps a uint32's low 32 bits; Java writes −1 as
    /// 0xFFFFFFFF, so such a warning is invalid, never a match), TRL 1...8.
    static func valid(period: UInt64, trl: UInt64, start: UInt64) -> Bool {
        Int32(truncatingIfNeeded: start) >= 0 && Int32(truncatingIfNeeded: period) > 0 && (1 ... 8).contains(trl)
    }
}

/// What one TraceWarningPackage held for the user.
public struct WarningScan: Sendable, Equatable {
    public var intervalNumber: UInt32 = 0
    public var region = ""
    /// Plain warnings and protected reports in the package.
    public var warnings = 0
    public var reports = 0
    public var matches: [TraceWarning] = []
    /// Warnings and reports that could not be used: a sub-message that
    /// does not decode, fields of the wrong length, and for the user's
    /// locations a MAC that does not verify, bad padding, a record that
    /// does not decode or breaks the rules (period 0, TRL outside 1...8).
    public var skipped = 0
    public var skippedByMAC = 0

    public init() {}
}

/// Matches a TraceWarningPackage (the bare protobuf, export.bin of a trace
/// warning package) against the user's locations. The package is walked
/// field by field, never decoded whole: a report for another location
/// costs reading it and one index probe; only reports for the user's
/// locations are authenticated and decrypted. A report that fails is
/// skipped and counted, never fatal; only a package whose fields cannot be
/// walked at all is refused.
public enum TraceWarningScanner {
    public static func scan(payload: UnsafeRawBufferPointer, index: LocationIndex) throws -> WarningScan {
        var out = WarningScan()
        var wire = ProtoWire(payload)
        var item = 0
        do {
            while let f = try wire.next() {
                switch (f.number, f.wireType) {
                case (1, .varint): out.intervalNumber = UInt32(truncatingIfNeeded: f.value)
                case (2, .lengthDelimited): out.region = String(decoding: UnsafeRawBufferPointer(rebasing: payload[f.payload]), as: UTF8.self)
                case (3, .lengthDelimited):
                    out.warnings += 1
                    plain(UnsafeRawBufferPointer(rebasing: payload[f.payload]), item: item, index: index, into: &out)
                    item += 1
                case (4, .lengthDelimited):
                    out.reports += 1
                    try protected(UnsafeRawBufferPointer(rebasing: payload[f.payload]), item: item, index: index, into: &out)
                    item += 1
                case (1 ... 4, _):
                    throw EncoreError(.warningMalformed, "trace warning package: field \(f.number) has the wrong wire type")
                default: continue // unknown fields are skipped, as protobuf readers do
                }
            }
        } catch let e as EncoreError where e.kind == .exportMalformed {
            throw EncoreError(.warningMalformed, "the trace warning package is not a TraceWarningPackage protobuf (\(e.message))")
        }
        return out
    }

    /// The user's check-in location a report names, if any: a hash of the
    /// wrong length is counted as skipped, an unknown one is no match.
    private static func entry(of hash: UnsafeRawBufferPointer?, in index: LocationIndex, into out: inout WarningScan) -> Int? {
        guard let hash, hash.count == CheckInCrypto.hashBytes else {
            out.skipped += 1
            return nil
        }
        return index.lookup(hash.baseAddress.map { UnsafeRawPointer($0) })
    }

    /// A TraceTimeIntervalWarning: locationIdHash, start, period, TRL.
    private static func plain(_ m: UnsafeRawBufferPointer, item: Int, index: LocationIndex, into out: inout WarningScan) {
        var hash: UnsafeRawBufferPointer?
        var start: UInt64 = 0, period: UInt64 = 0, trl: UInt64 = 0
        var wire = ProtoWire(m)
        do {
            while let f = try wire.next() {
                switch (f.number, f.wireType) {
                case (1, .lengthDelimited): hash = UnsafeRawBufferPointer(rebasing: m[f.payload])
                case (2, .varint): start = f.value
                case (3, .varint): period = f.value
                case (4, .varint): trl = f.value
                case (1 ... 4, _): throw EncoreError(.warningMalformed, "wrong wire type")
                default: continue
                }
            }
        } catch {
            out.skipped += 1
            return
        }
        guard let entry = entry(of: hash, in: index, into: &out) else { return }
        guard TraceWarning.valid(period: period, trl: trl, start: start) else {
            out.skipped += 1
            return
        }
        out.matches.append(TraceWarning(item: item, entry: entry, startInterval: UInt32(truncatingIfNeeded: start), period: UInt32(truncatingIfNeeded: period),
                                        transmissionRiskLevel: UInt32(trl), encrypted: false))
    }

    /// A CheckInProtectedReport: locationIdHash, iv, encrypted record, mac.
    private static func protected(_ m: UnsafeRawBufferPointer, item: Int, index: LocationIndex, into out: inout WarningScan) throws {
        var hash: UnsafeRawBufferPointer?, iv: UnsafeRawBufferPointer?, sealed: UnsafeRawBufferPointer?, mac: UnsafeRawBufferPointer?
        if let simple = simpleReport(m) {
            (hash, iv, sealed, mac) = simple
        } else {
            var wire = ProtoWire(m)
            do {
                while let f = try wire.next() {
                    guard (1 ... 4).contains(f.number) else { continue }
                    guard f.wireType == .lengthDelimited else { throw EncoreError(.warningMalformed, "wrong wire type") }
                    let bytes = UnsafeRawBufferPointer(rebasing: m[f.payload])
                    switch f.number {
                    case 1: hash = bytes
                    case 2: iv = bytes
                    case 3: sealed = bytes
                    default: mac = bytes
                    }
                }
            } catch {
                out.skipped += 1
                return
            }
        }
        guard let entry = entry(of: hash, in: index, into: &out) else { return }
        let empty = UnsafeRawBufferPointer(start: nil, count: 0)
        switch try CheckInCrypto.open(iv: iv ?? empty, ciphertext: sealed ?? empty, mac: mac ?? empty, keys: index.entries[entry].keys) {
        case .failure(let reason):
            out.skipped += 1
            if reason == .mac { out.skippedByMAC += 1 }
        case .success(let plain):
            guard let r = CheckInRecordCodec.decode(plain), TraceWarning.valid(period: r.period, trl: r.trl, start: r.start) else {
                out.skipped += 1
                return
            }
            out.matches.append(TraceWarning(item: item, entry: entry, startInterval: UInt32(truncatingIfNeeded: r.start), period: UInt32(truncatingIfNeeded: r.period),
                                            transmissionRiskLevel: UInt32(r.trl), encrypted: true))
        }
    }

    /// The fields of a report in the shape every real one has (fields 1-4,
    /// each a one-byte tag and a one-byte length), read in place: the walk
    /// of a million reports for other places then costs little more than
    /// reading them. Any other shape (unknown fields, longer lengths, other
    /// wire types, a cut field) gives nil and goes to the general walk,
    /// which decides as protobuf does; a field given twice counts last here
    /// too.
    @inline(__always)
    private static func simpleReport(_ m: UnsafeRawBufferPointer)
        -> (UnsafeRawBufferPointer?, UnsafeRawBufferPointer?, UnsafeRawBufferPointer?, UnsafeRawBufferPointer?)? {
        var fields: (UnsafeRawBufferPointer?, UnsafeRawBufferPointer?, UnsafeRawBufferPointer?, UnsafeRawBufferPointer?) = (nil, nil, nil, nil)
        var i = 0
        while i < m.count {
            let tag = m[i]
            guard m.count - i >= 2, tag & 7 == 2, (1 ... 4).contains(tag >> 3) else { return nil }
            let length = Int(m[i + 1])
            guard length < 0x80, m.count - i - 2 >= length else { return nil }
            let bytes = UnsafeRawBufferPointer(rebasing: m[i + 2 ..< i + 2 + length])
            switch tag >> 3 {
            case 1: fields.0 = bytes
            case 2: fields.1 = bytes
            case 3: fields.2 = bytes
            default: fields.3 = bytes
            }
            i += 2 + length
        }
        return fields
    }
}
