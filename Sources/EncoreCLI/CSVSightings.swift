import EncoreClient
import EncoreCrypto
import EncoreExposure
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport
#if canImport(Glibc)
import Glibc
#endif

/// Sightings in CSV: one sighting a line, `time,rpi,aem,rssi[,prev_scan]`.
/// time and prev_scan are seconds since the epoch (not negative), rpi 32
/// hex digits, aem 8 hex digits (the 4 bytes in order), rssi an integer
/// from -128 to 127; an empty prev_scan is the same as none. The first
/// non-blank line may be the header `time,rpi,aem,rssi[,prev_scan]`; with
/// one, every row has its columns. Blank lines are skipped; blanks around
/// fields, a final CR (CRLF files) and a UTF-8 byte order mark are allowed.
/// There is no quoting: no field can contain a comma.
///
/// The whole input is read before anything is stored, so that a bad line
/// (reported with its number) leaves the store as it was. Lines are parsed
/// as bytes straight from the read buffer.
struct CSVSightings {
    static let columns = ["time", "rpi", "aem", "rssi", "prev_scan"]
    /// No valid line comes near this; a longer one (a binary file, a file
    /// without newlines) stops the read instead of growing a buffer.
    static let maxLineLength = 1024
    static let chunkSize = 1 << 20

    /// A bad line: its number from 1, and what is wrong with it.
    struct Failure: Error {
        let line: Int
        let message: String
        var description: String { line > 0 ? "line \(line): \(message)" : message }
    }

    private(set) var sightings: [Sighting] = []
    private(set) var lineNumber = 0
    /// Set by a header line.
    private var headerColumns: Int?
    private var sawContent = false

    /// Reads and parses everything `fd` gives until end of file.
    static func read(fd: Int32) throws -> [Sighting] {
        var parser = CSVSightings()
        var buffer = [UInt8](repeating: 0, count: chunkSize + maxLineLength + 1)
        var kept = 0 // bytes of an unfinished line at the start of buffer
        while true {
            let n = buffer.withUnsafeMutableBytes { b -> Int in
                while true {
                    let n = Glibc.read(fd, b.baseAddress! + kept, chunkSize)
                    if n < 0 && errno == EINTR { continue }
                    return n
                }
            }
            if n < 0 { throw Failure(line: 0, message: "cannot read: " + String(cString: strerror(errno))) }
            let end = kept + n
            kept = try buffer.withUnsafeBufferPointer { b -> Int in
                var start = 0
                while start < end {
                    guard let nl = memchr(b.baseAddress! + start, 0x0A, end - start) else { break }
                    let lineEnd = UnsafeRawPointer(nl) - UnsafeRawPointer(b.baseAddress!)
                    try parser.parse(line: UnsafeBufferPointer(rebasing: b[start..<lineEnd]))
                    start = lineEnd + 1
                }
                if n == 0 && start < end { // a last line without a newline
                    try parser.parse(line: UnsafeBufferPointer(rebasing: b[start..<end]))
                    start = end
                }
                return end - start
            }
            if n == 0 { break }
            if kept > maxLineLength {
                throw Failure(line: parser.lineNumber + 1, message: "line is longer than \(maxLineLength) bytes (is this a CSV file?)")
            }
            if kept > 0 && end - kept > 0 {
                buffer.withUnsafeMutableBytes { b in
                    _ = memmove(b.baseAddress!, b.baseAddress! + (end - kept), kept)
                }
            }
        }
        return parser.sightings
    }

    private typealias Bytes = UnsafeBufferPointer<UInt8>

    mutating func parse(line raw: UnsafeBufferPointer<UInt8>) throws {
        lineNumber += 1
        var line = raw
        if lineNumber == 1, line.starts(with: [0xEF, 0xBB, 0xBF]) { line = Bytes(rebasing: line[3...]) }
        line = Self.trimmed(line)
        if line.isEmpty { return }
        if line.count > Self.maxLineLength {
            throw fail("line is longer than \(Self.maxLineLength) bytes (is this a CSV file?)")
        }

        // Split at commas: at most 5 fields are kept, all are counted.
        var fields: [Bytes] = []
        fields.reserveCapacity(5)
        var count = 0
        var start = 0
        for i in 0...line.count {
            if i == line.count || line[i] == UInt8(ascii: ",") {
                if count < 5 { fields.append(Self.trimmed(Bytes(rebasing: line[start..<i]))) }
                count += 1
                start = i + 1
            }
        }

        if !sawContent {
            sawContent = true
            if let n = Self.headerLength(fields, count: count) {
                headerColumns = n
                return
            }
        }
        if let n = headerColumns {
            guard count == n else {
                throw fail("expected \(n) columns, as the header says (\(Self.columns.prefix(n).joined(separator: ","))); found \(count)")
            }
        } else {
            guard count == 4 || count == 5 else {
                throw fail("expected 4 or 5 columns (time,rpi,aem,rssi[,prev_scan]); found \(count)")
            }
        }

        guard let time = Self.integer(fields[0]) else { throw fail(field: "time", fields[0], "is not an integer") }
        guard time >= 0 else { throw fail(field: "time", fields[0], "must not be negative") }
        guard let rpi = Self.keyData(fields[1]) else { throw fail(field: "rpi", fields[1], "is not 32 hex digits (16 bytes)") }
        guard let aem = Self.aem(fields[2]) else { throw fail(field: "aem", fields[2], "is not 8 hex digits (4 bytes)") }
        guard let rssiValue = Self.integer(fields[3]) else { throw fail(field: "rssi", fields[3], "is not an integer") }
        guard let rssi = Int8(exactly: rssiValue) else { throw fail(field: "rssi", fields[3], "is out of range (-128 to 127)") }
        var previousScan: Int64?
        if count == 5, !fields[4].isEmpty {
            guard let p = Self.integer(fields[4]) else { throw fail(field: "prev_scan", fields[4], "is not an integer") }
            guard p >= 0 else { throw fail(field: "prev_scan", fields[4], "must not be negative") }
            previousScan = p
        }
        sightings.append(Sighting(time: time, rpi: rpi, aem: aem, rssi: rssi, previousScan: previousScan))
    }

    private func fail(_ message: String) -> Failure {
        Failure(line: lineNumber, message: message)
    }

    private func fail(field: String, _ value: Bytes, _ problem: String) -> Failure {
        let shown = value.count > 40 ? String(decoding: value.prefix(40), as: UTF8.self) + "..." : String(decoding: value, as: UTF8.self)
        return Failure(line: lineNumber, message: "\(field) \(problem): \"\(shown)\"")
    }

    /// The number of columns if the fields are the header (names compared
    /// without regard to case), else nil.
    private static func headerLength(_ fields: [Bytes], count: Int) -> Int? {
        guard count == 4 || count == 5 else { return nil }
        for (field, name) in zip(fields, columns) {
            guard field.count == name.utf8.count,
                  zip(field, name.utf8).allSatisfy({ ($0 | 0x20) == $1 || ($0 == $1) }) else { return nil }
        }
        return count
    }

    private static func isBlank(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0D }

    private static func trimmed(_ b: Bytes) -> Bytes {
        var lo = 0, hi = b.count
        while lo < hi, isBlank(b[lo]) { lo += 1 }
        while hi > lo, isBlank(b[hi - 1]) { hi -= 1 }
        return Bytes(rebasing: b[lo..<hi])
    }

    /// A decimal integer with an optional leading '-', in Int64's range.
    private static func integer(_ b: Bytes) -> Int64? {
        var i = 0
        let negative = !b.isEmpty && b[0] == UInt8(ascii: "-")
        if negative { i = 1 }
        guard i < b.count else { return nil }
        var value: Int64 = 0
        while i < b.count {
            let d = b[i] &- UInt8(ascii: "0")
            guard d < 10 else { return nil }
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (s, o2) = negative ? m.subtractingReportingOverflow(Int64(d)) : m.addingReportingOverflow(Int64(d))
            guard !o1, !o2 else { return nil }
            value = s
            i += 1
        }
        return value
    }

    /// Decodes exactly `out.count * 2` hex digits into `out`.
    private static func decodeHex(_ b: Bytes, into out: UnsafeMutableRawBufferPointer) -> Bool {
        guard b.count == out.count * 2 else { return false }
        for i in 0..<out.count {
            guard let hi = Hex.nibble(b[2 * i]), let lo = Hex.nibble(b[2 * i + 1]) else { return false }
            out[i] = hi << 4 | lo
        }
        return true
    }

    private static func keyData(_ b: Bytes) -> KeyData? {
        withUnsafeTemporaryAllocation(byteCount: 16, alignment: 8) { out in
            decodeHex(b, into: out) ? KeyData(UnsafeRawBufferPointer(out)) : nil
        }
    }

    /// The 4 AEM bytes in file order, as `Sighting.aem` holds them (memory order).
    private static func aem(_ b: Bytes) -> UInt32? {
        var value: UInt32 = 0
        let ok = withUnsafeMutableBytes(of: &value) { decodeHex(b, into: $0) }
        return ok ? value : nil
    }
}
